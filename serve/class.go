package serve

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui"
)

// class is a server's class: the class run the teacher's dashboard drives, how it plays it,
// and the sessions that follow it. One simulation serves every student: the teacher's
// dashboard steps it, the students' dashboards read its snapshots. It is safe for concurrent
// use.
type class struct {
	s          *Server
	teacherKey gossh.PublicKey
	lesson     *scenarios.Lesson // --lesson: the teacher's dashboard opens on it

	mu      sync.Mutex
	run     *classRun // the class run: the teacher's first run, once driven
	gen     int       // bumped at each new class run and restart
	play    tui.Play  // how the teacher plays it (Source nil)
	teacher *member
	members map[*session]*member
}

// member is a session of the class: its role and state, and its dashboard's mailbox.
type member struct {
	st    *session
	state tui.MemberState
	box   *mailbox
}

// newClass returns the class of a server started with --class.
func newClass(s *Server, teacherKey gossh.PublicKey, lesson *scenarios.Lesson) *class {
	return &class{s: s, teacherKey: teacherKey, lesson: lesson, members: map[*session]*member{},
		play: tui.Play{Speed: 1, Paused: true, Away: true}}
}

// isTeacher reports whether st connected with the teacher's key.
func (c *class) isTeacher(st *session) bool {
	k := st.sess.PublicKey()
	return k != nil && bytes.Equal(k.Marshal(), c.teacherKey.Marshal())
}

// join adds st to the class and returns its view of it. The teacher's session takes over from
// an earlier one (which is ended: a teacher reconnecting from elsewhere finds the class run
// where it was).
func (c *class) join(st *session) *classView {
	m := &member{st: st, state: tui.MemberWaiting, box: newMailbox()}
	var old *member
	c.mu.Lock()
	if c.isTeacher(st) {
		m.state = tui.MemberTeacher
		old, c.teacher = c.teacher, m
		c.play.Away = false
		st.role = "teacher"
	} else {
		st.role = "student"
		if c.run != nil {
			m.state = tui.MemberFollowing
		}
	}
	c.members[st] = m
	c.mu.Unlock()
	if old != nil {
		old.st.stop(&stopped{tell: "the teacher connected again from another session", log: "the teacher connected again"})
	}
	c.broadcast()
	return &classView{c: c, m: m}
}

// leave takes st out of the class. When the teacher leaves, the class run stands still until
// they come back.
func (c *class) leave(st *session) {
	c.mu.Lock()
	m := c.members[st]
	delete(c.members, st)
	if m != nil && c.teacher == m {
		c.teacher = nil
		c.play.Away, c.play.Paused = true, true
	}
	c.mu.Unlock()
	if m != nil {
		m.box.stop()
	}
	c.broadcast()
}

// factory builds the teacher's runs: each a classRun that the class adopts once the teacher's
// dashboard shows it first.
func (c *class) factory(scn scenarios.Scenario, strategy string, seed int64) (source.Source, error) {
	src, err := c.s.cfg.Factory(scn, strategy, seed)
	if err != nil {
		return nil, err
	}
	return newClassRun(src, scn, c.restarted), nil
}

// restarted makes a restart of the class run a new class run for the students.
func (c *class) restarted(r *classRun) {
	c.mu.Lock()
	if r == c.run {
		c.gen++
	}
	c.mu.Unlock()
	c.broadcast()
}

// drive takes what the teacher's dashboard plays: a first run not yet the class's becomes the
// class run (the previous one is let go), and the rest is told to every session.
func (c *class) drive(m *member, p tui.Play) {
	c.mu.Lock()
	if c.teacher != m {
		c.mu.Unlock()
		return // a teacher's session replaced meanwhile
	}
	var old *classRun
	if r, ok := p.Source.(*classRun); ok && r != c.run {
		old, c.run = c.run, r
		r.adopt()
		c.gen++
		for _, mb := range c.members {
			if mb.state == tui.MemberWaiting {
				mb.state = tui.MemberFollowing
			}
		}
	}
	p.Source, p.Away = nil, false
	changed := old != nil || p != c.play
	c.play = p
	c.mu.Unlock()
	if old != nil {
		old.release()
	}
	if changed {
		c.broadcast()
	}
}

// broadcast tells every session what the class is now (the roster to the teacher).
func (c *class) broadcast() {
	c.mu.Lock()
	msg := tui.ClassMsg{Gen: c.gen, Play: c.play}
	boxes := make([]*mailbox, 0, len(c.members))
	var teacher *mailbox
	for _, m := range c.members {
		if m == c.teacher {
			teacher = m.box
			continue
		}
		boxes = append(boxes, m.box)
	}
	roster := c.rosterLocked()
	c.mu.Unlock()
	for _, b := range boxes {
		b.post(msg)
	}
	if teacher != nil {
		msg.Roster = roster
		teacher.post(msg)
	}
}

// rosterLocked lists the class's sessions by name, with the lessons each learner completed.
func (c *class) rosterLocked() []tui.Member {
	out := make([]tui.Member, 0, len(c.members))
	for _, m := range c.members {
		out = append(out, tui.Member{Name: m.st.name, State: m.state, Done: len(c.s.progress.done(m.st.fp))})
	}
	slices.SortFunc(out, func(a, b tui.Member) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// roster returns the class's roster now.
func (c *class) roster() []tui.Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rosterLocked()
}

// teacherLast returns when the teacher's terminal last sent something (zero when away): a
// student following is not idle while the teacher is not.
func (c *class) teacherLast() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.teacher == nil || c.teacher.st.in == nil {
		return time.Time{}
	}
	return c.teacher.st.in.Last()
}

// close stops the class run (the server stops).
func (c *class) close() {
	c.mu.Lock()
	r := c.run
	c.run = nil
	c.mu.Unlock()
	if r != nil {
		r.release()
		_ = r.Close()
	}
}

// setState records what a member does now and tells the teacher.
func (c *class) setState(m *member, s tui.MemberState) {
	c.mu.Lock()
	changed := m.state != s
	m.state = s
	c.mu.Unlock()
	if changed {
		c.broadcast()
	}
}

// classView is one session's tui.Class.
type classView struct {
	c *class
	m *member
}

var _ tui.Class = (*classView)(nil)

// Teacher reports whether the session is the teacher's. It reads the member's state under the
// class's lock: drive writes it (a student waiting becomes following) from the teacher's session.
func (v *classView) Teacher() bool {
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	return v.m.state == tui.MemberTeacher
}

// Join returns the class run: the run itself for the teacher, a follower for a student.
func (v *classView) Join() (tui.ClassRun, bool) {
	c := v.c
	c.mu.Lock()
	r, gen, play := c.run, c.gen, c.play
	c.mu.Unlock()
	if r == nil {
		return tui.ClassRun{}, false
	}
	snaps, f := r.join()
	run := tui.ClassRun{Source: f, Scenario: r.scn, Snaps: snaps, Play: play, Gen: gen}
	if v.Teacher() {
		run.Source = r
		run.Play.Paused = true // the class stood still while the teacher was away
	} else {
		c.setState(v.m, tui.MemberFollowing)
	}
	return run, true
}

// Fork returns a copy of the class run of the student's own, paused at the moment it was made.
func (v *classView) Fork() (tui.ClassRun, error) {
	c := v.c
	if v.Teacher() {
		return tui.ClassRun{}, errors.New("the teacher drives the class run itself")
	}
	c.mu.Lock()
	r, gen, play := c.run, c.gen, c.play
	c.mu.Unlock()
	if r == nil {
		return tui.ClassRun{}, errors.New("there is no class run yet")
	}
	src, rec, err := r.fork(c.s.cfg.Factory)
	if err != nil {
		return tui.ClassRun{}, err
	}
	c.setState(v.m, tui.MemberForked)
	play.Paused, play.Away = true, false
	return tui.ClassRun{Source: src, Scenario: r.scn, Snaps: rec.snaps, Play: play, Gen: gen}, nil
}

// Drive takes what the teacher's dashboard plays (a student's calls are ignored).
func (v *classView) Drive(p tui.Play) {
	if v.Teacher() {
		v.c.drive(v.m, p)
	}
}

// mailbox hands a dashboard the latest of the messages posted to it (tea.Program.Send) from a
// goroutine of its own, so that the poster never waits for a slow dashboard; messages posted
// meanwhile are replaced by the latest. A session has one for the class's messages (ClassMsg)
// and one for its window's size. It is safe for concurrent use.
type mailbox struct {
	mu   sync.Mutex
	msg  tea.Msg // nil: nothing to hand
	wake chan struct{}
	done chan struct{}
	once sync.Once
}

func newMailbox() *mailbox {
	return &mailbox{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// post leaves msg (not nil) for the dashboard, replacing one not taken yet.
func (b *mailbox) post(msg tea.Msg) {
	b.mu.Lock()
	b.msg = msg
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// run hands the messages posted to send (the dashboard's tea.Program.Send, which returns once
// the program takes it) until stop: a goroutine of the session's, the only one that waits for
// the dashboard.
func (b *mailbox) run(send func(tea.Msg)) {
	for {
		select {
		case <-b.done:
			return
		case <-b.wake:
			b.mu.Lock()
			msg := b.msg
			b.msg = nil
			b.mu.Unlock()
			if msg != nil {
				send(msg)
			}
		}
	}
}

// stop ends run.
func (b *mailbox) stop() { b.once.Do(func() { close(b.done) }) }
