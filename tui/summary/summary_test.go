package summary

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// TestInFlightCapRow shows the live-only row of new requests refused at --max-inflight when a
// run has any, with each run's count, and leaves it out of every run that has none.
func TestInFlightCapRow(t *testing.T) {
	tests := []struct {
		name string
		sums []report.Summary
		want []string // the row's values, one per run; nil for no cap row
	}{
		{"simulated run", []report.Summary{{Strategy: "cortex"}}, nil},
		{"live run at the cap", []report.Summary{{Strategy: "naive", InFlightCapRefused: 1234}}, []string{"1234"}},
		{"one of two at the cap", []report.Summary{{Strategy: "cortex"}, {Strategy: "naive", InFlightCapRefused: 7}}, []string{"0", "7"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(common.DefaultStyles(), keymap.Default())
			p.SetSize(100, 30)
			p.Show(source.Meta{Scenario: "black-friday", Seed: 1}, tc.sums, nil, "")
			text := ansi.Strip(p.View())
			if tc.want == nil {
				assert.NotContains(t, text, "in-flight cap")
				return
			}
			var got []string
			for _, line := range strings.Split(text, "\n") {
				if _, rest, ok := strings.Cut(line, "refused at the in-flight cap"); ok {
					got = strings.Fields(strings.Trim(rest, "│ "))
				}
			}
			assert.Equal(t, tc.want, got)
			assert.Contains(t, text, "retries", "the row sits among the others, not instead of them")
		})
	}
}
