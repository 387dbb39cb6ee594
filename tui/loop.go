package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/source"
)

// The tick loop: a tick asks the runs for their next snapshots in a command, and their
// snapshots come back into the histories, the lesson and the panels.

// kick starts the tick loop under a new tag, unless paused, finished or on the picker. A tick
// of an older tag is ignored when it arrives, so there is never more than one loop.
func (m *Model) kick() tea.Cmd {
	m.tag++
	if m.fr.paused || m.screen == screenPicker || len(m.fr.runs) == 0 || m.done() || m.ctl.inFlight {
		return nil // an advance in flight schedules the next tick itself when it returns
	}
	return tick(m.tag)
}

// onTick advances the sources by one frame of virtual time at the current speed.
func (m *Model) onTick(msg tickMsg) tea.Cmd {
	if msg.tag != m.tag || m.fr.paused || m.ctl.inFlight || len(m.fr.runs) == 0 || m.done() {
		return nil
	}
	d := time.Duration(float64(frameInterval) * speeds[m.speedIdx])
	return m.advance(d)
}

// advance starts an advance command by d.
func (m *Model) advance(d time.Duration) tea.Cmd { return m.ctl.advance(d, m.guidedStop()) }

// onAdvanced takes the snapshots in, runs deferred controls, redraws, and schedules the next
// tick if running.
func (m *Model) onAdvanced(msg advancedMsg) tea.Cmd {
	pending := m.ctl.advanced()
	if msg.err != nil {
		m.fr.paused = true
		m.ctl.pause(true)
		m.setStatus(msg.err.Error(), true)
	}
	if msg.gen == m.ctl.gen && len(msg.snaps) == len(m.fr.runs) {
		if msg.slowed != m.fr.slowed {
			m.fr.slowed = msg.slowed
			m.redrawFor(changedPlay)
		}
		m.apply(msg.snaps)
		m.syncFollowed()
	}
	for _, fn := range pending {
		fn()
	}
	if m.done() && m.screen == screenDashboard && msg.gen == m.ctl.gen {
		m.screen = screenSummary
		m.redraw()
	}
	side := tea.Batch(m.saveLesson(), m.startBaselines())
	if m.fr.paused || m.done() || m.screen == screenPicker {
		return side
	}
	return tea.Batch(side, tick(m.tag))
}

// apply adds the snapshots to the runs' histories and recorders and redraws once.
func (m *Model) apply(snaps [][]source.Snapshot) {
	changed, pause := false, false
	for i, ss := range snaps {
		r := m.fr.runs[i]
		for _, s := range ss {
			r.add(s)
			changed = true
			pause = (i == 0 && m.observe(s)) || pause
		}
	}
	if pause && !m.done() && !m.following() { // a student follows the teacher's pauses
		m.fr.paused = true // guided: the tick loop stops in onAdvanced
		m.ctl.pause(true)
	}
	if !changed {
		return
	}
	if m.fr.cortex() != m.laidCortex {
		m.layout() // a strategy with a CPS, or without: the top band changes
	}
	if cv := m.fr.runs[0].hist.Last.Cortex; cv != nil {
		m.fr.weights = cv.Weights.Array()
		m.fr.adaptive = cv.Adaptive
	}
	m.redraw()
}
