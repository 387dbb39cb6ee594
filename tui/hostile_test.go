package tui

import (
	"errors"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/internal/tuitest"
)

// newModelOn returns a dashboard on scn (fake sources) at w x h, with its factory.
func newModelOn(tb testing.TB, scn scenarios.Scenario, w, h int) (*Model, *fakeFactory) {
	ff := &fakeFactory{}
	m := New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, ExportDir: tb.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, ff
}

// Asserts that the dashboard on a scenario whose texts are full of escapes shows them inert
// (each sequence one "␛", bidi and zero-width characters gone, combining marks clamped, CJK and
// emoji whole) on every screen: no escape byte in the view, every line exactly the window's
// width, and the screen as reviewed in the golden files (`make golden` regenerates them).
func TestGoldenHostile(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	scn := tuitest.HostileScenario(t)
	cases := []struct {
		name  string
		w, h  int
		setup func(m *Model)
	}{
		{"dashboard_140x40", 140, 40, func(m *Model) { fastForward(m, 31) }},
		{"dashboard_120x36", 120, 36, func(m *Model) { fastForward(m, 31) }},
		{"dashboard_80x24", 80, 24, func(m *Model) { fastForward(m, 31) }},
		{"class_selected_100x30", 100, 30, func(m *Model) { fastForward(m, 31); m.Update(keyMsg("down")); m.Update(keyMsg("]")) }},
		{"compare_140x40", 140, 40, func(m *Model) { m.Update(keyMsg("c")); fastForward(m, 31) }},
		{"small_60x15", 60, 15, func(m *Model) { fastForward(m, 31) }},
		{"summary_100x30", 100, 30, func(m *Model) { m.setSpeed(len(speeds) - 1); advanceFrames(m, 20) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newModelOn(t, scn, c.w, c.h)
			c.setup(m)
			m.Update(tea.WindowSizeMsg{Width: c.w, Height: c.h})
			view := m.View()
			tuitest.CheckInert(t, view, c.w, c.h, c.name)
			golden.RequireEqual(t, view)
		})
	}
}

// Asserts that texts a file could never carry past validation but a source may still send
// (a name, a strategy, an event, a service state) are cleaned too, and so are the footer's
// messages that quote them, on every screen and at every size of the sweep.
func TestHostileSourceTexts(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	scn := tuitest.HostileScenario(t)
	scn.Name = "evil\x1b]0;PWNED\x07\u202Ename"
	scn.Summary = "summary \x1b[5mblink\u200b"
	m, ff := newModelOn(t, scn, 140, 40)
	fastForward(m, 5)
	src := ff.last()
	src.mu.Lock()
	src.meta.Strategy = "cortex\x1b[31m"
	src.control("control \x1b]52;c;eA==\x07 with \u009b2J an escape")
	src.mu.Unlock()
	m.Update(keyMsg("r")) // restart: the meta is read again
	fastForward(m, 5)
	ff.err = errors.New("cannot build \x1b]0;PWNED\x07 \u202Ethis")
	m.Update(keyMsg("c")) // compare fails: the error is in the footer
	require.Contains(t, m.footer.Status(), "cannot build ␛ this")

	screens := []struct {
		name  string
		setup func(m *Model)
	}{
		{"dashboard", func(*Model) {}},
		{"help", func(m *Model) { m.Update(keyMsg("?")) }},
		{"summary", func(m *Model) { m.Update(keyMsg("?")); m.setSpeed(len(speeds) - 1); advanceFrames(m, 20) }},
		{"picker", func(m *Model) { m.Update(keyMsg("esc")); m.Update(keyMsg("l")) }},
	}
	for _, sc := range screens {
		sc.setup(m)
		for _, sz := range tuitest.SweepSizes() {
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			tuitest.CheckInert(t, m.View(), sz[0], sz[1], sc.name)
		}
	}
	assert.Equal(t, "evil␛name", m.fr.runs[0].meta.Scenario)
	assert.Equal(t, "cortex␛", m.fr.runs[0].meta.Strategy)
}
