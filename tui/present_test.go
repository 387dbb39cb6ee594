package tui

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Asserts that the present key shows the traffic chart alone under the header and the caption,
// then the CPS chart, then the dashboard again; that a strategy without a CPS goes from the
// traffic straight back to the dashboard; and that a small window still presents.
func TestPresenterMode(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, "cortex")
	fastForward(m, 10)
	m.Update(keyMsg("P"))
	v := m.View()
	assert.Contains(t, v, "Traffic /s")
	assert.NotContains(t, v, "Decisions")
	assert.NotContains(t, v, "CPS 0.")
	assert.Contains(t, v, "presenter mode: traffic (P for the next, then off)")

	m.Update(keyMsg("P"))
	v = m.View()
	assert.Contains(t, v, "CPS 0.")
	assert.NotContains(t, v, "Traffic /s")

	m.Update(keyMsg("P"))
	v = m.View()
	assert.Contains(t, v, "Decisions", "the dashboard again")
	assert.Contains(t, v, "presenter mode off")

	n, _ := newTestModel(t, 60, 15, "naive")
	fastForward(n, 10)
	n.Update(keyMsg("P"))
	assert.Contains(t, n.View(), "Traffic /s", "a small window presents the chart too")
	n.Update(keyMsg("P"))
	assert.Contains(t, n.View(), "presenter mode off", "naive has no CPS to present")
}
