// Package redistest starts real Redis servers for tests: a redis-server on a free loopback
// port, in a temporary directory, with no persistence (no RDB, no AOF), so that a restart comes
// back empty (Start, StartWith: a password, ACL users, other arguments); a TLS-only one with a CA
// and a certificate generated for the test (StartTLS); a Redis Cluster of three masters
// (StartCluster); a master and its replica watched by two Sentinels (StartSentinel). A test
// without redis-server on its PATH skips with a message saying how to install it (and likewise
// without redis-cli or redis-sentinel); under CI=true it fails instead, never skips. Only tests
// import this package.
package redistest

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// Server is a redis-server a test started. Not safe for concurrent use.
type Server struct {
	bin  string
	port int
	dir  string
	opts Options
	cmd  *exec.Cmd
	done chan struct{}
}

// Options are what StartWith adds to a server: its arguments, and what a client needs to
// reach it (its password, TLS), so that Restart can tell when it answers.
type Options struct {
	Args     []string    // more redis-server arguments ("--requirepass", "s3cret", ...)
	Password string      // the password readiness checks with, if Args set one
	Username string      // the ACL user readiness checks with ("": default)
	TLS      *tls.Config // a client TLS configuration when the server listens with TLS only
	// PortArg is the argument that takes the server's port ("--port" by default; "--tls-port"
	// for a TLS-only server, which then gets "--port 0").
	PortArg string
}

// Need returns the path of redis-server, or skips the test when it is missing; under CI=true
// a missing redis-server fails the test instead.
func Need(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server not found (install it with `apt-get install -y redis-server`): this test needs a real Redis"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// freePort returns a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// Start starts a redis-server on a free loopback port and stops it when the test ends.
func Start(t testing.TB) *Server { return StartWith(t, Options{}) }

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	if o.PortArg == "" {
		o.PortArg = "--port"
	}
	s := &Server{bin: Need(t), port: freePort(t), dir: t.TempDir(), opts: o}
	s.Restart(t)
	t.Cleanup(s.Stop)
	return s
}

// Restart runs the server again on its port (after Stop: empty) and waits until it answers
// PING.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	args := []string{"--bind", "127.0.0.1", s.opts.PortArg, strconv.Itoa(s.port), "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "",
		"--enable-debug-command", "yes", "--loglevel", "warning"}
	if s.opts.PortArg != "--port" {
		args = append(args, "--port", "0")
	}
	s.cmd = exec.Command(s.bin, append(args, s.opts.Args...)...)
	s.cmd.Dir = s.dir
	require.NoError(t, s.cmd.Start())
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(s.cmd, s.done)
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Password: s.opts.Password, Username: s.opts.Username, TLSConfig: s.opts.TLS})
	defer c.Close()
	for range 500 {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		select {
		case <-s.done:
			t.Fatalf("redis-server exited at start (port %d)", s.port)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("redis-server on port %d did not answer PING within 5s", s.port)
}

// Stop kills the server and waits for it to exit; a no-op when it is not running.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Addr returns the server's address, 127.0.0.1:PORT.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// URL returns the server's URL, redis://127.0.0.1:PORT (rediss:// for a TLS-only server).
func (s *Server) URL() string {
	if s.opts.TLS != nil {
		return "rediss://" + s.Addr()
	}
	return "redis://" + s.Addr()
}

// Dir returns the server's directory (its working directory, where it writes its files).
func (s *Server) Dir() string { return s.dir }
