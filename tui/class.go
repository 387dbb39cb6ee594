package tui

import (
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/classroom"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/roster"
)

// The class mode's types are package classroom's (the room of class mode); these names are
// the dashboard's API for cortex-tui serve --class.
type (
	// Class connects a dashboard to a class run served to many terminals (classroom.Class).
	Class = classroom.Class
	// ClassRun is a class run handed to a dashboard (classroom.Run).
	ClassRun = classroom.Run
	// Play is how the teacher's dashboard plays the class run (classroom.Play).
	Play = classroom.Play
	// ClassMsg tells a dashboard of a class what changed (classroom.Msg).
	ClassMsg = classroom.Msg
)

// Member is one session of a class, as the teacher's roster shows it.
type Member = roster.Member

// MemberState is what a session of a class does.
type MemberState = roster.State

// The states of a class's sessions.
const (
	MemberFollowing = roster.Following // a student following the class run
	MemberForked    = roster.Forked    // a student on a copy of their own
	MemberWaiting   = roster.Waiting   // a student connected before the teacher opened a run
	MemberTeacher   = roster.Teacher   // the teacher
)

// following reports whether the dashboard shows the class run of someone else (a student not
// on a copy of their own).
func (m *Model) following() bool { return m.class.Following() }

// joinClass opens the class run, if there is one, as the dashboard's run; a student's
// dashboard without one waits for the teacher.
func (m *Model) joinClass() {
	c := m.class
	if run, ok := c.Join(); ok {
		m.follow(run)
		return
	}
	if !c.Teacher() {
		m.ctl.closeAll()
		m.ctl.set()
		m.screen = screenDashboard
		m.setStatus("waiting for the teacher to open a scenario…", false)
		m.redraw()
	}
}

// follow shows run as the dashboard's only run, its history rebuilt from its snapshots, at the
// class's speed; the teacher's is paused as the class is, a student's view goes on by itself.
func (m *Model) follow(run ClassRun) {
	c := m.class
	m.ctl.closeAll()
	scn := run.Scenario
	m.scn = &scn
	r := newRun(run.Source)
	for _, s := range run.Snaps {
		r.add(s)
	}
	m.fr.lesson = nil
	m.setRuns(r)
	if cv := r.hist.Last.Cortex; cv != nil {
		m.fr.weights, m.fr.adaptive = cv.Weights.Array(), cv.Adaptive
	}
	c.Followed(run)
	if i := slices.Index(speeds, run.Play.Speed); i >= 0 {
		m.setSpeed(i)
	}
	m.fr.paused = c.Teacher() && run.Play.Paused
	m.clearStatus()
	if !c.Teacher() {
		m.setStatus(fmt.Sprintf("following the class run: %s makes a copy of your own to try things", common.KeyName(m.keys.Fork)), false)
	} else if m.fr.paused && len(run.Snaps) > 0 {
		m.setStatus(fmt.Sprintf("the class run, paused at %s while you were away: %s resumes", common.FmtClock(r.hist.Last.T), common.KeyName(m.keys.Pause)), false)
	}
	m.followLesson(run)
	m.screen = screenDashboard
	if m.done() {
		m.screen = screenSummary
	}
	m.layout()
	m.redraw()
}

// followLesson follows the class's lesson over the run just joined: its tracker sees the
// snapshots so far, then moves on to the class's step.
func (m *Model) followLesson(run ClassRun) {
	if run.Play.Lesson == "" {
		return
	}
	l, err := scenarios.LookupLesson(run.Play.Lesson)
	if err != nil || l.Scenario != run.Scenario.Name {
		return
	}
	lr := newLessonRun(l, m.fr.runs[0].meta)
	for _, s := range run.Snaps {
		lr.tr.Observe(s, m.fr.runs[0].meta.Strategy)
	}
	m.fr.lesson = lr
	m.catchUpLesson(run.Play.Step)
}

// catchUpLesson moves the lesson followed on to step (never back), and notes it done.
func (m *Model) catchUpLesson(step int) {
	lr := m.fr.lesson
	if lr == nil {
		return
	}
	for lr.tr.Step() < step && lr.tr.Skip() {
		lr.showHint = false
	}
	if lr.tr.Done() && !lr.done {
		lr.done = true
		m.picker.MarkLessonDone(lr.tr.Lesson().Name)
		m.setStatus(fmt.Sprintf("lesson %q complete: well done", lr.tr.Lesson().Title), false)
	}
}

// onClassMsg takes what the server says changed: a student following the class joins its new
// run or takes its new play, the teacher its roster. Only what changed is drawn again: the
// server tells every dashboard of the class each time a student comes, goes, forks or the
// teacher presses a key, and a class of 60 redrawing every chart each time made the teacher's
// frame wait for the CPU behind them.
func (m *Model) onClassMsg(msg ClassMsg) tea.Cmd {
	if m.class == nil {
		return nil
	}
	switch m.class.React(msg, len(m.fr.runs) > 0) {
	case classroom.ShowRoster:
		m.takeRoster(msg.Roster)
	case classroom.RedrawPlay:
		m.redrawFor(changedPlay)
	case classroom.JoinRun:
		m.joinClass()
		return m.kick()
	case classroom.TakePlay:
		return m.takePlay(msg.Play)
	}
	return nil
}

// takeRoster shows the teacher the class's roster: on the picker in the footer, on the
// dashboard in the roster and the header (the whole layout when the roster's row grows or
// shrinks); nothing is drawn when it did not change.
func (m *Model) takeRoster(members []Member) {
	before := m.fr.rosterH(m.width, m.height)
	same := !m.class.SetRoster(members)
	switch {
	case m.screen == screenPicker:
		n := 0
		for _, mb := range members {
			if mb.State != MemberTeacher {
				n++
			}
		}
		m.setStatus(fmt.Sprintf("class: %d connected, waiting for you to open a scenario or a lesson", n), false)
		m.redraw()
	case same:
	case m.fr.rosterH(m.width, m.height) != before:
		m.layout()
		m.redraw()
	default:
		m.redrawFor(changedRoster)
	}
}

// takePlay takes how the teacher plays the class run now: its speed and pauses redraw the
// header only, a step of the class's lesson the lesson's panel; the same play (the roster
// changed) draws nothing.
func (m *Model) takePlay(p Play) tea.Cmd {
	changed, step := m.class.TakePlay(p)
	if !changed {
		return nil
	}
	if i := slices.Index(speeds, p.Speed); i >= 0 {
		m.speedIdx, m.fr.speed = i, speeds[i]
	}
	if step && m.fr.lesson != nil && m.fr.lesson.tr.Lesson().Name == p.Lesson {
		m.catchUpLesson(p.Step)
		m.redraw()
		return m.saveLesson()
	}
	m.redrawFor(changedPlay)
	return nil
}

// drive tells the class what the teacher's dashboard plays, when that changed (after every
// message the dashboard took).
func (m *Model) drive() {
	if !m.class.Teacher() {
		return
	}
	p := Play{Speed: m.fr.speed, Paused: m.fr.paused || m.screen == screenPicker || m.done()}
	if len(m.fr.runs) > 0 {
		p.Source = m.fr.runs[0].src
	}
	if lr := m.fr.lesson; lr != nil {
		p.Lesson, p.Step = lr.tr.Lesson().Name, lr.tr.Step()
	}
	m.class.Drive(p)
}

// syncFollowed takes the followed run's configuration again when the teacher changed it (a
// strategy, a class's share or priority): its source says so in its Meta.
func (m *Model) syncFollowed() {
	if !m.following() || len(m.fr.runs) == 0 {
		return
	}
	r := m.fr.runs[0]
	meta := r.src.Meta()
	if meta.Strategy != r.meta.Strategy {
		r.syncMeta()
		r.rec.SwitchStrategy(r.meta.Strategy)
		m.redraw()
	}
	if !slices.Equal(meta.Classes, m.fr.classes) {
		r.syncMeta()
		m.fr.classes = append(m.fr.classes[:0], r.meta.Classes...)
		m.fr.selClass = min(m.fr.selClass, max(len(m.fr.classes)-1, 0))
		m.redrawFor(changedClasses)
	}
}

// drivesRun reports whether msg is a key that drives the run (time, faults, tuning, another
// scenario), which a student following the class may not press.
func (m *Model) drivesRun(msg tea.KeyMsg) bool { return classroom.DrivesRun(&m.keys, msg) }

// refuseDriving says why a student's key does nothing to the class run.
func (m *Model) refuseDriving() tea.Cmd {
	m.setStatus(fmt.Sprintf("the teacher drives the class run: %s makes a copy of your own to try it", common.KeyName(m.keys.Fork)), false)
	return nil
}

// forkOrRejoin is the fork key: a student following the class gets a copy of the class run of
// their own (made in a command: the run is simulated again up to now); on a copy, they rejoin.
func (m *Model) forkOrRejoin() tea.Cmd {
	step, fork := m.class.Fork(len(m.fr.runs) > 0)
	switch step {
	case classroom.NoClass:
		m.setStatus(fmt.Sprintf("%s forks a class run: in a class served over SSH (cortex-tui serve --class)", common.KeyName(m.keys.Fork)), false)
	case classroom.IsTeacher:
		m.setStatus("you drive the class run: the students fork it", false)
	case classroom.Rejoin:
		m.joinClass()
		if len(m.fr.runs) > 0 {
			m.setStatus(fmt.Sprintf("back with the class at %s", common.FmtClock(m.fr.runs[0].hist.Last.T)), false)
		}
		return m.kick()
	case classroom.NoRun:
		m.setStatus("no class run to fork yet: the teacher has not opened one", false)
	case classroom.Forking:
		m.setStatus(fmt.Sprintf("forking the class run at %s…", common.FmtClock(m.fr.runs[0].hist.Last.T)), false)
		return fork
	}
	return nil
}

// onForked shows the student's copy of the class run, paused at the moment it was forked.
func (m *Model) onForked(msg classroom.ForkedMsg) tea.Cmd {
	c := m.class
	if c == nil {
		return nil
	}
	c.ForkDone()
	if msg.Err != nil {
		m.setStatus("cannot fork the class run: "+msg.Err.Error(), true)
		return nil
	}
	m.follow(msg.Run)
	at := c.ForkedAt()
	if len(m.fr.runs) > 0 {
		at = m.fr.runs[0].hist.Last.T
	}
	c.OnCopy(at)
	m.fr.paused = msg.Run.Play.Paused
	// The keys first and short: at 80 columns the footer held "...every key is yours (space res…".
	m.setStatus(fmt.Sprintf("your own copy of the class run, forked at %s: %s resumes, %s rejoins",
		common.FmtClock(at), common.KeyName(m.keys.Pause), common.KeyName(m.keys.Fork)), false)
	m.redraw()
	return m.kick()
}

// nextStep is the teacher's key that moves the class's lesson to its next step.
func (m *Model) nextStep() tea.Cmd {
	switch c := m.class; {
	case c == nil:
		m.setStatus(fmt.Sprintf("%s moves a class's lesson on (the teacher's key); here a step's goals do", common.KeyName(m.keys.NextStep)), false)
	case !c.Teacher():
		m.setStatus("the teacher moves the lesson on", false)
	case m.fr.lesson == nil || m.fr.lesson.done:
		m.setStatus("no lesson to move on: pick one (l) or start the server with --lesson", false)
	default:
		lr := m.fr.lesson
		lr.tr.Skip()
		lr.showHint = false
		if lr.tr.Done() {
			lr.done = true
			m.picker.MarkLessonDone(lr.tr.Lesson().Name)
			m.setStatus(fmt.Sprintf("lesson %q complete for the class", lr.tr.Lesson().Title), false)
		} else {
			m.setStatus(fmt.Sprintf("the class moves on to step %d of %d", lr.tr.Step()+1, len(lr.tr.Lesson().Steps)), false)
		}
		m.redraw()
		return m.saveLesson()
	}
	return nil
}
