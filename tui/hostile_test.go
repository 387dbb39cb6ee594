package tui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// hostileFile is a valid scenario whose name, summary, story, class names and notes are full
// of escape sequences, bidi controls, zero-width characters and combining-mark stacks.
const hostileFile = "../testdata/hostile/escapes.toml"

// hostileScenario parses hostileFile.
func hostileScenario(tb testing.TB) scenarios.Scenario {
	tb.Helper()
	scn, err := scenarios.ParseFile(hostileFile)
	require.NoError(tb, err)
	require.Contains(tb, scn.Classes[0].Name, "\x1b]0;", "the file still holds its escapes")
	return scn
}

// newModelOn returns a dashboard on scn (fake sources) at w x h, with its factory.
func newModelOn(tb testing.TB, scn scenarios.Scenario, w, h int) (*Model, *fakeFactory) {
	ff := &fakeFactory{}
	m := New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, ExportDir: tb.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, ff
}

// checkInert asserts that view, drawn with the ASCII colour profile, holds no escape byte at
// all and no other rune a terminal would act on or draw at another width (safetext.Unsafe),
// but line breaks and the joiners inside an emoji; and that it is exactly w x h cells.
func checkInert(t *testing.T, view string, w, h int, what string) {
	t.Helper()
	assert.NotContains(t, view, "\x1b", "%s: an escape byte", what)
	for i, r := range view {
		if safetext.Unsafe(r) && r != '\n' && r != '\u200d' {
			assert.Fail(t, "unsafe rune", "%s: %U at byte %d", what, r, i)
			break
		}
	}
	for _, l := range strings.Split(view, "\n") {
		if strings.ContainsRune(l, '\u200d') {
			assert.Contains(t, l, "👨\u200d👩\u200d👧", "%s: a joiner outside the family emoji: %q", what, l)
		}
	}
	checkExact(t, view, w, h, what)
}

// Asserts that the dashboard on a scenario whose texts are full of escapes shows them inert
// (each sequence one "␛", bidi and zero-width characters gone, combining marks clamped, CJK and
// emoji whole) on every screen: no escape byte in the view, every line exactly the window's
// width, and the screen as reviewed in the golden files (`make golden` regenerates them).
func TestGoldenHostile(t *testing.T) {
	scn := hostileScenario(t)
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
			checkInert(t, view, c.w, c.h, c.name)
			golden.RequireEqual(t, view)
		})
	}
}

// Asserts that the picker lists and tells a hostile scenario inert, its story on several
// lines, beside the list and below it.
func TestGoldenHostilePicker(t *testing.T) {
	items := append([]scenarios.Scenario{hostileScenario(t)}, pickerFixture()...)
	for _, c := range []struct {
		name string
		w, h int
	}{
		{"wide_120x30", 120, 30},
		{"stacked_60x30", 60, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPicker(common.DefaultStyles(), keymap.Default(), items)
			p.SetSize(c.w, c.h)
			checkInert(t, p.View(), c.w, c.h, c.name)
			golden.RequireEqual(t, p.View())
		})
	}
}

// Asserts that texts a file could never carry past validation but a source may still send
// (a name, a strategy, an event, a service state) are cleaned too, and so are the footer's
// messages that quote them, on every screen and at every size of the sweep.
func TestHostileSourceTexts(t *testing.T) {
	scn := hostileScenario(t)
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
	require.Contains(t, m.footer.status, "cannot build ␛ this")

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
		for _, sz := range sweepSizes() {
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			checkInert(t, m.View(), sz[0], sz[1], sc.name)
		}
	}
	assert.Equal(t, "evil␛name", m.fr.runs[0].meta.Scenario)
	assert.Equal(t, "cortex␛", m.fr.runs[0].meta.Strategy)
}
