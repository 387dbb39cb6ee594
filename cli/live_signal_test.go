//go:build unix

package cli

import (
	"encoding/json"
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
// and leaves no goroutine of the run, its fleet or its embedded target behind.
func TestLiveStopSignal(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx := stopAfter(t, syscall.SIGINT, 1500*time.Millisecond)
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
// That no request is left reading megabytes when the signal comes (1.57 s to exit at full
// scale with net/http's 10 MB limit) is counted in bytes by live/proxy's
// TestProxyOversizeHeaders; the exit time at full scale is measured by internal/hostile/rss.sh.
func TestLiveStopSignalUnderHeaderFlood(t *testing.T) {
	n, ok := hostile.Lookup("headers-8m")
	require.True(t, ok)
	srv, err := hostile.Start(n.Serve)
	require.NoError(t, err)
	defer srv.Close()
	ignore := goleak.IgnoreCurrent() // the target's own goroutines
	const after = 1500 * time.Millisecond
	ctx := stopAfter(t, syscall.SIGINT, after)
	stdin, _ := syncPipe(t)
	var out, errOut syncBuffer
	start := time.Now()
	code := execute(ctx, []string{"live", "--scenario", "black-friday", "--scale", "0.25", "--headless", "--format", "json", "--target", srv.URL()}, stdin, &out, &errOut)
	took := time.Since(start)
	assert.Equal(t, 130, code, errOut.String())
	assert.Less(t, took, after+10*time.Second, "stopped without waiting for the requests alive")
	t.Logf("out %v after the signal", (took - after).Round(time.Millisecond))
	var doc struct {
		Timeline []map[string]any `json:"timeline"`
		Summary  struct {
			FailureCauses map[string]int `json:"failure_causes"`
		} `json:"summary"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.String()), &doc), out.String())
	assert.NotEmpty(t, doc.Timeline)
	assert.Positive(t, doc.Summary.FailureCauses["oversize headers"])
	assert.Contains(t, errOut.String(), "attempts fail as 'oversize headers'")
	goleak.VerifyNone(t, ignore)
}
