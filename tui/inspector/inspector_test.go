package inspector

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that the delay's formula is filled in with the engine's figures, Random for a random
// draw and min(max, ...) when the ceiling passes the cap.
func TestDelayFormula(t *testing.T) {
	x := engine.Explanation{Attempt: 1, Base: 500e6, Factor: 5.3, MaxDelay: 30e9,
		Decision: engine.Decision{Delay: 2100e6}}
	x.Ceiling = 5300e6
	assert.Equal(t, "Random(0, 500ms × 2^1 × (1 + 4.3)) = 2.1s", delayFormula(&x))
	x.Attempt, x.Ceiling, x.Decision.Delay = 6, 500e6*64*5.3, 30e9
	assert.Equal(t, "min(30s, Random(0, 500ms × 2^6 × (1 + 4.3))) = 30s", delayFormula(&x))
}

// shedAdmission returns the record of a new request of priority 1 shed by an engine whose
// service completes 120 of the 200 requests a second it is asked, slowly.
func shedAdmission(t *testing.T) source.DecisionRecord {
	t.Helper()
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cfg := engine.DefaultConfig()
	cfg.Clock, cfg.Seed, cfg.Deterministic = clock, 1, true
	eng, err := engine.New(cfg)
	require.NoError(t, err)
	second := func(capacity int, latency time.Duration) {
		served := 0
		for i := range 200 {
			clock.Advance(5 * time.Millisecond)
			if eng.Admit([]int{1, 5, 9, 9}[i%4]).Action != engine.Retry {
				continue
			}
			if served < capacity {
				served++
				eng.RecordSuccess(latency)
			} else {
				eng.RecordFailure(time.Millisecond)
			}
		}
	}
	for range 60 {
		second(1000, 50*time.Millisecond)
	}
	for range 6 {
		second(120, 400*time.Millisecond)
	}
	d := source.DecisionRecord{T: time.Minute, Class: "analytics", Priority: 1, Failure: "new", Explained: true}
	dec := eng.AdmitExplained(1, &d.Why)
	d.Action, d.Reason = dec.Action, dec.Reason
	require.Equal(t, engine.ReasonShedLowPriority, dec.Reason)
	return d
}

// Asserts that a shed new request is explained check by check: the service queueing (the
// fastest recent success against the baseline), the share shed (what the service completed
// against what was asked), and the priority against the admission floor.
func TestInspectorExplainsAnAdmission(t *testing.T) {
	d := shedAdmission(t)
	p := New(common.DefaultStyles(), keymap.Default())
	p.Open([]source.DecisionRecord{d}, "cortex")
	v := ansi.Strip(p.detail(d, 0, 1, 110))
	x := d.Why
	assert.Contains(t, v, "analytics (priority 1) · a new request, before it is sent")
	assert.Contains(t, v, "→ REJECT · SHED_LOW_PRIORITY")
	assert.Contains(t, v, fmt.Sprintf("✗ service queues?      fastest recent success S = %.2f ≥ 0.50", x.Slowdown))
	assert.Contains(t, v, fmt.Sprintf("1 − 1.1 × %.1f completed / %.1f asked a second = %.0f%%", x.Completed, x.Asked, 100*x.ShedShare))
	assert.Contains(t, v, fmt.Sprintf("✗ priority ≥ floor     priority 1 < admission floor %d", x.AdmitFloor))
}
