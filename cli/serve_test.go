//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// TestServeUsage asserts that serve's bad flags are usage errors (status 2) naming the flag:
// a bad idle, a class without the teacher's key, a lesson without a class or unknown, an
// address other machines reach without keys, a scenario directory with a broken file.
func TestServeUsage(t *testing.T) {
	data := t.TempDir()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("name = \"x\"\nduration = 3\n"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--idle", "1ms"}, "--idle 1ms"},
		{[]string{"--class"}, "--class needs --teacher-key"},
		{[]string{"--lesson", "retry-storm"}, "--lesson is for --class"},
		{[]string{"--max-sessions", "-1"}, "--max-sessions -1"},
		{[]string{"--addr", "0.0.0.0:0"}, "--authorized-keys FILE"},
		{[]string{"--scenarios", dir}, "bad.toml"},
		{[]string{"--scenarios", t.TempDir()}, "no scenario file"},
		{[]string{"extra"}, "serve takes no arguments"},
	} {
		code, _, errOut := run(append([]string{"serve", "--data", data}, tc.args...)...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, errOut)
		assert.Contains(t, errOut, tc.want, tc.args)
	}
}

// TestServeProgress asserts that serve --progress prints one row per SSH user (by the name
// they last connected as, their key shortened), a ✓ per lesson completed and the count, and
// says so when no one has connected yet.
func TestServeProgress(t *testing.T) {
	data := t.TempDir()
	code, out, _ := run("serve", "--progress", "--data", data)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "no one has connected yet")
	file := map[string]any{"learners": map[string]any{
		"SHA256:bbbbbbbbbbbbbbbbbbbbbbbbbbbb": map[string]any{"name": "bob", "done": map[string]string{}, "seen": "2026-01-02T10:00:00Z"},
		"SHA256:aaaaaaaaaaaaaaaaaaaaaaaaaaaa": map[string]any{"name": "alice", "done": map[string]string{"retry-storm": "2026-01-02T10:05:00Z", "metastable": "2026-01-02T10:20:00Z"}, "seen": "2026-01-02T10:00:00Z"},
	}}
	data2, err := json.Marshal(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(data, "progress.json"), data2, 0o600))
	code, out, errOut := run("serve", "--progress", "--data", data)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(out, "\n")
	require.GreaterOrEqual(t, len(lines), 3)
	assert.Regexp(t, `^user\s+key\s+1\s+2\s+3`, lines[0])
	assert.Regexp(t, `^alice\s+SHA256:aaaaaaaaaaaa…\s+✓\s+·\s+✓`, lines[1], "alice did lessons 1 and 3")
	n := len(scenarios.Lessons())
	assert.Contains(t, lines[1], fmt.Sprintf("2/%d", n))
	assert.Regexp(t, fmt.Sprintf(`^bob\s+.*0/%d`, n), lines[2])
	assert.Contains(t, out, "1 retry-storm")

	require.NoError(t, os.WriteFile(filepath.Join(data, "progress.json"), []byte("{broken"), 0o600))
	code, _, errOut = run("serve", "--progress", "--data", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "not a progress file")
}

// TestServeOpenSSH asserts, end to end as a student connects, that Debian's OpenSSH client
// in tmux gets the dashboard from `cortex-tui serve`: the picker at the window's size, a
// scenario opened with enter, the run sped up with +, and q ending the session (ssh exits,
// the pane closes) while the server goes on; SIGINT stops the server with status 130. It
// needs ssh, ssh-keygen and tmux: skipped without them, except under CI=true.
func TestServeOpenSSH(t *testing.T) {
	for _, prog := range []string{"ssh", "ssh-keygen", "tmux"} {
		if _, err := exec.LookPath(prog); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is needed (.ci/run installs openssh-client and tmux): %v", prog, err)
			}
			t.Skipf("%s not installed", prog)
		}
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "id")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "student", "-f", key).CombinedOutput()
	require.NoError(t, err, string(out))

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stdin, _ := syncPipe(t)
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data")}, stdin, &stdout, &stderr)
	}()
	port := regexp.MustCompile(`connect: ssh -p (\d+) 127\.0\.0\.1`)
	deadline := time.Now().Add(20 * time.Second)
	for port.FindStringSubmatch(stderr.String()) == nil {
		require.True(t, time.Now().Before(deadline), "no address printed: %s", stderr.String())
		time.Sleep(10 * time.Millisecond)
	}
	p := port.FindStringSubmatch(stderr.String())[1]

	session := "serve-e2e-" + p
	sshCmd := strings.Join([]string{"ssh", "-p", p, "-i", key, "-o", "StrictHostKeyChecking=accept-new",
		"-o", "UserKnownHostsFile=" + filepath.Join(dir, "known_hosts"), "-o", "IdentitiesOnly=yes", "student@127.0.0.1"}, " ")
	require.NoError(t, exec.Command("tmux", "new-session", "-d", "-s", session, "-x", "100", "-y", "30", sshCmd).Run())
	defer exec.Command("tmux", "kill-session", "-t", session).Run()
	capture := func() string {
		out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", session).Output()
		return string(out)
	}
	waitPane := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok(capture()) {
			require.True(t, time.Now().Before(deadline), "the pane never showed %s:\n%s\nserver: %s", what, capture(), stderr.String())
			time.Sleep(50 * time.Millisecond)
		}
	}
	keys := func(k ...string) {
		require.NoError(t, exec.Command("tmux", append([]string{"send-keys", "-t", session}, k...)...).Run())
	}

	waitPane("the picker", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return strings.Contains(s, "Scenarios and lessons") && len(lines) == 30 && strings.Contains(lines[29], "quit")
	})
	keys("Enter")
	waitPane("the dashboard", func(s string) bool { return strings.Contains(s, "running") && strings.Contains(s, "x1") })
	keys("+")
	waitPane("x2", func(s string) bool { return strings.Contains(s, " x2 ") })
	keys("q")
	deadline = time.Now().Add(20 * time.Second)
	for exec.Command("tmux", "has-session", "-t", session).Run() == nil {
		require.True(t, time.Now().Before(deadline), "ssh did not exit after q:\n%s", capture())
		time.Sleep(50 * time.Millisecond)
	}
	assert.Eventually(t, func() bool { return strings.Contains(stderr.String(), "ended: quit") }, 10*time.Second, 20*time.Millisecond)
	assert.Contains(t, stderr.String(), "session student (SHA256:")
	assert.Contains(t, stderr.String(), "term tmux-256color 100x30")

	cancel(&stopped{sig: syscall.SIGINT})
	assert.Equal(t, 130, <-done)
}
