package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/internal/tuitest"
)

// startFlow runs the dashboard in a teatest program at 140x40 and returns it.
func startFlow(t *testing.T, opts Options) *teatest.TestModel {
	t.Helper()
	if opts.Keys.Quit.Keys() == nil {
		opts.Keys = testKeys()
	}
	return teatest.NewTestModel(t, New(opts), teatest.WithInitialTermSize(140, 40))
}

// waitFor waits until the program has drawn s (the stream is only waited on, never compared).
func waitFor(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

// finalModel quits and returns the final model.
func finalModel(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	tm.Send(keyMsg("q"))
	m, ok := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	require.True(t, ok)
	return m
}

// Asserts the first-run flow: the program opens on the picker, enter opens the highlighted
// scenario, the simulation runs on its own, space pauses it, q quits.
func TestFlowPickWatchPause(t *testing.T) {
	ff := &fakeFactory{}
	tm := startFlow(t, Options{Factory: ff.build, ExportDir: t.TempDir()})
	waitFor(t, tm, "Scenarios")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "t 0.3s")
	tm.Send(keyMsg("space"))
	waitFor(t, tm, "paused")
	m := finalModel(t, tm)
	assert.Equal(t, screenDashboard, m.screen)
	assert.True(t, m.fr.paused)
	require.Len(t, m.fr.runs, 1)
	assert.Equal(t, scenarios.Catalog()[0].Name, m.fr.runs[0].meta.Scenario)
	assert.Greater(t, m.fr.runs[0].hist.Last.T.Seconds(), 0.0, "the loop ran before the pause")
	assert.Contains(t, m.View(), "|| paused")
	assert.True(t, ff.last().closed, "quitting closes the source")
}

// Asserts the full-run flow: at top speed the scenario plays to its end and the summary
// screen shows the run's numbers.
func TestFlowRunToSummary(t *testing.T) {
	ff := &fakeFactory{}
	scn := fakeScenario()
	tm := startFlow(t, Options{Factory: ff.build, Scenario: &scn, ExportDir: t.TempDir()})
	for range len(speeds) {
		tm.Send(keyMsg("+"))
	}
	waitFor(t, tm, "for comparison") // the summary's baselines are in (one wait: each reads on from the last)
	m := finalModel(t, tm)
	assert.Equal(t, screenSummary, m.screen)
	assert.True(t, m.done())
	assert.Contains(t, m.View(), "success rate")
	// The baselines: none and naive, on the run's seed, as columns beside the run.
	var made []string
	ff.mu.Lock()
	for _, s := range ff.made[1:] {
		made = append(made, s.meta.Strategy)
		assert.Equal(t, scn.Seed, s.meta.Seed, "the baseline runs on the run's seed")
		assert.True(t, s.closed, "and its source is closed")
	}
	ff.mu.Unlock()
	assert.Equal(t, []string{"none", "naive"}, made)
	require.NotNil(t, m.fr.baseline)
	require.Len(t, m.fr.baseline.Sums, 2)
	assert.Regexp(t, `cortex\s+none\s+naive`, m.View(), "the summary's columns")
}

// Asserts the playground flow: compare, inject an outage into both runs, export both
// timelines, and find the files where the footer says.
func TestFlowCompareInjectExport(t *testing.T) {
	ff := &fakeFactory{}
	scn := fakeScenario()
	dir := t.TempDir()
	tm := startFlow(t, Options{Factory: ff.build, Scenario: &scn, ExportDir: dir})
	waitFor(t, tm, "▶ running")
	tm.Send(keyMsg("c"))
	waitFor(t, tm, "cortex vs naive")
	tm.Send(keyMsg("1"))
	tm.Send(keyMsg("e"))
	waitFor(t, tm, "exported")
	m := finalModel(t, tm)
	require.Len(t, m.fr.runs, 2)
	for _, r := range m.fr.runs {
		_, _, injected, _ := r.src.(*fakeSource).calls()
		require.Len(t, injected, 1)
		assert.Equal(t, scenarios.FaultOutage, injected[0].Kind)
		for _, f := range report.ExportFormats() {
			_, err := os.Stat(filepath.Join(dir, report.ExportName(r.meta)+f.Ext))
			assert.NoError(t, err)
		}
	}
	assert.Equal(t, "exported to "+dir+": "+exported("cortex-fake-storm-cortex-seed7")+", "+exported("cortex-fake-storm-naive-seed7"), m.footer.Status())
}

// Asserts that a window resize reaches every panel: after a resize to 80x24 the final view is
// exactly that size.
func TestFlowResize(t *testing.T) {
	ff := &fakeFactory{}
	scn := fakeScenario()
	tm := startFlow(t, Options{Factory: ff.build, Scenario: &scn, ExportDir: t.TempDir()})
	waitFor(t, tm, "▶ running")
	tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	tm.Send(keyMsg("space"))
	waitFor(t, tm, "paused")
	m := finalModel(t, tm)
	tuitest.CheckExact(t, m.View(), 80, 24, "after resize")
}
