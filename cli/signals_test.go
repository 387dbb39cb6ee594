//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer that a command left running after its stop may still write to
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// stopAfter returns a context cancelled by sig after d (at once for 0), as Execute's is by a
// real signal.
func stopAfter(t *testing.T, sig os.Signal, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	timer := time.AfterFunc(d, func() { cancel(&stopped{sig: sig}) })
	t.Cleanup(func() { timer.Stop(); cancel(nil) })
	return ctx
}

// TestStopSignal asserts that a headless command stopped by SIGTERM, SIGINT or SIGHUP, midway
// or before it began, returns through its context (before execute's grace for a blocked
// command runs out), prints nothing but "stopped by SIG..." on stderr and exits with 128 + the
// signal's number, instead of finishing (a thousand seeds of the whole catalog take hours) or
// exiting 0. The grace is a minute here, so the check does not depend on the machine's load (a
// bound of 1 s failed under -race with a load of 10 on 2 cores).
func TestStopSignal(t *testing.T) {
	orig := stopGrace
	stopGrace = time.Minute
	t.Cleanup(func() { stopGrace = orig })
	tests := []struct {
		name  string
		args  []string
		sig   os.Signal
		after time.Duration // when the signal comes; 0: before the command starts
		code  int
	}{
		{"bench midway", []string{"bench", "--seeds", "1-1000", "--format", "json"}, syscall.SIGTERM, 50 * time.Millisecond, 143},
		{"validate - waiting for its input", []string{"validate", "-"}, syscall.SIGHUP, 50 * time.Millisecond, 129},
		{"run --headless", []string{"run", "--scenario", "black-friday", "--headless", "--format", "json"}, syscall.SIGINT, 0, 130},
		{"bench", []string{"bench", "--scenario", "black-friday", "--format", "json"}, syscall.SIGTERM, 0, 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin, _ := syncPipe(t) // never written: validate - waits
			ctx := stopAfter(t, tt.sig, tt.after)
			if tt.after == 0 {
				<-ctx.Done()
			}
			var out, errOut syncBuffer
			start := time.Now()
			code := execute(ctx, tt.args, stdin, &out, &errOut)
			assert.Less(t, time.Since(start), stopGrace, "returned through its context, not abandoned after the grace")
			assert.Equal(t, tt.code, code)
			assert.Empty(t, out.String())
			assert.Equal(t, "cortex-tui: stopped by "+map[os.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP"}[tt.sig]+"\n", errOut.String())
		})
	}
}

// syncPipe returns the read end of a pipe whose write end is held open (and closed at the end
// of the test).
func syncPipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { w.Close(); r.Close() })
	return r, w
}

// TestStopSignalAbandonsABlockedCommand asserts that a command blocked where no context
// reaches (opening a FIFO that has no writer) is abandoned stopGrace after the signal, with
// the signal's status.
func TestStopSignalAbandonsABlockedCommand(t *testing.T) {
	orig := stopGrace
	stopGrace = 100 * time.Millisecond
	t.Cleanup(func() { stopGrace = orig })
	fifo := filepath.Join(t.TempDir(), "fifo.toml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	t.Cleanup(func() { // let the abandoned open return
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
	})
	var out, errOut syncBuffer
	code := execute(stopAfter(t, syscall.SIGTERM, 50*time.Millisecond), []string{"run", "--scenario-file", fifo, "--headless"}, strings.NewReader(""), &out, &errOut)
	assert.Equal(t, 143, code)
	assert.Equal(t, "cortex-tui: stopped by SIGTERM\n", errOut.String())
}

// TestHelperProcess is not a test: TestRealSignal runs the test binary again with
// CORTEX_TUI_HELPER=1 to have a whole process to signal, and this runs the command line after
// "--" in it. It ignores SIGTERM until Execute has set its own handler up (a SIGTERM arriving
// before would otherwise kill the process outright), and says so by closing file descriptor 3
// (the parent's ready pipe), so that the parent signals only from then on.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("CORTEX_TUI_HELPER") != "1" {
		t.Skip("run by TestRealSignal")
	}
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM)
	if ready := os.NewFile(3, "ready"); ready != nil {
		ready.Close()
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(Execute(args, os.Stdin, os.Stdout, os.Stderr))
}

// TestRealSignal asserts, with a real SIGTERM sent to a real process, what a user sees: the
// command stops with exit status 143 and "cortex-tui: stopped by SIGTERM" on stderr, instead of
// exiting 0 silently.
func TestRealSignal(t *testing.T) {
	stdin, _ := syncPipe(t) // validate - waits on it forever
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "--", "validate", "-")
	cmd.Env = append(os.Environ(), "CORTEX_TUI_HELPER=1")
	cmd.Stdin = stdin
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	readyR, readyW := syncPipe(t)
	cmd.ExtraFiles = []*os.File{readyW} // the helper's fd 3, closed once SIGTERM cannot kill it
	require.NoError(t, cmd.Start())
	readyW.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	ready := make(chan struct{})
	go func() { _, _ = readyR.Read(make([]byte, 1)); close(ready) }() // EOF once the helper closed it
	var err error
	deadline := time.After(10 * time.Second)
	select { // a SIGTERM before the helper's signal.Notify would kill it outright (exit -1, on a loaded machine)
	case <-ready:
	case <-deadline:
		_ = cmd.Process.Kill()
		t.Fatal("the helper process never got ready")
	}
signal:
	for { // until Execute's handler is up and takes one
		select {
		case err = <-exited:
			break signal
		case <-time.After(20 * time.Millisecond):
			_ = cmd.Process.Signal(syscall.SIGTERM)
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatal("the process did not stop on SIGTERM")
		}
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", errOut.String())
	assert.Equal(t, 143, ee.ExitCode())
	assert.Equal(t, "cortex-tui: stopped by SIGTERM\n", errOut.String())
	assert.Empty(t, out.String())
}
