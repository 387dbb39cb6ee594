package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/export"
	"github.com/cortex-tui/cortex-tui/tui/picker"
)

// This file holds what each dashboard key does. Every control goes to every run (both sides of
// compare) and shows on the next frame; the source writes it to the event log. A control that
// calls a source goes through whenIdle: while an advance is in flight it waits for it to
// return instead of for the source's lock, so a key is handled at once however long the
// scenario's ticks take.

// togglePause pauses or resumes. Pausing retires the tick loop's tag; resuming starts a new one.
func (m *Model) togglePause() tea.Cmd {
	if m.done() {
		return nil
	}
	m.fr.paused = !m.fr.paused
	m.ctl.pause(m.fr.paused)
	m.redrawFor(changedPlay)
	if m.fr.paused {
		m.logControl("paused")
	} else {
		m.logControl("resumed")
	}
	return m.kick()
}

// live reports whether the runs are live traffic, which follows the wall clock: speed and step
// do not apply.
func (m *Model) live() bool { return len(m.fr.runs) > 0 && m.fr.runs[0].meta.Live }

// realTime says in the footer why speed and step do nothing on live traffic.
func (m *Model) realTime() tea.Cmd {
	m.setStatus("live traffic runs in real time: speed and step do not apply (space pauses the sending)", false)
	return nil
}

// stepOnce advances one tick while paused.
func (m *Model) stepOnce() tea.Cmd {
	if m.live() {
		return m.realTime()
	}
	if !m.fr.paused && !m.done() && len(m.fr.runs) > 0 {
		m.setStatus(fmt.Sprintf("%s steps one tick while paused: %s pauses", common.KeyName(m.keys.Step), common.KeyName(m.keys.Pause)), false)
		return nil
	}
	if !m.fr.paused || m.ctl.inFlight || m.done() || len(m.fr.runs) == 0 {
		return nil
	}
	return m.advance(m.fr.runs[0].meta.Tick)
}

// faster and slower change the speed and log it; the running loop picks it up at its next tick.
func (m *Model) faster() tea.Cmd { return m.changeSpeed(1) }
func (m *Model) slower() tea.Cmd { return m.changeSpeed(-1) }

// changeSpeed moves the speed by d steps, says so in the event log, or says that it is at a limit.
func (m *Model) changeSpeed(d int) tea.Cmd {
	if m.live() {
		return m.realTime()
	}
	i := min(max(m.speedIdx+d, 0), len(speeds)-1)
	if i == m.speedIdx {
		m.setStatus(fmt.Sprintf("speed x%s is the limit (x%s to x%s)", common.FmtSpeed(speeds[i]), common.FmtSpeed(speeds[0]), common.FmtSpeed(speeds[len(speeds)-1])), false)
		return nil
	}
	m.setSpeed(i)
	m.logControl(fmt.Sprintf("speed x%s", common.FmtSpeed(m.fr.speed)))
	return nil
}

// setSpeed sets the speed to speeds[i] (clamped).
func (m *Model) setSpeed(i int) {
	m.speedIdx = min(max(i, 0), len(speeds)-1)
	m.fr.speed = speeds[m.speedIdx]
	m.redrawFor(changedPlay)
}

// restart runs the scenario again from t=0 with the same seed; controls reset, and so does
// the speed, to x1: a run restarted at x64 flew past its opening captions.
func (m *Model) restart() tea.Cmd {
	if len(m.fr.runs) == 0 {
		return nil
	}
	m.setSpeed(defaultSpeed)
	m.ctl.gen++
	m.ctl.whenIdle(func() {
		for _, r := range m.fr.runs {
			_ = r.src.Control(source.Restart()) // a restart is never refused
			r.reset()
		}
		m.resetControls()
		m.lessonRestarted()
		m.logControl("restarted, same seed; controls and faults reset")
		m.redraw()
	})
	m.screen = screenDashboard
	m.redraw()
	m.setStatus("restarted with the same seed, at x"+common.FmtSpeed(m.fr.speed), false)
	return m.kick()
}

// openPicker shows the scenario picker; the run pauses behind it.
func (m *Model) openPicker() tea.Cmd {
	m.screen = screenPicker
	m.ctl.pause(true) // the run pauses behind the picker
	m.picker.SetCancellable(len(m.fr.runs) > 0)
	switch lr := m.fr.lesson; {
	case lr != nil && lr.done && lr.nextLesson() != nil: // a lesson complete: the next one
		m.picker.SelectLesson(lr.nextLesson().Name)
	case len(m.fr.runs) > 0:
		m.picker.Select(m.fr.runs[0].meta.Scenario)
	}
	m.tag++ // retire the loop; kick starts a new one when the picker closes
	return nil
}

// pickerMsg handles the picker's results and forwards other messages to it while it is shown.
func (m *Model) pickerMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case picker.PickedMsg:
		strat := m.opts.Strategy
		if len(m.fr.runs) > 0 {
			strat = m.fr.runs[0].meta.Strategy
		}
		m.open(msg.Scenario, strat, m.opts.Seed)
		return m.kick(), true
	case picker.PickedLessonMsg:
		return m.startLesson(msg.Scenario, msg.Lesson), true
	case picker.CancelledMsg:
		if len(m.fr.runs) == 0 {
			return nil, true
		}
		m.screen = screenDashboard
		if m.done() {
			m.screen = screenSummary
		}
		m.ctl.pause(m.fr.paused)
		m.redraw()
		return m.kick(), true
	}
	if m.screen != screenPicker {
		return nil, false
	}
	var cmd tea.Cmd
	m.picker, cmd = m.picker.Update(msg)
	return cmd, true
}

// toggleCompare enters compare mode (cortex against the current strategy, or naive) on fresh
// runs of the same scenario and seed, or leaves it keeping the left run.
func (m *Model) toggleCompare() tea.Cmd {
	if len(m.fr.runs) == 0 || m.scn == nil {
		return nil
	}
	if len(m.fr.runs) == 2 {
		left, right := m.fr.runs[0], m.fr.runs[1]
		m.ctl.whenIdle(func() { _ = right.src.Close() })
		// The left run goes on with the controls applied to both: keep them on screen as they
		// are in its source, rather than the scenario's defaults.
		m.ctl.gen++
		m.ctl.whenIdle(func() {
			left.syncMeta()
			m.redraw()
		})
		m.ctl.set(left)
		m.redraw()
		m.setStatus("compare off", false)
		m.logControl("compare off: " + m.fr.runs[0].meta.Strategy + " alone")
		return m.kick()
	}
	seed := m.fr.runs[0].meta.Seed
	left, right := "cortex", m.fr.runs[0].meta.Strategy
	rightFactory := m.ctl.factory
	switch {
	case m.opts.CompareFactory != nil: // another engine on the right
		right, rightFactory = "cortex", m.opts.CompareFactory
	case right == left:
		right = compareDefault
	}
	a, err := m.ctl.build(*m.scn, left, seed)
	if err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	b, err := (&controller{factory: rightFactory}).build(*m.scn, right, seed)
	if err != nil {
		_ = a.Close()
		m.setStatus(err.Error(), true)
		return nil
	}
	m.ctl.closeAll()
	m.screen = screenDashboard
	ra, rb := newRun(a), newRun(b)
	left, right = ra.meta.StrategyLabel(), rb.meta.StrategyLabel()
	m.setRuns(ra, rb)
	m.setStatus(fmt.Sprintf("comparing %s and %s on the same arrivals and seed %d (%s changes the right side)", left, right, seed, common.KeyName(m.keys.Strategy)), false)
	m.logControl(fmt.Sprintf("compare %s vs %s from t=0, seed %d", left, right, seed))
	return m.kick()
}

// export writes every run's timeline as CSV and JSON.
func (m *Model) export() tea.Cmd {
	if len(m.fr.runs) == 0 {
		return nil
	}
	if m.opts.NoExport {
		m.setStatus("export is off here: this dashboard is served to your terminal and writes no file", false)
		return nil
	}
	m.setStatus("exporting…", false)
	return export.Timelines(m.results(), m.bounds(), m.opts.ExportDir)
}

// results copies every run's timeline and summary (the Recorder is not safe for concurrent
// use: a command writes the copies), named by the strategies the run used ("cortex+naive"
// after a switch: the file name and the header say so).
func (m *Model) results() []report.Result {
	out := make([]report.Result, 0, len(m.fr.runs))
	for _, r := range m.fr.runs {
		out = append(out, r.rec.Result())
	}
	return out
}

// OracleFunc returns the oracle's bound on a run of scn from seed as report writes it (what
// run --headless prints), nil when the run has none (a closed loop, a scenario with controls).
type OracleFunc func(scn scenarios.Scenario, seed int64) (*report.Oracle, error)

// bounds returns the function that fills, off the Update loop, the oracle's bound (Options.Oracle)
// of the results of m.results(): a finished simulated run's, from the scenario it played, so
// that the export of a run is what run --headless prints of the same scenario (of its
// recording, too: a run with no control has a bound, one with controls none). It leaves the
// others' nil, and a bound that fails too.
func (m *Model) bounds() func([]report.Result) {
	oracle := m.opts.Oracle
	played := make([]*scenarios.Scenario, len(m.fr.runs))
	for i, r := range m.fr.runs {
		rec, ok := r.src.(source.Recording)
		if oracle == nil || !ok || r.meta.Live || !r.hist.Last.Done {
			continue
		}
		scn := rec.Played()
		played[i] = &scn
	}
	return func(rs []report.Result) {
		for i := range rs {
			if i < len(played) && played[i] != nil {
				if o, err := oracle(*played[i], played[i].Seed); err == nil {
					rs[i].Summary.Oracle = o
				}
			}
		}
	}
}

// onExported says where the export went.
func (m *Model) onExported(msg export.TimelinesMsg) {
	if msg.Err != nil {
		m.setStatus(msg.Err.Error(), true)
		return
	}
	m.setStatus(export.Summary(msg.Paths), false)
	m.logControl(export.Summary(msg.Paths))
}
