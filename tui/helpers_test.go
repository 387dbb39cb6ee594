package tui

import (
	"os"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/history"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	// A frame steps its whole virtual time (up to maxFrameTicks), however slow the machine:
	// what the tests see never depends on the clock. TestFrameBudget tests the clock's part.
	newFrameBudget = func() func(int) bool { return func(steps int) bool { return steps < maxFrameTicks } }
	os.Exit(m.Run())
}

// newTestModel returns a dashboard on the fake scenario at w x h, with its factory; exports go
// to a temporary directory.
func newTestModel(tb testing.TB, w, h int, strat string) (*Model, *fakeFactory) {
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, Strategy: strat, ExportDir: tb.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, ff
}

// advanceFrames runs n tick frames directly (tick -> advance -> advanced), bypassing timers.
func advanceFrames(m *Model, n int) {
	for range n {
		cmd := m.onTick(tickMsg{tag: m.tag})
		if cmd == nil {
			return
		}
		m.Update(cmd())
	}
}

// keyMsg builds a key message as Bubble Tea would deliver it for s.
func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// testKeys are the default bindings.
func testKeys() keymap.KeyMap { return keymap.Default() }

// fastForward runs frames frames of virtual time at x8 (eight snapshots a frame, one redraw),
// then restores x1: the histories end the same as after 8*frames frames at x1, for less work.
func fastForward(m *Model, frames int) {
	m.setSpeed(5) // x8
	advanceFrames(m, frames)
	m.setSpeed(defaultSpeed)
}

// switchTo presses the strategy key until the run's strategy is name (at most once around the
// catalog), so tests do not depend on the catalog's order.
func switchTo(t *testing.T, m *Model, name string) {
	t.Helper()
	for range strategy.Names() {
		if m.fr.runs[0].meta.Strategy == name {
			return
		}
		m.Update(keyMsg("s"))
	}
	require.Equal(t, name, m.fr.runs[0].meta.Strategy, "the strategy key never reached %s", name)
}

// findPanel returns the n-th panel of type P (0 the first) on the screen the model shows, from
// its layout table; the test fails if there is none.
func findPanel[P component[P]](t *testing.T, m *Model, n int) P {
	t.Helper()
	for _, r := range m.layouts[m.current()] {
		for _, c := range r.cells {
			if p, ok := c.p.(*mounted[P]); ok {
				if n == 0 {
					return p.p
				}
				n--
			}
		}
	}
	var zero P
	require.FailNow(t, "no such panel on this screen", "%T", zero)
	return zero
}

// testHistory returns an empty history with a recorder of its own.
func testHistory() *history.History { return history.New(report.NewRecorder(source.Meta{})) }
