package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
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
	shown, sel := m.insp.Shown()
	require.Len(t, shown, len(want))
	assert.Equal(t, len(want)-1, sel, "the newest is selected")

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
	_, sel = m.insp.Shown()
	assert.Equal(t, 0, sel)
	v = plainView(m)
	assert.Contains(t, v, "→ RETRY after 1.25s")
	assert.Contains(t, v, "✓ 5 delay              Mid(0, 500ms × 2^1 × (1 + 1.5)) = 1.25s", "CPS 0.15: factor 2.5, midpoint of 2.5s")
	assert.Contains(t, v, "attempt 1 failed: timeout")
	assert.Equal(t, engine.Retry, want[0].Action)

	m.Update(keyMsg("v")) // RETRY only: the one retry, selected
	shown, _ = m.insp.Shown()
	require.Len(t, shown, 1)
	assert.Contains(t, plainView(m), "RETRY only")
	assert.Contains(t, plainView(m), "→ RETRY after 1.25s")
	m.Update(keyMsg("v")) // REJECT only: the shed and the budget refusal, the newest selected
	shown, _ = m.insp.Shown()
	require.Len(t, shown, 2)
	assert.Contains(t, plainView(m), "REJECT · BUDGET_EXHAUSTED")
	m.Update(keyMsg("v")) // CIRCUIT_OPEN only: none among them
	assert.Contains(t, plainView(m), "No CIRCUIT_OPEN among the latest 5 decisions")
	for range len(engine.Actions) + 1 - 3 { // past the other actions, around to every action
		m.Update(keyMsg("v"))
	}
	shown, _ = m.insp.Shown()
	assert.Len(t, shown, len(want))

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
