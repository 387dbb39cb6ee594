package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestProgressBar asserts what bench shows on a terminal while it runs: a bar at once (before
// the first run ends), the count, the time taken and the time left at the pace so far,
// redrawn in place at most ten times a second, and the line cleared at the end.
func TestProgressBar(t *testing.T) {
	clock := engine.NewManualClock(time.Unix(0, 0))
	var out bytes.Buffer
	p := newProgress(&out, "bench", "runs", clock)
	p.update(0, 8)
	assert.Equal(t, "\r\033[Kbench ░░░░░░░░░░░░░░░░░░░░░░░░ 0/8 runs · 0s", out.String())
	out.Reset()
	clock.Advance(2 * time.Second)
	p.update(2, 8)
	assert.Equal(t, "\r\033[Kbench ██████░░░░░░░░░░░░░░░░░░ 2/8 runs · 2s, about 6s left", out.String())
	out.Reset()
	clock.Advance(10 * time.Millisecond)
	p.update(3, 8)
	assert.Empty(t, out.String(), "not redrawn 10 ms later")
	p.update(8, 8)
	assert.Equal(t, "\r\033[K", out.String(), "cleared at the end")
}
