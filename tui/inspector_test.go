package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// plainView is the model's screen without styles.
func plainView(m *Model) string { return ansi.Strip(m.View()) }

// Asserts that the inspect key pauses the run and opens the inspector on the source's latest
// decisions, the newest selected; that up and down move the selection; and that each decision
// of the engine set up by hand (fakeDecisions) shows the values that decided it: the budget
// refusal its tokens, cost and reserve with the ✗ on the budget; the attempt limit its 3 < 3;
// the 4xx its check 1; the shed its priority against floor(0.150×10) = 1; the retry its CPS as
// weight × signal and its delay's formula filled in. esc closes it and leaves the run paused.
func TestInspectorShowsTheChecks(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	fastForward(m, 5)
	m.Update(keyMsg("i"))
	require.True(t, m.inspecting)
	assert.True(t, m.fr.paused, "inspecting pauses the run")
	want := fakeDecisions()
	require.Len(t, m.fr.decisions, len(want))
	assert.Equal(t, len(want)-1, m.fr.selDecision, "the newest is selected")

	v := plainView(m)
	assert.Contains(t, v, "REJECT · BUDGET_EXHAUSTED")
	x := want[len(want)-1].Why
	assert.Contains(t, v, "✗   tokens")
	assert.Contains(t, v, fmt.Sprintf("%.1f/10 − cost 1.0 = %.1f < 4 kept for p5", x.Tokens, x.Tokens-1))
	assert.Less(t, x.Tokens-x.Cost, x.Keep, "the fixture's refusal is the budget's")

	m.Update(keyMsg("up"))
	v = plainView(m)
	assert.Contains(t, v, "MAX_RETRIES_EXCEEDED")
	assert.Contains(t, v, "✗ 2 attempt < limit    3 ≥ 3")
	assert.Contains(t, v, "· 5 delay")

	m.Update(keyMsg("up"))
	assert.Contains(t, plainView(m), "✗ 1 retryable?         no")

	m.Update(keyMsg("up"))
	v = plainView(m)
	shed := want[1].Why // the first retry spent a token: B = 0.1
	assert.Contains(t, v, "REJECT · SHED_LOW_PRIORITY")
	assert.Contains(t, v, fmt.Sprintf("✗ 4 priority ≥ floor   0 < floor(%.3f×10) = 1", shed.CPS))
	assert.Contains(t, v, fmt.Sprintf("✓ 3 CPS < emergency    %.3f < 0.75", shed.CPS))
	assert.Contains(t, v, "CPS = 0.30×F 0.00 + 0.20×L 0.00 + 0.15×Q 1.00 + 0.15×B 0.10 + 0.20×C 0.00")
	assert.Contains(t, v, "= 0.000 + 0.000 + 0.150 + 0.015 + 0.000")
	assert.Contains(t, v, "·   tokens             not reached")

	m.Update(keyMsg("up"))
	m.Update(keyMsg("up")) // stays on the oldest
	assert.Equal(t, 0, m.fr.selDecision)
	v = plainView(m)
	assert.Contains(t, v, "→ RETRY after 1.25s")
	assert.Contains(t, v, "✓ 5 delay              Mid(0, 500ms × 2^1 × (1 + 1.5)) = 1.25s", "CPS 0.15: factor 2.5, midpoint of 2.5s")
	assert.Contains(t, v, "attempt 1 failed: timeout")
	assert.Equal(t, engine.Retry, want[0].Action)

	m.Update(keyMsg("v")) // RETRY only: the one retry, selected
	require.Len(t, m.fr.decisions, 1)
	assert.Contains(t, plainView(m), "RETRY only")
	assert.Contains(t, plainView(m), "→ RETRY after 1.25s")
	m.Update(keyMsg("v")) // REJECT only: the shed and the budget refusal, the newest selected
	require.Len(t, m.fr.decisions, 2)
	assert.Contains(t, plainView(m), "REJECT · BUDGET_EXHAUSTED")
	m.Update(keyMsg("v")) // CIRCUIT_OPEN only: none among them
	assert.Contains(t, plainView(m), "No CIRCUIT_OPEN among the latest 5 decisions")
	for range len(engine.Actions) + 1 - 3 { // past the other actions, around to every action
		m.Update(keyMsg("v"))
	}
	assert.Len(t, m.fr.decisions, len(want))

	m.Update(keyMsg("esc"))
	assert.False(t, m.inspecting)
	assert.True(t, m.fr.paused, "the run stays paused")
	assert.NotContains(t, plainView(m), "Decision inspector")
}

// Asserts that a strategy without the engine's checks shows its verdict and says why there is
// nothing more, and that the inspect key toggles the inspector.
func TestInspectorWithoutChecks(t *testing.T) {
	m, _ := newTestModel(t, 100, 30, "naive")
	fastForward(m, 2)
	m.Update(keyMsg("i"))
	require.True(t, m.inspecting)
	v := plainView(m)
	assert.Contains(t, v, "naive decides without the CORTEX checks")
	assert.False(t, strings.Contains(v, "5 delay"))
	m.Update(keyMsg("i"))
	assert.False(t, m.inspecting)
}

// Asserts that delays print to the millisecond, with no float noise.
func TestFmtDelay(t *testing.T) {
	for d, want := range map[time.Duration]string{500 * time.Millisecond: "500ms", 1394 * time.Millisecond: "1.394s",
		1250 * time.Millisecond: "1.25s", 2100 * time.Millisecond: "2.1s", 30 * time.Second: "30s", 1394400 * time.Microsecond: "1.394s"} {
		assert.Equal(t, want, fmtDelay(d))
	}
}

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

// TestInspectorExplainsAnAdmission asserts that a shed new request is explained check by check:
// the service queueing (the fastest recent success against the baseline), the share shed (what
// the service completed against what was asked), and the priority against the admission floor.
func TestInspectorExplainsAnAdmission(t *testing.T) {
	d := shedAdmission(t)
	p := newInspector(DefaultStyles())
	v := ansi.Strip(p.detail(d, 0, 1, &frame{runs: nil, kept: []source.DecisionRecord{d}}, 110))
	x := d.Why
	assert.Contains(t, v, "analytics (priority 1) · a new request, before it is sent")
	assert.Contains(t, v, "→ REJECT · SHED_LOW_PRIORITY")
	assert.Contains(t, v, fmt.Sprintf("✗ service queues?      fastest recent success S = %.2f ≥ 0.50", x.Slowdown))
	assert.Contains(t, v, fmt.Sprintf("1 − 1.1 × %.1f completed / %.1f asked a second = %.0f%%", x.Completed, x.Asked, 100*x.ShedShare))
	assert.Contains(t, v, fmt.Sprintf("✗ priority ≥ floor     priority 1 < admission floor %d", x.AdmitFloor))
}
