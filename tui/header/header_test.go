package header

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that the header says the fullest wording that fits its width, dropping the faults'
// values, then the total, then the speed, while the names stay; that it is exactly its width;
// and that a student following a class sees the class's pause.
func TestHeaderFullestThatFits(t *testing.T) {
	v := View{Scenario: "black-friday", Strategies: []string{"cortex"}, T: 42 * time.Second, Total: 180 * time.Second,
		Speed: 2, Faults: []source.ActiveFault{{Kind: scenarios.FaultLatency, Value: 1}}}
	tests := []struct {
		w        int
		has, not []string
	}{
		{140, []string{"black-friday", "/ 3m00s", "x2", "latency +1s", "running"}, nil},
		{68, []string{"black-friday", "x2", "fault: latency", "running"}, []string{"/ 3m00s", "+1s"}},
		{54, []string{"black-friday", "cortex", "fault: latency"}, []string{"x2", "running"}},
	}
	for _, tc := range tests {
		p := New(common.DefaultStyles())
		p.SetSize(tc.w, 1)
		p.Show(v)
		line := ansi.Strip(p.View())
		assert.Equal(t, tc.w, ansi.StringWidth(line), "width %d", tc.w)
		for _, s := range tc.has {
			assert.Contains(t, line, s, "width %d", tc.w)
		}
		for _, s := range tc.not {
			assert.NotContains(t, line, s, "width %d", tc.w)
		}
	}
	p := New(common.DefaultStyles())
	p.SetSize(140, 1)
	v.Class = &Class{Speed: 4, Paused: true}
	p.Show(v)
	assert.Contains(t, p.View(), "|| paused by teacher")
	assert.Contains(t, p.View(), "x4")
}

// Asserts that a live run's refusals at its in-flight cap show in the header once there are
// any, in full where they fit and shortened where the line is narrower, and never in a
// simulated run (which has no such cap).
func TestHeaderInFlightCap(t *testing.T) {
	v := View{Scenario: "black-friday", Strategies: []string{"cortex"}, T: 42 * time.Second, Total: 180 * time.Second, Live: true}
	tests := []struct {
		name   string
		w      int
		live   bool
		capped int
		has    string
		not    string
	}{
		{"none refused", 140, true, 0, "LIVE", "refused"},
		{"refused, wide", 140, true, 12, "12 refused at the in-flight cap", ""},
		{"refused, narrow", 80, true, 12, "12 refused (cap)", "refused at"},
		{"a simulated run", 140, false, 12, "black-friday", "12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(common.DefaultStyles())
			p.SetSize(tc.w, 1)
			v.Live, v.Capped = tc.live, tc.capped
			p.Show(v)
			line := ansi.Strip(p.View())
			assert.Equal(t, tc.w, ansi.StringWidth(line))
			assert.Contains(t, line, tc.has)
			if tc.not != "" {
				assert.NotContains(t, line, tc.not)
			}
		})
	}
}
