package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

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

// lessonH is the height of the lesson panel: its border, the step's text (two lines in a tall
// window, one otherwise), the goals and the hint.
func lessonH(_, h int) int {
	if h >= 36 {
		return 6
	}
	return 5
}

// addLessonRow puts the lesson panel under the caption of the full dashboard: a row of no
// height (left out by compose) when no lesson is followed.
func (m *Model) addLessonRow() {
	rows := m.layouts[layoutFull]
	h := func(w, wh int) int {
		if m.fr.lesson == nil {
			return 0
		}
		return lessonH(w, wh)
	}
	at := min(2, len(rows)) // after the header and the caption
	m.layouts[layoutFull] = slices.Insert(rows, at, row{h: h, cells: whole(mount(newLessonPanel(m.st)))})
}

// observe follows the first run's snapshot s: the lesson's goals, and in guided mode a pause
// at each caption and at each step unlocked. It returns true when the run should pause.
func (m *Model) observe(s source.Snapshot) bool {
	pause := false
	if m.fr.lesson != nil && !m.fr.lesson.done {
		lr := m.fr.lesson
		if lr.tr.Observe(s, m.fr.runs[0].meta.Strategy) {
			lr.showHint = false
			if lr.tr.Done() {
				lr.done = true
				m.picker.MarkLessonDone(lr.tr.Lesson().Name)
				m.setStatus(fmt.Sprintf("lesson %q complete: well done", lr.tr.Lesson().Title), false)
			} else {
				m.setStatus(fmt.Sprintf("step %d done: step %d unlocked", lr.tr.Step(), lr.tr.Step()+1), false)
			}
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

// lessonPanel shows the lesson's current step, its goals with their values now, and the hint.
type lessonPanel struct{ common.Base }

// newLessonPanel returns an empty lesson panel.
func newLessonPanel(st common.Styles) *lessonPanel { return &lessonPanel{common.Base{St: st}} }

// Update redraws the panel on a full redraw.
func (p *lessonPanel) Update(msg tea.Msg) (*lessonPanel, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok || !f.full() || p.W <= 0 || p.H <= 0 {
		return p, nil
	}
	lr := f.f.lesson
	if lr == nil || len(f.f.runs) == 0 {
		p.Rendered = common.Blank(p.W, p.H)
		return p, nil
	}
	st := lr.tr.Status(f.f.runs[0].meta.Strategy)
	l := lr.tr.Lesson()
	title := common.FitTitle(p.W, fmt.Sprintf("Lesson · %s · step %d/%d", l.Title, min(st.Step+1, st.Steps), st.Steps), fmt.Sprintf("Lesson · step %d/%d", min(st.Step+1, st.Steps), st.Steps))
	iw, ih := common.Inner(p.W, p.H)
	p.Rendered = common.Box(p.St, title, p.body(st, lr, f.f, max(iw, 1), max(ih, 1)), p.W, p.H)
	return p, nil
}

// body is the step's text, its goals and the hint (or the key that shows it).
func (p *lessonPanel) body(st lesson.Status, lr *lessonRun, f *frame, w, h int) string {
	s := p.St
	k := f.keyMap()
	if st.Done {
		return s.Bold.Render("Lesson complete. ") + s.Muted.Render(fmt.Sprintf("%s another scenario · %s quit · cortex-tui learn for the next lesson", common.KeyName(k.Load), common.KeyName(k.Quit)))
	}
	var goals []string
	for _, g := range st.Goals {
		mark, style := "✗", s.Muted
		if g.Met {
			mark, style = "✓", s.Band[0]
		}
		now := " (now " + g.Value
		if g.Met && g.Held < g.For {
			now += fmt.Sprintf(", held %.0fs of %.0fs", g.Held.Seconds(), g.For.Seconds())
		}
		goals = append(goals, style.Render(mark+" "+g.Text)+s.Muted.Render(now+")"))
	}
	tail := []string{strings.Join(goals, s.Muted.Render(" · "))}
	switch {
	case st.Ended:
		tail = append(tail, s.Warn.Render(fmt.Sprintf("The run ended before this step: %s runs it again. Hint: %s", common.KeyName(k.Restart), lessonHint(lr))))
	case st.Hint != "" || lr.showHint:
		tail = append(tail, s.Accent.Render("Hint: "+lessonHint(lr)))
	default: // the key that shows the hint, beside the goals when it fits, to leave the text room
		key := s.Muted.Render(fmt.Sprintf("%s shows a hint", common.KeyName(k.Hint)))
		if joined := tail[0] + s.Muted.Render(" · ") + key; ansi.StringWidth(joined) <= w {
			tail[0] = joined
		} else {
			tail = append(tail, key)
		}
	}
	for i, l := range tail { // a long hint is cut visibly
		if ansi.StringWidth(l) > w {
			tail[i] = ansi.Truncate(l, w, "…")
		}
	}
	textH := max(h-len(tail), 1)
	lines := strings.Split(common.Wrap(st.Text, w), "\n")
	if len(lines) > textH { // too long for the room: say so rather than cut silently
		lines = lines[:textH]
		lines[textH-1] = common.FitLine(lines[textH-1], w-1) + "…"
	}
	return strings.Join(append(lines, tail...), "\n")
}

// lessonHint is the current step's hint, whether due or asked for.
func lessonHint(lr *lessonRun) string {
	l := lr.tr.Lesson()
	if i := lr.tr.Step(); i < len(l.Steps) {
		return l.Steps[i].Hint
	}
	return ""
}

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
