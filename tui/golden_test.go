package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// Asserts that the main screens render exactly as reviewed, at a few sizes (ASCII colour
// profile, set in TestMain; `make golden` regenerates the files after a deliberate change).
func TestGoldenScreens(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	cases := []struct {
		name  string
		w, h  int
		setup func(m *Model)
	}{
		{"dashboard_140x40", 140, 40, func(m *Model) { fastForward(m, 31) }},
		{"dashboard_120x36", 120, 36, func(m *Model) { fastForward(m, 31) }},
		{"dashboard_80x24", 80, 24, func(m *Model) { fastForward(m, 31) }},
		{"dashboard_paused_tuned_100x30", 100, 30, func(m *Model) {
			advanceFrames(m, 120)
			for _, k := range []string{"space", "tab", "right", "right", "down", "]", "}", "1", "."} {
				if _, cmd := m.Update(keyMsg(k)); cmd != nil && k == "." {
					m.Update(cmd()) // the one-tick step
				}
			}
		}},
		{"naive_140x40", 140, 40, func(m *Model) { m.Update(keyMsg("s")); m.Update(keyMsg("s")); fastForward(m, 31) }}, // cortex -> cortex-article -> naive
		{"compare_140x40", 140, 40, func(m *Model) { m.Update(keyMsg("c")); fastForward(m, 31) }},
		{"small_60x15", 60, 15, func(m *Model) { fastForward(m, 31) }},
		{"tiny_20x5", 20, 5, func(m *Model) { fastForward(m, 31) }},
		{"summary_100x30", 100, 30, func(m *Model) { m.setSpeed(len(speeds) - 1); advanceFrames(m, 20) }},
		{"summary_baselines_100x30", 100, 30, func(m *Model) {
			m.setSpeed(len(speeds) - 1)
			advanceFrames(m, 20)
			m.fr.baseline = nil // advanceFrames drops the command that ran them: run them here
			m.Update(m.startBaselines()())
		}},
		{"help_100x30", 100, 30, func(m *Model) { m.Update(keyMsg("?")) }},
		{"fault_marked_140x40", 140, 40, func(m *Model) {
			fastForward(m, 8)
			m.Update(keyMsg("4"))
			fastForward(m, 8)
			m.Update(keyMsg("4"))
			fastForward(m, 8)
		}},
		{"glossary_100x30", 100, 30, func(m *Model) { m.Update(keyMsg("?")); m.Update(keyMsg("tab")) }},
		{"inspector_140x40", 140, 40, func(m *Model) { fastForward(m, 31); m.Update(keyMsg("i")); m.Update(keyMsg("up")) }},
		{"inspector_80x24", 80, 24, func(m *Model) { fastForward(m, 31); m.Update(keyMsg("i")) }},
		{"present_traffic_80x24", 80, 24, func(m *Model) { fastForward(m, 31); m.Update(keyMsg("P")) }},
		{"present_cps_140x40", 140, 40, func(m *Model) { fastForward(m, 31); m.Update(keyMsg("P")); m.Update(keyMsg("P")) }},
		{"present_compare_80x24", 80, 24, func(m *Model) { m.Update(keyMsg("c")); fastForward(m, 31); m.Update(keyMsg("P")) }},
		{"strategy_menu_80x24", 80, 24, func(m *Model) { fastForward(m, 31); m.Update(keyMsg("S")); m.Update(keyMsg("down")) }},
		{"events_scrolled_100x30", 100, 30, func(m *Model) {
			for range 12 {
				m.Update(keyMsg("space"))
			}
			m.Update(keyMsg("pgup"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newTestModel(t, c.w, c.h, "cortex")
			c.setup(m)
			m.Update(tea.WindowSizeMsg{Width: c.w, Height: c.h})
			golden.RequireEqual(t, m.View())
		})
	}
}
