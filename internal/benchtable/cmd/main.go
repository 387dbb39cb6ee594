// Command benchtable reads `go test -bench` output on standard input and writes the markdown
// table of package benchtable on standard output; its arguments are the extra units to report
// (such as x-gobreaker).
package main

import (
	"fmt"
	"os"

	"github.com/cortex-tui/cortex-tui/internal/benchtable"
)

func main() {
	rs, err := benchtable.Parse(os.Stdin)
	if err == nil && len(rs) == 0 {
		err = fmt.Errorf("no benchmark results on standard input")
	}
	if err == nil {
		err = benchtable.Write(os.Stdout, rs, os.Args[1:]...)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}
