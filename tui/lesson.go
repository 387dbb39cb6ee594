package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// lessonRun is the lesson followed over the dashboard's first run: its tracker, and whether
// the learner asked for the hint before it was due.
type lessonRun struct {
	tr       *lesson.Tracker
	showHint bool
	done     bool // every step's goals held
	saved    bool // LessonDone was called
}

// newLessonRun starts following l over the classes of meta.
func newLessonRun(l scenarios.Lesson, meta source.Meta) *lessonRun {
	names := make([]string, len(meta.Classes))
	for i, c := range meta.Classes {
		names[i] = c.Name
	}
	return &lessonRun{tr: lesson.New(common.CleanLesson(l), names)}
}

// observe follows the first run's snapshot s: the lesson's goals, and in guided mode a pause
// at each caption and at each step unlocked. It returns true when the run should pause.
func (m *Model) observe(s source.Snapshot) bool {
	pause := false
	if m.fr.lesson != nil && !m.fr.lesson.done {
		lr := m.fr.lesson
		if lr.tr.Observe(s, m.fr.runs[0].meta.Strategy) {
			m.stepDone(lr)
			pause = m.opts.Guided || lr.tr.Lesson().Guided
		}
	}
	if m.opts.Guided || (m.fr.lesson != nil && m.fr.lesson.tr.Lesson().Guided) {
		for _, e := range s.Events {
			if e.Kind == source.EventNote {
				pause = true
				m.setStatus("guided: paused at a caption; "+common.KeyName(m.keys.Pause)+" goes on", false)
			}
		}
	}
	return pause
}

// nextLesson is the built-in lesson after the one followed, in the lessons' order: the one the
// panel offers once it is complete; nil after the last (or for a lesson of one's own).
func (lr *lessonRun) nextLesson() *scenarios.Lesson {
	ls := scenarios.Lessons()
	for i, l := range ls {
		if l.Name == lr.tr.Lesson().Name && i+1 < len(ls) {
			return &ls[i+1]
		}
	}
	return nil
}

// stepDone says that a step of lr was just completed, or the whole lesson.
func (m *Model) stepDone(lr *lessonRun) {
	lr.showHint = false
	if lr.tr.Done() {
		lr.done = true
		m.picker.MarkLessonDone(lr.tr.Lesson().Name)
		m.setStatus(fmt.Sprintf("lesson %q complete: well done", lr.tr.Lesson().Title), false)
		return
	}
	m.setStatus(fmt.Sprintf("step %d done: step %d unlocked", lr.tr.Step(), lr.tr.Step()+1), false)
}

// lessonControl shows the lesson, while the run is paused, a control the dashboard just
// applied (the weights, the strategy): its goals are checked again at once, as the screen
// shows them, rather than at the next tick (a weight goal read 0.20 with w0.40 on screen).
func (m *Model) lessonControl(c source.ControlEvent) {
	lr := m.fr.lesson
	if lr == nil || lr.done || !m.fr.paused || len(m.fr.runs) == 0 {
		return
	}
	if lr.tr.Control(c, m.fr.runs[0].meta.Strategy) {
		m.stepDone(lr)
	}
	m.redraw()
}

// lessonRestarted tells the lesson the run started again from t=0.
func (m *Model) lessonRestarted() {
	if m.fr.lesson != nil {
		m.fr.lesson.tr.Restarted()
	}
}

// toggleHint shows the current step's hint now, or hides it again.
func (m *Model) toggleHint() tea.Cmd {
	if m.fr.lesson == nil {
		m.setStatus("no lesson running: try cortex-tui learn", false)
		return nil
	}
	m.fr.lesson.showHint = !m.fr.lesson.showHint
	m.redraw()
	return nil
}

// LessonDone reports whether the lesson the dashboard was opened with has been completed (the
// command saves it in the learner's progress).
func (m *Model) LessonDone() bool { return m.fr.lesson != nil && m.fr.lesson.done }

// lessonSavedMsg reports the learner's progress saved after a lesson, or why it was not.
type lessonSavedMsg struct{ err error }

// saveLesson returns the command that records a lesson just completed (once), or nil.
func (m *Model) saveLesson() tea.Cmd {
	lr := m.fr.lesson
	if lr == nil || !lr.done || lr.saved || m.opts.LessonDone == nil {
		return nil
	}
	lr.saved = true
	name, save := lr.tr.Lesson().Name, m.opts.LessonDone
	return func() tea.Msg { return lessonSavedMsg{err: save(name)} }
}

// onLessonSaved shows a failure to save the progress (success needs no word).
func (m *Model) onLessonSaved(msg lessonSavedMsg) {
	if msg.err != nil {
		m.setStatus(msg.err.Error(), true)
	}
}

// startLesson opens scn (a lesson's scenario, from the picker) with the lesson's strategy and
// the scenario's seed, and follows the lesson over it.
func (m *Model) startLesson(scn scenarios.Scenario, l scenarios.Lesson) tea.Cmd {
	m.fr.lesson = nil
	m.open(scn, l.Strategy, 0)
	if len(m.fr.runs) > 0 && m.scn != nil && m.scn.Name == l.Scenario {
		m.fr.lesson = newLessonRun(l, m.fr.runs[0].meta)
	}
	m.layout() // the lesson panel's row takes its height
	m.redraw()
	return m.kick()
}

// guidedStop returns, in guided mode, the test that ends a frame at a snapshot where a caption
// begins (so the run pauses on it at any speed); nil otherwise.
func (m *Model) guidedStop() func(source.Snapshot) bool {
	if !m.opts.Guided && (m.fr.lesson == nil || !m.fr.lesson.tr.Lesson().Guided) {
		return nil
	}
	return func(s source.Snapshot) bool {
		for _, e := range s.Events {
			if e.Kind == source.EventNote {
				return true
			}
		}
		return false
	}
}
