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
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// patience is how long a test waits for a server to start, or for one command of its own
// (a PING, a pause) to be answered: far more than a loaded machine takes, so that only a
// server that hangs or never starts misses it.
const patience = 30 * time.Second

// errPortTaken is start's error when the server exited at once (its port taken since
// freePort, by another test's server).
var errPortTaken = errors.New("redis-server exited at start")

// StartWith is Start with options. A server that exits at once because another process took
// its free port in the meantime is started again on another (at most 5 tries).
func StartWith(t testing.TB, o Options) *Server {
	t.Helper()
	if o.PortArg == "" {
		o.PortArg = "--port"
	}
	s := &Server{bin: Need(t), dir: t.TempDir(), opts: o}
	t.Cleanup(s.Stop)
	for try := 1; ; try++ {
		s.port = freePort(t)
		err := s.start()
		if err == nil {
			return s
		}
		if !errors.Is(err, errPortTaken) || try == 5 {
			t.Fatal(err)
		}
	}
}

// Restart runs the server again on its port (after Stop: empty) and waits until it answers
// PING.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	require.NoError(t, s.start())
}

// start runs the server on its port and waits (at most patience) until it answers PING itself
// (INFO's process_id is its pid: not another test's server that took the port).
func (s *Server) start() error {
	args := []string{"--bind", "127.0.0.1", s.opts.PortArg, strconv.Itoa(s.port), "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "",
		"--enable-debug-command", "yes", "--loglevel", "warning"}
	if s.opts.PortArg != "--port" {
		args = append(args, "--port", "0")
	}
	s.cmd = exec.Command(s.bin, append(args, s.opts.Args...)...)
	s.cmd.Dir = s.dir
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(s.cmd, s.done)
	c := s.client(patience)
	defer c.Close()
	pid := "process_id:" + strconv.Itoa(s.cmd.Process.Pid) + "\r\n"
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); {
		if info, err := c.Info(context.Background(), "server").Result(); err == nil && strings.Contains(info, pid) {
			return nil
		}
		select {
		case <-s.done:
			s.cmd = nil
			return fmt.Errorf("%w (port %d)", errPortTaken, s.port)
		case <-time.After(10 * time.Millisecond):
		}
	}
	return fmt.Errorf("redis-server on port %d did not answer within %s", s.port, patience)
}

// client returns a client of the server that waits up to timeout for a dial or an answer.
func (s *Server) client(timeout time.Duration) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
		Password: s.opts.Password, Username: s.opts.Username, TLSConfig: s.opts.TLS})
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
