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
// service completes 120 of the 200 requests a second it is asked, slowly, once payments have
// taken the send slots of the next second.
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
			if d := eng.AdmitRequest(engine.Request{Priority: []int{1, 5, 9, 9}[i%4], Remaining: time.Second}); d.Action != engine.Retry || d.Delay > 0 {
				continue
			}
			if served < capacity {
				served++
				eng.RecordSuccess(latency)
			} else {
				eng.RecordRefused(time.Millisecond) // a full queue's 503
			}
		}
	}
	for range 60 {
		second(1000, 50*time.Millisecond)
	}
	for range 6 {
		second(120, 400*time.Millisecond)
	}
	for range 50 { // payments take the send slots of the next second
		eng.AdmitRequest(engine.Request{Priority: 9, Remaining: 5 * time.Second})
	}
	d := source.DecisionRecord{T: time.Minute, Class: "analytics", Priority: 1, Failure: "new", Explained: true}
	dec := eng.AdmitRequestExplained(engine.Request{Priority: 1, Remaining: 300 * time.Millisecond}, &d.Why)
	d.Action, d.Reason = dec.Action, dec.Reason
	require.Equal(t, engine.ReasonShedLowPriority, dec.Reason)
	return d
}

// Asserts that a shed new request is explained check by check: the pacer on (the fastest
// recent success against the baseline), its pace (from what the service completed), the send
// slot its deadline could not wait for, and the admission floor.
func TestInspectorExplainsAnAdmission(t *testing.T) {
	d := shedAdmission(t)
	p := New(common.DefaultStyles(), keymap.Default())
	p.Open([]source.DecisionRecord{d}, "cortex")
	v := ansi.Strip(p.detail(d, 0, 1, 110))
	x := d.Why
	assert.Contains(t, v, "analytics (priority 1) · a new request, before it is sent")
	assert.Contains(t, v, "→ REJECT · SHED_LOW_PRIORITY")
	assert.Contains(t, v, fmt.Sprintf("✗ pacer on?            fastest recent success S = %.2f ≥ 0.50", x.Slowdown))
	assert.Contains(t, v, fmt.Sprintf("%.1f slots a second for %.1f completed · %.0f%% waited last second", x.Pace, x.Completed, 100*x.ShedShare))
	assert.Contains(t, v, "✗ send slot            no slot its deadline can wait for: shed")
	assert.Contains(t, v, fmt.Sprintf("admission floor      %d: the lowest priority given a slot while others waited", x.AdmitFloor))
	assert.Greater(t, x.Pace, 0.0)
}
