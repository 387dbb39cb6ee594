package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/export"
)

// Asserts that the present key shows the traffic chart alone under the header and the caption,
// then the CPS chart, then the dashboard again; that a strategy without a CPS goes from the
// traffic straight back to the dashboard; and that a small window still presents.
func TestPresenterMode(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
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

// Asserts that Options.StartAt opens the dashboard at that time with the screen a run watched
// from the start shows there: the same histories, charts and numbers.
func TestStartAt(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	watched, _ := newTestModel(t, 80, 24, "cortex")
	advanceFrames(watched, 150) // 15 s at x1
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, StartAt: 15 * time.Second, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	assert.Equal(t, 15*time.Second, m.fr.runs[0].hist.Last.T)
	assert.Equal(t, watched.View(), m.View())
	assert.Equal(t, watched.results(), m.results())
}

// Asserts that the picture key writes the screen without its footer as SVG and as text, named
// by the run and its time, and a second picture takes a new name.
func TestPictureKey(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, "cortex")
	fastForward(m, 10)
	_, cmd := m.Update(keyMsg("g"))
	require.NotNil(t, cmd)
	msg := cmd().(export.PicturedMsg)
	require.NoError(t, msg.Err)
	m.Update(msg)
	dir := m.opts.ExportDir
	base := filepath.Join(dir, "cortex-fake-storm-cortex-seed7-at8s")
	assert.Equal(t, []string{base + ".svg", base + ".txt"}, msg.Paths)
	assert.Contains(t, m.footer.Status(), "screen written to ")
	text, err := os.ReadFile(base + ".txt")
	require.NoError(t, err)
	assert.Equal(t, ansi.Strip(m.body)+"\n", string(text))
	assert.NotContains(t, string(text), "q/ctrl+c quit", "the footer is not part of the picture")
	svg, err := os.ReadFile(base + ".svg")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(svg), "<svg "))
	assert.Contains(t, string(svg), "> fake-storm │ t 8.0s / 60.0s │")

	_, cmd = m.Update(keyMsg("g"))
	assert.Equal(t, base+"-2.svg", cmd().(export.PicturedMsg).Paths[0])
}

// Asserts that the strategy menu lists every strategy with the run's own marked and
// highlighted, moves with up and down, switches on enter (and closes), and closes on esc
// without switching.
func TestStrategyMenu(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, "cortex")
	fastForward(m, 5)
	m.Update(keyMsg("S"))
	assert.True(t, m.fr.paused, "the menu pauses the run while it shows")
	v := m.View()
	assert.Contains(t, v, "Strategy · every client switches from now on")
	names := strategy.Names()
	for _, n := range names {
		assert.Contains(t, v, n)
	}
	assert.Contains(t, v, "▸ cortex ", "the run's own is highlighted, with a marker that reads without colour")
	assert.Contains(t, v, "(now)")

	m.Update(keyMsg("esc"))
	assert.NotContains(t, m.View(), "every client switches from now on")
	assert.Equal(t, "cortex", m.fr.runs[0].meta.Strategy)
	assert.False(t, m.fr.paused, "closing the menu resumes the run it paused")

	m.Update(keyMsg("S"))
	m.Update(keyMsg("down"))
	m.Update(keyMsg("down"))
	want := names[(slices.Index(names, "cortex")+2)%len(names)]
	assert.Contains(t, m.View(), "▸ "+want)
	m.Update(keyMsg("enter"))
	assert.Equal(t, want, m.fr.runs[0].meta.Strategy)
	assert.NotContains(t, m.View(), "every client switches from now on")
	assert.Contains(t, m.footer.Status(), "strategy "+want+" from now on")
	assert.False(t, m.fr.paused, "choosing resumes the run the menu paused")

	m.Update(keyMsg("space"))
	require.True(t, m.fr.paused)
	m.Update(keyMsg("S"))
	m.Update(keyMsg("esc"))
	assert.True(t, m.fr.paused, "a run paused before the menu opened stays paused")
}

// Asserts that Options.Present (run --present, live --present) opens the dashboard in
// presenter mode on the traffic chart, and that the present key goes on from there.
func TestOpenInPresenterMode(t *testing.T) {
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, Present: true, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	fastForward(m, 5)
	v := m.View()
	assert.Contains(t, v, "Traffic /s")
	assert.NotContains(t, v, "Decisions")
	m.Update(keyMsg("P"))
	assert.Contains(t, m.View(), "CPS 0.", "the present key goes on to the CPS")
}
