// Package classroom is the dashboard's class mode, a room of its own: a dashboard's part in a
// class run served to many terminals (cortex-tui serve --class), one run that the teacher's
// dashboard drives and every student's dashboard follows. It holds what the server says (the
// run's generation, how the teacher plays it, the roster), decides what a message of the server
// means for a dashboard (join the new run, take the teacher's play, show the roster), what the
// teacher's dashboard tells the class (Drive, only when it changed), which keys a student
// following the class may not press, and a student's fork of the run and its way back. The
// dashboard's root model does what it decides: it owns the runs, the layout and the screen.
package classroom

import (
	"fmt"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/header"
	"github.com/cortex-tui/cortex-tui/tui/roster"
)

// Class connects a dashboard to a class run served to many terminals (cortex-tui serve
// --class): one run that the teacher's dashboard drives and that every student's dashboard
// follows. The teacher's dashboard tells the class what it plays (Drive); a student's shows a
// view of the run (Join), keeps its own inspector, help and layout, and may fork the run into
// a copy of its own (Fork) and rejoin it. The server tells each dashboard what changed with a
// Msg (tea.Program.Send). Implementations are safe for concurrent use; the dashboard calls
// Join and Drive from its Update loop and Fork from a command.
type Class interface {
	// Teacher reports whether this dashboard drives the class run.
	Teacher() bool
	// Join returns the class run as it is now: for the teacher the run itself, which its keys
	// drive; for a student a source that follows it and refuses every control. ok is false
	// while there is no class run (the teacher has not opened one yet).
	Join() (run Run, ok bool)
	// Fork returns a copy of the class run at its current moment, the student's own: the
	// same scenario, seed and controls up to now, simulated again (it takes a while).
	Fork() (Run, error)
	// Drive tells the class what the teacher's dashboard plays now; the dashboard calls it
	// whenever that changed. Students' calls are ignored.
	Drive(p Play)
}

// Run is a class run handed to a dashboard: its source, the scenario it runs, every snapshot
// of it so far (the dashboard's own copies, oldest first), how it is played, and its
// generation (a new one each time the teacher opens a scenario or restarts).
type Run struct {
	Source   source.Source
	Scenario scenarios.Scenario
	Snaps    []source.Snapshot
	Play     Play
	Gen      int
}

// Play is how the teacher's dashboard plays the class run. The zero value is no run, paused.
type Play struct {
	Source source.Source // the teacher's first run (Drive only; nil elsewhere)
	Speed  float64       // virtual seconds per wall second
	Paused bool          // the run stands still: paused, on the picker, or the teacher away
	Away   bool          // the teacher is not connected (Msg)
	Lesson string        // the lesson the class follows, "" for none
	Step   int           // its current step
}

// Msg tells a dashboard of a class what changed: the class run (Gen), how it is played, and
// for the teacher the roster.
type Msg struct {
	Gen    int
	Play   Play
	Roster []roster.Member
}

// ForkedMsg carries a student's copy of the class run (Fork's command), or why it could not
// be made.
type ForkedMsg struct {
	Run Run
	Err error
}

// State is a dashboard's part in a class: its Class, the class run it shows, and what the
// server last said. A nil *State is a dashboard outside any class. It is used from the
// dashboard's Update loop only.
type State struct {
	c        Class
	teacher  bool
	gen      int           // the class run followed (students)
	forked   bool          // a student on a copy of their own
	forking  bool          // a fork is being made
	forkedAt time.Duration // the class run's time when it was forked
	play     Play          // how the class run is played, as last told
	roster   []roster.Member
	driven   Play // what the teacher's dashboard last told the class
}

// New returns the part in class c of a dashboard.
func New(c Class) *State { return &State{c: c, teacher: c.Teacher()} }

// Teacher reports whether the dashboard drives the class run (false outside a class).
func (s *State) Teacher() bool { return s != nil && s.teacher }

// Following reports whether the dashboard shows the class run of someone else (a student not
// on a copy of their own).
func (s *State) Following() bool { return s != nil && !s.teacher && !s.forked }

// Join returns the class run as it is now (Class.Join).
func (s *State) Join() (Run, bool) { return s.c.Join() }

// Followed notes that the dashboard now shows run: the class's (not a copy), as it is played.
func (s *State) Followed(run Run) { s.gen, s.play, s.forked = run.Gen, run.Play, false }

// Roster is the class's roster as last told.
func (s *State) Roster() []roster.Member {
	if s == nil {
		return nil
	}
	return s.roster
}

// SetRoster takes the teacher's roster and reports whether it changed.
func (s *State) SetRoster(members []roster.Member) (changed bool) {
	changed = !slices.Equal(members, s.roster)
	s.roster = members
	return changed
}

// Header is the header's view of the dashboard's part in the class (nil outside a class).
func (s *State) Header() *header.Class {
	if s == nil {
		return nil
	}
	h := &header.Class{Teacher: s.teacher, Forked: s.forked, ForkedAt: s.forkedAt,
		Speed: s.play.Speed, Paused: s.play.Paused, Away: s.play.Away}
	for _, mb := range s.roster {
		if mb.State == roster.Following {
			h.Following++
		}
	}
	return h
}

// Reaction is what a dashboard does with a Msg (React).
type Reaction int

// The reactions to a Msg.
const (
	Nothing    Reaction = iota // nothing changed that the dashboard shows
	ShowRoster                 // the teacher: take msg.Roster (SetRoster) and show it
	RedrawPlay                 // a student on a copy: the class's play changed, redraw the header
	JoinRun                    // a student following: the class has a new run, join it
	TakePlay                   // a student following: take msg.Play (TakePlay)
)

// React says what msg means for the dashboard; hasRun is whether it shows a run. A student's
// roster and a forked student's play are taken here.
func (s *State) React(msg Msg, hasRun bool) Reaction {
	if s.teacher {
		return ShowRoster
	}
	s.roster = msg.Roster
	if s.forked {
		if msg.Play != s.play {
			s.play = msg.Play
			return RedrawPlay
		}
		return Nothing
	}
	if msg.Gen != s.gen || !hasRun {
		return JoinRun
	}
	return TakePlay
}

// TakePlay takes how the teacher plays the class run now: changed is false for the same play,
// step whether the class's lesson or its step changed.
func (s *State) TakePlay(p Play) (changed, step bool) {
	if p == s.play {
		return false, false
	}
	step = p.Lesson != s.play.Lesson || p.Step != s.play.Step
	s.play = p
	return true, step
}

// Drive tells the class what the teacher's dashboard plays, when that changed; a student's
// dashboard (or one outside a class) tells nothing.
func (s *State) Drive(p Play) {
	if s == nil || !s.teacher || p == s.driven {
		return
	}
	s.driven = p
	s.c.Drive(p)
}

// DrivesRun reports whether msg is a key of k that drives the run (time, faults, tuning,
// another scenario), which a student following the class may not press.
func DrivesRun(k *keymap.KeyMap, msg tea.KeyMsg) bool {
	if key.Matches(msg, k.Pause, k.Step, k.Faster, k.Slower, k.Restart, k.Load, k.Strategy, k.Compare,
		k.ClearFaults, k.LowerWeight, k.RaiseWeight, k.Adaptive, k.ShareDown, k.ShareUp, k.PriorityDown, k.PriorityUp) {
		return true
	}
	return key.Matches(msg, k.Fault[:]...)
}

// ForkStep is what the fork key does (Fork).
type ForkStep int

// What the fork key does.
const (
	NoClass   ForkStep = iota // outside a class: nothing to fork
	IsTeacher                 // the teacher drives the run: the students fork it
	Pending                   // a fork is being made: nothing more
	Rejoin                    // a student on a copy: back with the class
	NoRun                     // no class run to fork yet
	Forking                   // a student following: the command (Fork's cmd) makes the copy
)

// Fork is the fork key: what it does, and for a student following the class with a run
// (hasRun) the command that makes the copy (the run is simulated again up to now), answered
// with a ForkedMsg.
func (s *State) Fork(hasRun bool) (ForkStep, tea.Cmd) {
	switch {
	case s == nil:
		return NoClass, nil
	case s.teacher:
		return IsTeacher, nil
	case s.forking:
		return Pending, nil
	case s.forked:
		return Rejoin, nil
	case !hasRun:
		return NoRun, nil
	}
	s.forking = true
	class := s.c
	return Forking, func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = ForkedMsg{Err: fmt.Errorf("forking panicked: %v", r)}
			}
		}()
		run, err := class.Fork()
		return ForkedMsg{Run: run, Err: err}
	}
}

// ForkDone notes that the fork asked for has been answered.
func (s *State) ForkDone() { s.forking = false }

// OnCopy notes that the dashboard shows the student's copy, forked at the class run's time at.
func (s *State) OnCopy(at time.Duration) { s.forked, s.forkedAt = true, at }

// ForkedAt is the class run's time when the student's copy was forked.
func (s *State) ForkedAt() time.Duration { return s.forkedAt }
