// Command hostile serves one misbehaving server of package hostile's catalog until SIGINT or
// SIGTERM, for measuring a client against it from the shell:
//
//	go run ./internal/hostile/cmd/hostile headers-8m          # prints http://127.0.0.1:PORT/
//	go run ./internal/hostile/cmd/hostile -addr 127.0.0.1:9000 endless-body
//	go run ./internal/hostile/cmd/hostile -list
//
// On stop it prints, on stderr, the connections it accepted, the requests it read and the
// bytes it wrote.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/hostile"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on, host:port")
	list := flag.Bool("list", false, "list the behaviours and exit")
	flag.Parse()
	if *list {
		for _, n := range hostile.Catalog {
			fmt.Printf("%-18s %-9s %s\n", n.Name, n.Kind, n.Doc)
		}
		return
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: hostile [-addr HOST:PORT] NAME (hostile -list names them)")
		os.Exit(2)
	}
	n, ok := hostile.Lookup(flag.Arg(0))
	if !ok {
		fmt.Fprintf(os.Stderr, "hostile: no behaviour %q (hostile -list names them)\n", flag.Arg(0))
		os.Exit(2)
	}
	s, err := hostile.Listen(*addr, n.Serve)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
	scheme := "http"
	if n.Name == "tls" {
		scheme = "https"
	}
	fmt.Printf("%s://%s/\n", scheme, s.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	closed := make(chan struct{})
	go func() { _ = s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second): // a behaviour that does not let go: say where it is
		fmt.Fprintln(os.Stderr, "hostile: still closing after 5 s; goroutines:")
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "hostile %s: %d connections, %d requests, %d bytes written\n",
		n.Name, s.Accepted(), s.Requests(), s.Written())
}
