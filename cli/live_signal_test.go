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
