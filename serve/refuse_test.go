package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/sim"
)

// Asserts that an address other machines can reach is refused without --authorized-keys or
// --open, with a message that names both, and accepted with either; loopback needs neither.
func TestExposedAddressNeedsKeys(t *testing.T) {
	keys := writeKeys(t, newUser(t, "alice"))
	for _, tc := range []struct {
		addr   string
		keys   string
		open   bool
		refuse bool
	}{
		{addr: "0.0.0.0:2222", refuse: true},
		{addr: ":2222", refuse: true},
		{addr: "[::]:2222", refuse: true},
		{addr: "192.0.2.1:2222", refuse: true},
		{addr: "0.0.0.0:2222", keys: keys},
		{addr: "0.0.0.0:2222", open: true},
		{addr: "127.0.0.1:2222"},
		{addr: "localhost:2222"},
	} {
		cfg := DefaultConfig()
		cfg.Addr, cfg.AuthorizedKeys, cfg.Open = tc.addr, tc.keys, tc.open
		cfg.DataDir, cfg.Factory = t.TempDir(), sim.NewSource
		_, err := New(context.Background(), cfg)
		if tc.refuse {
			require.Error(t, err, tc.addr)
			assert.Contains(t, err.Error(), "--authorized-keys")
			assert.Contains(t, err.Error(), "--open")
		} else {
			assert.NoError(t, err, "%s keys=%q open=%v", tc.addr, tc.keys, tc.open)
		}
	}
}

// Asserts that with --authorized-keys a key it does not list cannot connect (and the refusal
// is logged), while a listed one can; a broken authorized_keys file is refused at start with
// its line.
func TestUnknownKeyRefused(t *testing.T) {
	alice, mallory := newUser(t, "alice"), newUser(t, "mallory")
	ts := startServer(t, func(c *Config) { c.AuthorizedKeys = writeKeys(t, alice) })
	_, err := mallory.dial(ts)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unable to authenticate")
	c, err := alice.dial(ts)
	require.NoError(t, err)
	c.Close()
	assert.Eventually(t, func() bool { return strings.Contains(ts.log.String(), "failed") }, 20*time.Second, 10*time.Millisecond)

	bad := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(bad, []byte(alice.authorizedLine()+"ssh-ed25519 not-base64 eve\n"), 0o600))
	cfg := DefaultConfig()
	cfg.AuthorizedKeys, cfg.DataDir, cfg.Factory = bad, t.TempDir(), sim.NewSource
	_, err = New(context.Background(), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+":2:")
}

// Asserts that the server runs no command (exec is answered with a message and status 1),
// needs a terminal, opens no sftp subsystem, forwards no port either way, refuses agent and X11
// forwarding, and keeps at most maxEnv variables of a client's environment.
func TestNoExecNoForwarding(t *testing.T) {
	ts := startServer(t, nil)
	alice := newUser(t, "alice")
	client, err := alice.dial(ts)
	require.NoError(t, err)
	defer client.Close()

	sess, err := client.NewSession()
	require.NoError(t, err)
	out, err := sess.CombinedOutput("cat /etc/passwd")
	assert.Equal(t, 1, exitStatus(err), "exec: status 1")
	assert.Contains(t, string(out), "runs the dashboard and no command")
	assert.NotContains(t, string(out), "root:")

	sess, err = client.NewSession()
	require.NoError(t, err)
	out, err = sess.CombinedOutput("")
	assert.Equal(t, 1, exitStatus(err), "a shell without a PTY: status 1")
	assert.Contains(t, string(out), "needs a terminal")

	sess, err = client.NewSession()
	require.NoError(t, err)
	assert.Error(t, sess.RequestSubsystem("sftp"), "no sftp")
	ok, err := sess.SendRequest("auth-agent-req@openssh.com", true, nil)
	require.NoError(t, err)
	assert.False(t, ok, "no agent forwarding")
	ok, err = sess.SendRequest("x11-req", true, gossh.Marshal(struct {
		Single        bool
		Proto, Cookie string
		Screen        uint32
	}{false, "MIT-MAGIC-COOKIE-1", "00", 0}))
	require.NoError(t, err)
	assert.False(t, ok, "no X11 forwarding")
	accepted := 0
	for i := range 2 * maxEnv {
		if sess.Setenv("V"+strings.Repeat("x", i%3), "1") == nil {
			accepted++
		}
	}
	assert.Equal(t, maxEnv, accepted, "the environment is bounded")
	assert.Error(t, sess.Setenv("BIG", strings.Repeat("x", maxEnvBytes)), "a huge variable is refused")
	sess.Close()

	_, err = client.Dial("tcp", ts.addr)
	assert.Error(t, err, "no local port forwarding (direct-tcpip)")
	_, err = client.Listen("tcp", "127.0.0.1:0")
	assert.Error(t, err, "no remote port forwarding (tcpip-forward)")
	assert.Eventually(t, func() bool { return strings.Contains(ts.log.String(), "refused: a command (cat /etc/passwd)") }, 20*time.Second, 10*time.Millisecond)
	assert.Contains(t, ts.log.String(), "refused: no terminal")
}

// Asserts that a hostile user name and terminal type (escape sequences, controls) reach
// neither the log nor the progress file as they were: made inert, bounded; the session works.
func TestHostileNameAndTerm(t *testing.T) {
	ts := startServer(t, nil)
	name := "\x1b]0;owned\x07eve\x1b[2J\x1b[31m" + strings.Repeat("x", 300)
	term := "xterm\x1b]52;c;cm0gLXJmIH4=\x07\x1b[?1049l"
	eve := newUser(t, name)
	tm := eve.connect(t, ts, 90, 26, termOptions{term: term, env: []string{"EVIL=\x1b[2J"}})
	tm.waitText(20*time.Second, "Scenarios")
	tm.press("q")
	tm.wait(20 * time.Second)
	tm.close()
	waitSessions(t, ts, 0, 10*time.Second)
	log := ts.log.String()
	assert.NotContains(t, log, "\x1b", "no escape reaches the log")
	assert.NotContains(t, log, "\x07")
	assert.Contains(t, log, "eve")
	assert.Less(t, len(log), 600, "the name is bounded in the log")
	learners, err := ReadProgress(ts.cfg.DataDir)
	require.NoError(t, err)
	require.Len(t, learners, 1)
	assert.NotContains(t, learners[0].Name, "\x1b")
	assert.LessOrEqual(t, len([]rune(learners[0].Name)), maxNameW)
}

// Asserts that past --max-sessions a session is told the server is full (status 1, logged)
// while the others go on, and that a place freed is taken again.
func TestSessionCap(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxSessions = 2 })
	var tms []*terminal
	for _, n := range []string{"a", "b"} {
		tm := newUser(t, n).connect(t, ts, 80, 24, termOptions{})
		tm.waitText(20*time.Second, "Scenarios")
		tms = append(tms, tm)
	}
	c := newUser(t, "c").connect(t, ts, 80, 24, termOptions{})
	assert.Equal(t, 1, exitStatus(c.wait(20*time.Second)))
	assert.Contains(t, c.stderr.String(), "the server is full: 2 sessions")
	c.close()
	assert.Contains(t, ts.log.String(), "refused: the server is full")
	assert.Equal(t, 2, ts.Sessions())

	tms[0].press("q")
	tms[0].wait(20 * time.Second)
	tms[0].close()
	waitSessions(t, ts, 1, 10*time.Second)
	d := newUser(t, "d").connect(t, ts, 80, 24, termOptions{})
	d.waitText(20*time.Second, "Scenarios")
	d.close()
	tms[1].close()
}

// Asserts that a session without a key for --idle is closed with a message (status 0, the
// terminal given back, logged), while one whose user types now and then (every idle/8) stays
// for twice the idle. The idle is 2 s, not less: the busy user's keys go through ssh to a
// server under -race, and on a loaded machine (two CPU burners beside make test) a key could
// take longer than a shorter idle to arrive, which would close the busy session.
func TestIdleSession(t *testing.T) {
	idle := 2 * time.Second
	ts := startServer(t, func(c *Config) { c.Idle = idle })
	quiet := newUser(t, "quiet").connect(t, ts, 80, 24, termOptions{})
	busy := newUser(t, "busy").connect(t, ts, 80, 24, termOptions{})
	quiet.waitText(20*time.Second, "Scenarios")
	busy.waitText(20*time.Second, "Scenarios")
	stop := time.After(2 * idle)
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		case <-time.After(idle / 8):
			busy.press("down")
		}
	}
	assert.Equal(t, 0, exitStatus(quiet.wait(20*time.Second)))
	assert.Contains(t, quiet.stderr.String(), "closed after 2s without a key")
	assert.False(t, quiet.screen.Alt(), "the terminal is given back")
	assert.Contains(t, ts.log.String(), "session quiet")
	assert.Contains(t, ts.log.String(), "ended: idle 2s")
	select {
	case err := <-busy.done:
		t.Fatalf("the busy session ended: %v", err)
	default:
	}
	quiet.close()
	busy.close()
}

// Asserts that the host key is generated once, private (0600), and the same at the next
// start; a key others can read is refused.
func TestHostKeyOnce(t *testing.T) {
	dir := t.TempDir()
	s1, created, err := hostKey(dir)
	require.NoError(t, err)
	assert.True(t, created)
	fi, err := os.Stat(filepath.Join(dir, hostKeyName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	s2, created, err := hostKey(dir)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Equal(t, s1.PublicKey().Marshal(), s2.PublicKey().Marshal())

	require.NoError(t, os.Chmod(filepath.Join(dir, hostKeyName), 0o644))
	_, _, err = hostKey(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "chmod 600")
}
