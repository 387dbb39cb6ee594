package decisions

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that a panel too short for every action lists the actions with the most decisions:
// at 80x24 during black-friday's outage the panel has three rows (NEW and two actions) and
// dropped CIRCUIT_OPEN, most of the decisions, for REJECT, listed before it, and RETRY.
func TestDecisionsShortKeepsLargestTotals(t *testing.T) {
	var tot report.Totals
	tot.Originals = 32715
	tot.Decisions[engine.Retry] = 1069
	tot.Decisions[engine.Reject] = 1162
	tot.Decisions[engine.CircuitOpen] = 12550
	tests := []struct {
		name       string
		h          int
		want, gone []string
	}{
		{"three rows", 5, []string{"NEW", "REJECT", "CIRCUIT_OPEN"}, []string{"RETRY "}},
		{"four rows", 6, []string{"NEW", "RETRY", "REJECT", "CIRCUIT_OPEN"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(common.DefaultStyles())
			p.SetSize(36, tc.h)
			p.Show(source.Snapshot{}, tot, 100*time.Millisecond)
			v := ansi.Strip(p.View())
			for _, w := range tc.want {
				assert.Contains(t, v, w)
			}
			for _, g := range tc.gone {
				assert.NotContains(t, v, g)
			}
		})
	}
}
