//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cortex-tui/cortex-tui/internal/hostile"
)

// TestLiveStopSignal asserts that a live headless run stopped by SIGINT midway stops its
// traffic, prints what it recorded so far (a live run is worth its partial rows), exits 130,
// and leaves no goroutine of the run, its fleet or its embedded target behind. The signal comes
// once the run has recorded its first whole second (liveSecondRecorded), not at a fixed time:
// on a loaded machine under -race a run may not have begun 1.5 s after the command.
func TestLiveStopSignal(t *testing.T) {
	var seconds atomic.Int64
	liveSecondRecorded = func() { seconds.Add(1) }
	t.Cleanup(func() { liveSecondRecorded = nil })
	ignore := goleak.IgnoreCurrent()
	ctx, _ := stopWhen(t, syscall.SIGINT, func() bool { return seconds.Load() >= 1 })
	stdin, _ := syncPipe(t)
	var out, errOut syncBuffer
	code := execute(ctx, []string{"live", "--scenario", "black-friday", "--scale", "0.1", "--headless", "--format", "json"}, stdin, &out, &errOut)
	assert.Equal(t, 130, code, errOut.String())
	var doc struct {
		Timeline []map[string]any `json:"timeline"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.String()), &doc), out.String())
	assert.NotEmpty(t, doc.Timeline)
	goleak.VerifyNone(t, ignore)
}

// TestLiveStopSignalUnderHeaderFlood asserts that a live run against a target sending 8 MiB of
// headers per answer stops at SIGINT without waiting for its requests (black-friday's deadline
// is 30 s, its attempts' timeout 2 s: the margin is for a loaded machine, a run that waited
// would miss it by far), prints what it recorded, with the failures by cause, and exits 130.
// The signal comes once the run has told its first oversize headers on stderr (a second's
// row recorded), not at a fixed time: on a loaded machine under -race the run had not begun
// 1.5 s after the command, and a command stopped before its run prints nothing. That no
// request is left reading megabytes when the signal comes (1.57 s to exit at full scale with
// net/http's 10 MB limit) is counted in bytes by live/proxy's TestProxyOversizeHeaders; the
// exit time at full scale is measured by internal/hostile/rss.sh.
func TestLiveStopSignalUnderHeaderFlood(t *testing.T) {
	n, ok := hostile.Lookup("headers-8m")
	require.True(t, ok)
	srv, err := hostile.Start(n.Serve)
	require.NoError(t, err)
	defer srv.Close()
	ignore := goleak.IgnoreCurrent() // the target's own goroutines
	stdin, _ := syncPipe(t)
	var out, errOut syncBuffer
	const told = "attempts fail as 'oversize headers'"
	ctx, sent := stopWhen(t, syscall.SIGINT, func() bool { return strings.Contains(errOut.String(), told) })
	code := execute(ctx, []string{"live", "--scenario", "black-friday", "--scale", "0.25", "--headless", "--format", "json", "--target", srv.URL()}, stdin, &out, &errOut)
	took := time.Since(sent())
	assert.Equal(t, 130, code, errOut.String())
	assert.Less(t, took, 10*time.Second, "stopped without waiting for the requests alive")
	t.Logf("out %v after the signal", took.Round(time.Millisecond))
	var doc struct {
		Timeline []map[string]any `json:"timeline"`
		Summary  struct {
			FailureCauses map[string]int `json:"failure_causes"`
		} `json:"summary"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.String()), &doc), out.String())
	assert.NotEmpty(t, doc.Timeline)
	assert.Positive(t, doc.Summary.FailureCauses["oversize headers"])
	assert.Contains(t, errOut.String(), told)
	goleak.VerifyNone(t, ignore)
}

// stopWhen returns a context that a signal sig cancels once cond holds (asked every 10 ms; at
// the latest after a minute, so that a run that never gets there still ends), and when it was
// sent (the zero time before).
func stopWhen(t *testing.T, sig os.Signal, cond func() bool) (context.Context, func() time.Time) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	var mu sync.Mutex
	var at time.Time
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for deadline := time.Now().Add(time.Minute); !cond() && time.Now().Before(deadline); {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		mu.Lock()
		at = time.Now()
		mu.Unlock()
		cancel(&stopped{sig: sig})
	}()
	t.Cleanup(func() { cancel(nil); <-done })
	return ctx, func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
}
