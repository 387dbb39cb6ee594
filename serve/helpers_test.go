package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/serve/internal/vt"
	"github.com/cortex-tui/cortex-tui/sim"
)

func TestMain(m *testing.M) {
	if os.Getenv(benchChildEnv) != "" { // the server of a benchmark, in a process of its own
		os.Exit(benchChild())
	}
	goleak.VerifyTestMain(m)
}

// testServer is a Server listening on a free loopback port, with its log.
type testServer struct {
	*Server
	addr string
	log  *syncBuffer
	done chan error
}

// startServer starts a server on 127.0.0.1:0 with a data directory of its own and change
// applied to its config, and shuts it down when the test ends.
func startServer(t *testing.T, change func(*Config)) *testServer {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.Factory = sim.NewSource
	log := &syncBuffer{}
	cfg.Log = log
	if change != nil {
		change(&cfg)
	}
	srv, err := New(context.Background(), cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ts := &testServer{Server: srv, addr: ln.Addr().String(), log: log, done: make(chan error, 1)}
	go func() { ts.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		<-ts.done
	})
	return ts
}

// syncBuffer is a bytes.Buffer safe for concurrent use: the server's log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// user is a test user with an Ed25519 key.
type user struct {
	name   string
	signer gossh.Signer
}

// newUser returns a user called name with a new key.
func newUser(t testing.TB, name string) *user {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	signer, err := gossh.NewSignerFromKey(priv)
	require.NoError(t, err)
	return &user{name: name, signer: signer}
}

// authorizedLine is the user's key as a line of authorized_keys.
func (u *user) authorizedLine() string {
	return string(gossh.MarshalAuthorizedKey(u.signer.PublicKey()))
}

// writeKeys writes the users' keys into an authorized_keys file and returns its path.
func writeKeys(t *testing.T, users ...*user) string {
	var b strings.Builder
	for _, u := range users {
		b.WriteString(u.authorizedLine())
	}
	path := t.TempDir() + "/authorized_keys"
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// dial connects u to the server, checking its host key.
func (u *user) dial(ts *testServer) (*gossh.Client, error) {
	hk, _ := ts.HostKey()
	return u.dialAddr(ts.addr, hk)
}

// dialAddr connects u to the server at addr whose host key is hk.
func (u *user) dialAddr(addr string, hk gossh.PublicKey) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User:            u.name,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(u.signer)},
		HostKeyCallback: gossh.FixedHostKey(hk),
		Timeout:         10 * time.Second,
	})
}

// termOptions say how a test terminal behaves.
type termOptions struct {
	term   string   // TERM ("xterm-256color" by default)
	env    []string // KEY=VALUE sent before the shell
	silent bool     // the terminal answers no query
	bg     string   // its background, as OSC 11 says it
}

// terminal is a session on a PTY with a screen: the client's side of the dashboard.
type terminal struct {
	t      testing.TB
	client *gossh.Client
	sess   *gossh.Session
	stdin  io.WriteCloser
	screen *vt.Screen
	raw    *syncBuffer // every byte the server sent to the terminal
	stderr *syncBuffer
	done   chan error // the session's end (Wait)
	// gate is held while the terminal reads nothing (stall): the SSH client stops reading
	// the channel, so the server's writes wait once the channel's window is full.
	gate sync.Mutex
}

// gated is a terminal's output: each write waits while the terminal is stalled.
type gated struct {
	gate *sync.Mutex
	w    io.Writer
}

func (g gated) Write(p []byte) (int, error) {
	g.gate.Lock()
	defer g.gate.Unlock()
	return g.w.Write(p)
}

// stall makes the terminal read nothing until resume.
func (tm *terminal) stall() { tm.gate.Lock() }

// resume makes a stalled terminal read again.
func (tm *terminal) resume() { tm.gate.Unlock() }

// connect opens a session for u on a PTY of w x h and starts the shell (the dashboard).
func (u *user) connect(t testing.TB, ts *testServer, w, h int, o termOptions) *terminal {
	t.Helper()
	client, err := u.dial(ts)
	require.NoError(t, err)
	tm, err := openTerminal(t, client, w, h, o)
	require.NoError(t, err)
	return tm
}

// openTerminal opens a session on client with a PTY and starts its shell.
func openTerminal(t testing.TB, client *gossh.Client, w, h int, o termOptions) (*terminal, error) {
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, err
	}
	if o.term == "" {
		o.term = "xterm-256color"
	}
	for _, kv := range o.env {
		k, v, _ := strings.Cut(kv, "=")
		_ = sess.Setenv(k, v)
	}
	if err := sess.RequestPty(o.term, h, w, gossh.TerminalModes{}); err != nil {
		client.Close()
		return nil, err
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		client.Close()
		return nil, err
	}
	tm := &terminal{t: t, client: client, sess: sess, stdin: stdin, raw: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	tm.screen = vt.New(w, h, vt.Options{Answer: stdin, Silent: o.silent, Background: o.bg})
	sess.Stdout = gated{gate: &tm.gate, w: io.MultiWriter(tm.screen, tm.raw)}
	sess.Stderr = tm.stderr
	if err := sess.Shell(); err != nil {
		client.Close()
		return nil, err
	}
	go func() { tm.done <- sess.Wait() }()
	return tm, nil
}

// waitFor waits until the screen satisfies ok, failing the test after timeout with the screen.
func (tm *terminal) waitFor(what string, timeout time.Duration, ok func(screen string) bool) {
	tm.t.Helper()
	deadline := time.After(timeout)
	for {
		changed := tm.screen.Changed()
		if s := tm.screen.String(); ok(s) {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			require.FailNow(tm.t, "the screen never showed "+what, "screen:\n%s\nstderr: %s", tm.screen.String(), tm.stderr.String())
		case err := <-tm.done:
			tm.done <- err
			if s := tm.screen.String(); ok(s) {
				return
			}
			require.FailNow(tm.t, "the session ended before the screen showed "+what, "err: %v\nscreen:\n%s\nstderr: %s", err, tm.screen.String(), tm.stderr.String())
		}
	}
}

// waitText waits until the screen contains every text.
func (tm *terminal) waitText(timeout time.Duration, texts ...string) {
	tm.t.Helper()
	tm.waitFor(strings.Join(texts, " and "), timeout, func(s string) bool {
		for _, text := range texts {
			if !strings.Contains(s, text) {
				return false
			}
		}
		return true
	})
}

// press types keys as a terminal sends them.
func (tm *terminal) press(keys ...string) {
	tm.t.Helper()
	for _, k := range keys {
		_, err := io.WriteString(tm.stdin, keyBytes(k))
		require.NoError(tm.t, err)
	}
}

// keyBytes is what a terminal sends for a key.
func keyBytes(k string) string {
	switch k {
	case "enter":
		return "\r"
	case "esc":
		return "\x1b"
	case "ctrl+c":
		return "\x03"
	case "space":
		return " "
	case "up":
		return "\x1b[A"
	case "down":
		return "\x1b[B"
	case "right":
		return "\x1b[C"
	case "left":
		return "\x1b[D"
	case "tab":
		return "\t"
	}
	return k
}

// resize changes the terminal's window, as a terminal emulator tells its SSH client.
func (tm *terminal) resize(w, h int) {
	tm.t.Helper()
	tm.screen.Resize(w, h)
	require.NoError(tm.t, tm.sess.WindowChange(h, w))
}

// wait waits for the session to end and returns its error (an *ssh.ExitError for a status).
func (tm *terminal) wait(timeout time.Duration) error {
	tm.t.Helper()
	select {
	case err := <-tm.done:
		tm.done <- err
		return err
	case <-time.After(timeout):
		require.FailNow(tm.t, "the session did not end", "screen:\n%s", tm.screen.String())
	}
	return nil
}

// exitStatus is the status a session's end carries (0 for none).
func exitStatus(err error) int {
	var ee *gossh.ExitError
	if errors.As(err, &ee) {
		return ee.ExitStatus()
	}
	return 0
}

// close ends the connection (the terminal is closed).
func (tm *terminal) close() { _ = tm.client.Close() }

// waitSessions waits until the server counts n sessions.
func waitSessions(t testing.TB, ts *testServer, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for ts.Sessions() != n {
		if time.Now().After(deadline) {
			require.FailNow(t, "session count", "want %d, have %d", n, ts.Sessions())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
