package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/tui"
)

// How a session's terminal is asked, and how long a session stopped by the server has to leave
// its terminal as it found it before its channel is closed under it.
const (
	queryTimeout = time.Second
	stopGrace    = 3 * time.Second
)

// session is one SSH session: who, from where, its dashboard and how it ends. Its fields are
// set before the dashboard runs and read after; ended and the stop timer are guarded by mu.
type session struct {
	sess         ssh.Session
	name, fp     string // the user name (inert, bounded) and the key's SHA256 fingerprint
	remote, term string
	w, h         int
	start        time.Time
	role         string // in a class: "teacher" or "student"

	ctx    context.Context // cancelled with the reason the server ends the session
	cancel context.CancelCauseFunc
	in     *input
	model  *tui.Model
	prog   *tea.Program

	mu     sync.Mutex
	ended  string // why it ended, once known
	timers []*time.Timer
}

// stopped is why the server ended a session (context.Cause of its dashboard's context), as
// said to the user and in the log.
type stopped struct{ tell, log string }

func (e *stopped) Error() string { return e.log }

// newSession reads who sess is, made inert for the screen and the log. The user name is the
// connection's own: the name its authentication succeeded with.
func (s *Server) newSession(sess ssh.Session) *session {
	pty, _, _ := sess.Pty()
	user := sess.User()
	if c, ok := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn); ok {
		user = c.User()
	}
	st := &session{
		sess: sess, name: inert(user, maxNameW), fp: "-", remote: sess.RemoteAddr().String(),
		term: inert(pty.Term, maxTermW), w: pty.Window.Width, h: pty.Window.Height, start: s.cfg.Now(),
	}
	if k := sess.PublicKey(); k != nil {
		st.fp = gossh.FingerprintSHA256(k)
	}
	st.ctx, st.cancel = context.WithCancelCause(sess.Context())
	return st
}

// lasted is how long the session has lasted at now.
func (st *session) lasted(now time.Time) time.Duration { return now.Sub(st.start) }

// setEnded records why the session ended, the first reason only.
func (st *session) setEnded(why string) {
	st.mu.Lock()
	if st.ended == "" {
		st.ended = why
	}
	st.mu.Unlock()
}

// stop ends the dashboard for cause, as a quit key does, and closes the channel if it has not
// ended within stopGrace (a client that reads nothing holds the dashboard's writes). The
// program is asked to quit rather than killed: Bubble Tea v1.3.10, killed, closes its input
// reader's epoll under the read loop, whose goroutine then waits in the kernel for ever.
func (st *session) stop(cause *stopped) {
	st.cancel(cause)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.prog != nil {
		go st.prog.Quit() // returns once the program takes it, or has ended
	}
	st.timers = append(st.timers, time.AfterFunc(stopGrace, func() { _ = st.sess.Close() }))
}

// watchIdle stops the session once last (when its terminal last sent something) is idle ago.
func (st *session) watchIdle(idle time.Duration, now, last func() time.Time) {
	var t *time.Timer
	check := func() {
		if since := now().Sub(last()); since < idle {
			t.Reset(idle - since)
			return
		}
		st.stop(&stopped{
			tell: fmt.Sprintf("closed after %s without a key (the server's --idle)", idle),
			log:  fmt.Sprintf("idle %s", idle),
		})
	}
	st.mu.Lock()
	t = time.AfterFunc(idle, check)
	st.timers = append(st.timers, t)
	st.mu.Unlock()
}

// finish releases what the session holds once its dashboard has returned: the timers, the
// runs' sources, the keyboard's pipe.
func (st *session) finish() {
	st.mu.Lock()
	for _, t := range st.timers {
		t.Stop()
	}
	st.mu.Unlock()
	if st.model != nil {
		st.model.Close()
	}
	if st.in != nil {
		st.in.Close()
	}
	st.cancel(nil)
}

// why says why the dashboard returned: the server's reason, the client gone, or a quit key.
func (st *session) why() (tell, log string) {
	var sp *stopped
	switch {
	case errors.As(context.Cause(st.ctx), &sp):
		return sp.tell, sp.log
	case st.sess.Context().Err() != nil:
		return "", "disconnected"
	}
	return "", "quit"
}

// admit is the outermost middleware: it counts the session against --max-sessions, records who
// connected, runs the rest, then releases everything, tells the user why the server ended the
// session, and logs its one line.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := s.newSession(sess)
		if err := s.add(st); err != nil {
			fmt.Fprintf(sess.Stderr(), "cortex-tui: %s\r\n", err)
			s.logSession(st, "refused: "+err.Error())
			_ = sess.Exit(1)
			return
		}
		defer s.remove(st)
		if err := s.progress.seen(st.fp, st.name, st.start); err != nil {
			s.logf("%v", err)
		}
		next(sess)
		if s.class != nil {
			s.class.leave(st)
		}
		st.finish()
		tell, why := st.why()
		st.setEnded(why)
		if tell != "" {
			fmt.Fprintf(sess.Stderr(), "cortex-tui: %s\r\n", tell)
		}
		s.logSession(st, st.ended)
	}
}

// refuse ends, with a message, a session the server does not serve: one that asks for a
// command (exec: there is no shell to run it) or that has no terminal.
func (s *Server) refuse(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := s.sessionOf(sess)
		if cmd := sess.RawCommand(); cmd != "" {
			st.setEnded(fmt.Sprintf("refused: a command (%s)", inert(cmd, 40)))
			fmt.Fprintf(sess.Stderr(), "cortex-tui: this server runs the dashboard and no command (%s): connect with no command, e.g. ssh -p PORT HOST\r\n", inert(cmd, 40))
			_ = sess.Exit(1)
			return
		}
		if _, _, ok := sess.Pty(); !ok {
			st.setEnded("refused: no terminal")
			fmt.Fprint(sess.Stderr(), "cortex-tui: the dashboard needs a terminal: connect from one, or with ssh -t\r\n")
			_ = sess.Exit(1)
			return
		}
		next(sess)
	}
}

// dashboard is the innermost middleware, what wish's Bubble Tea middleware does with one
// change: it runs the session's dashboard (program) and hands it its window's changes through
// a mailbox, the latest size winning. wish's middleware sent each change with Program.Send
// from the goroutine that drains the SSH library's channel of changes, which holds one: while
// the dashboard was stuck writing to a terminal that read nothing, a resize left the library's
// request loop waiting on that channel, the connection's reads behind it, so the window
// adjustment that would have let the writes go on was never read (TestClassSlowStudent: a
// student who resized while their terminal read nothing stayed stuck once it read again).
func (s *Server) dashboard(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		_, changes, ok := sess.Pty()
		var p *tea.Program
		if ok {
			p = s.program(sess)
		}
		if p == nil {
			next(sess)
			return
		}
		sizes := newMailbox()
		go sizes.run(p.Send)
		ctx, cancel := context.WithCancel(sess.Context())
		go func() {
			for {
				select {
				case <-ctx.Done():
					p.Quit() // the client went: returns once the program takes it, or has ended
					return
				case w, ok := <-changes:
					if !ok {
						changes = nil // the channel is closing: no more changes
						continue
					}
					sizes.post(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
				}
			}
		}()
		if _, err := p.Run(); err != nil { // a panic recovered: the session's log line says so
			s.sessionOf(sess).setEnded("error: " + inert(err.Error(), 200))
		}
		p.Kill() // the terminal restored, whatever ended it
		cancel()
		sizes.stop()
		next(sess)
	}
}

// program builds the session's dashboard: on its own
// keyboard (input), with its terminal's colours and size, and its own runs. It returns nil,
// after telling the user, when the dashboard cannot start.
func (s *Server) program(sess ssh.Session) *tea.Program {
	st := s.sessionOf(sess)
	in, err := newInput(sess, s.cfg.Now)
	if err != nil {
		s.failed(st, err)
		return nil
	}
	st.in = in
	dark, known := in.ask(sess, queryTimeout)
	r := sessionRenderer(sess, dark || !known)
	opts := tui.Options{
		Keys: keymap.Default(), Factory: s.cfg.Factory, Renderer: r, Scenarios: s.catalog, NoExport: true,
		LessonsDone: s.progress.done(st.fp),
		LessonDone: func(name string) error {
			err := s.progress.markDone(st.fp, name, s.cfg.Now())
			if s.class != nil {
				s.class.broadcast() // the teacher's roster counts it
			}
			return err
		},
	}
	last := in.Last
	var view *classView
	if s.class != nil {
		view = s.class.join(st)
		opts.Class = view
		if view.Teacher() {
			opts.Factory = s.class.factory
			if l := s.class.lesson; l != nil {
				scn, err := lesson.Scenario(*l)
				if err != nil {
					s.failed(st, err)
					return nil
				}
				opts.Scenario, opts.Lesson, opts.Strategy, opts.Guided = &scn, l, l.Strategy, l.Guided
			}
		} else {
			last = func() time.Time { return latest(in.Last(), s.class.teacherLast()) }
		}
	}
	// Never cancelled: stop quits the program (see stop).
	p, m, err := tui.NewProgram(context.Background(), opts, tea.WithInput(in.file()), tea.WithOutput(sess), tea.WithEnvironment(sessionEnviron(sess)))
	if err != nil {
		s.failed(st, err)
		return nil
	}
	m.Update(tea.WindowSizeMsg{Width: st.w, Height: st.h}) // the first frame at the terminal's size
	st.mu.Lock()
	st.model, st.prog = m, p
	st.mu.Unlock()
	if st.ctx.Err() != nil { // stopped while the terminal was asked
		m.Close()
		return nil
	}
	if view != nil {
		go view.m.box.run(p.Send)
		s.class.broadcast() // the new dashboard's first message: the roster, the play
	}
	st.watchIdle(s.cfg.Idle, s.cfg.Now, last)
	return p
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// failed ends a session whose dashboard could not start, saying why.
func (s *Server) failed(st *session, err error) {
	st.setEnded("error: " + err.Error())
	fmt.Fprintf(st.sess.Stderr(), "cortex-tui: the dashboard cannot start: %s\r\n", inert(err.Error(), 200))
	_ = st.sess.Exit(1)
}
