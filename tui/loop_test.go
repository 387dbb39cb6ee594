package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// Asserts that a paused dashboard does no ticking work: after pause, neither a pending tick nor
// the advance in flight schedules anything, and no Advance reaches the source.
func TestPausedSchedulesNoTick(t *testing.T) {
	m, ff := newTestModel(t, 140, 40, "cortex")
	pending := m.onTick(tickMsg{tag: m.tag}) // an advance is in flight
	require.NotNil(t, pending)
	oldTag := m.tag
	m.Update(keyMsg("space"))
	assert.Nil(t, m.onTick(tickMsg{tag: oldTag}), "the old loop's tick is ignored")
	assert.Nil(t, m.onTick(tickMsg{tag: m.tag}), "no tick runs while paused")
	_, next := m.Update(pending())
	assert.Nil(t, next, "the advance in flight schedules no tick while paused")
	advances, _, _, _ := ff.last().calls()
	assert.Equal(t, 1, advances)
}

// Asserts that pausing and resuming while an advance is in flight never leaves two tick loops:
// resume schedules nothing itself, and the returning advance schedules exactly one tick with
// the new tag.
func TestResumeDuringAdvanceKeepsOneLoop(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	inflight := m.onTick(tickMsg{tag: m.tag})
	require.NotNil(t, inflight)
	m.Update(keyMsg("space"))
	_, resume := m.Update(keyMsg("space"))
	assert.Nil(t, resume, "the advance in flight will schedule the next tick")
	_, next := m.Update(inflight())
	require.NotNil(t, next)
	assert.Equal(t, tickMsg{tag: m.tag}, next())
	assert.Nil(t, m.onTick(tickMsg{tag: m.tag - 1}), "a stale tag is ignored")
}

// Asserts that a second tick of the current tag while an advance is in flight starts nothing
// (one Advance at a time), and that speed changes do not start a loop.
func TestOneAdvanceAtATime(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	require.NotNil(t, m.onTick(tickMsg{tag: m.tag}))
	assert.Nil(t, m.onTick(tickMsg{tag: m.tag}))
	_, cmd := m.Update(keyMsg("+"))
	assert.Nil(t, cmd)
}

// Asserts that each speed advances the source by speed x 100 ms of virtual time per frame.
func TestSpeedSetsVirtualTimePerFrame(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	for i, s := range speeds {
		m, _ := newTestModel(t, 140, 40, "cortex")
		m.setSpeed(i)
		advanceFrames(m, 8)
		want := time.Duration(float64(8*frameInterval) * s).Truncate(100 * time.Millisecond)
		assert.Equal(t, min(want, 60*time.Second), m.fr.runs[0].hist.Last.T, "speed x%g", s)
	}
}

// Asserts that snapshots of an advance started before a restart are dropped (generation check),
// and that the restart waits for the advance in flight before touching the source.
func TestRestartDropsStaleSnapshots(t *testing.T) {
	m, ff := newTestModel(t, 140, 40, "cortex")
	advanceFrames(m, 20)
	inflight := m.onTick(tickMsg{tag: m.tag})
	m.Update(keyMsg("r"))
	_, restarts, _, _ := ff.last().calls()
	assert.Equal(t, 0, restarts, "deferred while an advance is in flight")
	m.Update(inflight())
	_, restarts, _, _ = ff.last().calls()
	assert.Equal(t, 1, restarts)
	assert.False(t, m.fr.runs[0].hist.Seen, "the stale snapshots were dropped")
}

// Asserts that the end of the run shows the summary screen with the report's numbers, stops the
// loop, and that esc returns to the dashboard.
func TestSummaryAtTheEnd(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 20)
	require.True(t, m.done())
	assert.Equal(t, screenSummary, m.screen)
	v := m.View()
	for _, s := range []string{"Run summary", "success rate", "amplification", "wasted retries", "recovery", "crashes", "priority 9"} {
		assert.Contains(t, v, s)
	}
	assert.Nil(t, m.onTick(tickMsg{tag: m.tag}), "a finished run does not tick")
	m.Update(keyMsg("esc"))
	assert.Equal(t, screenDashboard, m.screen)
}

// Asserts that a panic inside a source's Advance is recovered, shown in the footer, and pauses.
func TestAdvancePanicIsRecovered(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	m.fr.runs[0].src = panicSource{m.fr.runs[0].src}
	cmd := m.onTick(tickMsg{tag: m.tag})
	require.NotNil(t, cmd)
	_, next := m.Update(cmd())
	assert.Nil(t, next)
	assert.True(t, m.fr.paused)
	assert.Contains(t, m.View(), "the simulation panicked")
}

// Asserts that a factory error is shown rather than crashing, and leaves the picker open.
func TestFactoryErrorIsShown(t *testing.T) {
	ff := &fakeFactory{err: assert.AnError}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	assert.Equal(t, screenPicker, m.screen)
	v := m.View()
	assert.Contains(t, v, assert.AnError.Error())
	assert.Len(t, strings.Split(v, "\n"), 40, "the message takes the picker's last line")
}
