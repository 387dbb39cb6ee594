package serve

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gossh "golang.org/x/crypto/ssh"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// startClass starts a server in class mode with teacher's key (and change applied).
func startClass(t *testing.T, teacher *user, change func(*Config)) *testServer {
	t.Helper()
	keyFile := t.TempDir() + "/teacher.pub"
	require.NoError(t, os.WriteFile(keyFile, gossh.MarshalAuthorizedKey(teacher.signer.PublicKey()), 0o600))
	return startServer(t, func(c *Config) {
		c.Class, c.TeacherKey = true, keyFile
		if change != nil {
			change(c)
		}
	})
}

// connectAll connects n students called student-00.. at w x h, in parallel.
func connectAll(t *testing.T, ts *testServer, n, w, h int) ([]*user, []*terminal) {
	users := make([]*user, n)
	tms := make([]*terminal, n)
	var wg sync.WaitGroup
	for i := range n {
		users[i] = newUser(t, "student-"+twoDigits(i))
		wg.Go(func() { tms[i] = users[i].connect(t, ts, w, h, termOptions{}) })
	}
	wg.Wait()
	return users, tms
}

func twoDigits(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }

// eachText waits, in parallel, until every terminal shows every text.
func eachText(t *testing.T, tms []*terminal, timeout time.Duration, texts ...string) {
	t.Helper()
	var wg sync.WaitGroup
	for _, tm := range tms {
		wg.Go(func() { tm.waitText(timeout, texts...) })
	}
	wg.Wait()
}

// faultAt is the event log's line of an injected fault: its time, and the fault.
var faultAt = regexp.MustCompile(`(\d[\d.ms]*s)\s+fault\s+injected fault (\w+)`)

// Asserts, with a teacher and 20 students on real SSH sessions, what a class is: students who
// connect before the teacher wait for a run; the teacher's roster lists them; the run the
// teacher opens reaches every student, and so do its speed, its pauses and a fault the
// teacher injects, at the same virtual time on every screen; a student's keys do not drive the class run (they
// are told how to fork it); a student's fork is a copy of their own whose keys (a fault)
// reach it only, never the class nor the other students; the roster counts them forked, then
// following again once they rejoin, back on the class run with its faults and not theirs.
func TestClass(t *testing.T) {
	teacher := newUser(t, "teacher")
	ts := startClass(t, teacher, func(c *Config) { c.MaxSessions = 30 })
	_, students := connectAll(t, ts, 20, 100, 30)
	eachText(t, students, 60*time.Second, "waiting for the teacher")

	tt := teacher.connect(t, ts, 140, 40, termOptions{})
	tt.waitText(60*time.Second, "Scenarios", "class: 20 connected, waiting for you")
	tt.press("enter")
	tt.waitText(60*time.Second, "running", "black-friday")
	eachText(t, students, 60*time.Second, "black-friday", "following the class run")
	tt.waitText(60*time.Second, "Class · 20 connected: 20 following, 0 forked")
	tt.press("+")
	eachText(t, students, 60*time.Second, " x2 ")

	tt.press("space")
	eachText(t, students, 60*time.Second, "paused by teacher")
	tt.press("1", ".") // paused: the outage starts with the next tick, stepped with .
	tt.waitFor("the outage in the teacher's log", 60*time.Second, func(s string) bool { return faultAt.MatchString(s) })
	when := faultAt.FindStringSubmatch(tt.screen.String())[1]
	for i, s := range students {
		s.waitFor("the outage in the log", 60*time.Second, func(scr string) bool { return faultAt.MatchString(scr) })
		m := faultAt.FindStringSubmatch(s.screen.String())
		assert.Equal(t, when, m[1], "student %d saw the outage begin at the teacher's virtual time", i)
		assert.Equal(t, "outage", m[2])
	}

	tt.press("space")
	eachText(t, students, 60*time.Second, "▶ running")

	driver := students[1]
	driver.press("4", "+", "r", "s")
	driver.waitText(20*time.Second, "the teacher drives the class run")
	forker := students[0]
	forker.press("F")
	forker.waitText(60*time.Second, "your own copy of the class run, forked at")
	tt.waitText(60*time.Second, "Class · 20 connected: 19 following, 1 forked")
	forker.press("space", "4")
	forker.waitText(60*time.Second, "injected fault errors")
	time.Sleep(time.Second) // let the class run on: a leak of the fork's fault would show by now
	for i, tm := range append([]*terminal{tt}, students[1:]...) {
		scr := tm.screen.String()
		assert.NotContains(t, scr, "fault errors", "screen %d shows only the class run's faults", i)
		assert.NotContains(t, scr, "restarted", "screen %d", i)
		assert.Contains(t, scr, "fault outage", "screen %d", i)
	}
	header := strings.SplitN(tt.screen.String(), "\n", 2)[0]
	assert.Contains(t, header, " x2 ", "a student's + did not reach the class")
	assert.Contains(t, header, "cortex", "nor their s")

	forker.press("F")
	forker.waitText(60*time.Second, "following", "back with the class")
	forker.waitFor("the class run's faults, not the copy's", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "fault outage") && !strings.Contains(s, "fault errors")
	})
	tt.waitText(60*time.Second, "Class · 20 connected: 20 following, 0 forked")

	for _, s := range students[:5] {
		s.press("q")
	}
	tt.waitText(60*time.Second, "Class · 15 connected: 15 following")
	for _, s := range students {
		s.close()
	}
	tt.waitText(60*time.Second, "no student connected yet")
	tt.close()
	waitSessions(t, ts, 0, 30*time.Second)
}

// Asserts that --lesson walks the class through the lesson, the teacher moving it on: the
// teacher's dashboard opens on it, every student's lesson panel shows the teacher's step and
// follows it step by step (N), a student's help names the class's keys, and once the teacher
// moves past the last step the lesson counts as completed for every student connected (the
// progress file, by key, and the roster's count), not for one who left before.
func TestClassLesson(t *testing.T) {
	teacher := newUser(t, "teacher")
	ts := startClass(t, teacher, func(c *Config) { c.Lesson = "retry-storm" })
	tt := teacher.connect(t, ts, 140, 44, termOptions{})
	tt.waitText(60*time.Second, "What a retry storm is", "step 1/3")
	users, students := connectAll(t, ts, 3, 100, 36)
	eachText(t, students, 60*time.Second, "What a retry storm is", "step 1/3", "following")
	students[0].resize(140, 44)
	students[0].press("?")
	students[0].waitText(20*time.Second, "class: a copy of the class run of your own", "class: the lesson's next step")
	students[0].press("esc")
	students[0].resize(100, 36)
	gone := newUser(t, "gone")
	g := gone.connect(t, ts, 100, 36, termOptions{})
	g.waitText(60*time.Second, "step 1/3")
	g.press("q")
	g.wait(20 * time.Second)
	g.close()

	tt.press("N")
	eachText(t, students, 60*time.Second, "step 2/3")
	tt.press("N")
	eachText(t, students, 60*time.Second, "step 3/3")
	tt.press("N")
	tt.waitText(60*time.Second, "complete for the class")
	eachText(t, students, 60*time.Second, "complete: well done")
	tt.waitText(60*time.Second, fmt.Sprintf("1/%d", len(scenarios.Lessons())))

	require.Eventually(t, func() bool {
		learners, err := ReadProgress(ts.cfg.DataDir)
		require.NoError(t, err)
		done := map[string]bool{}
		for _, l := range learners {
			_, ok := l.Done["retry-storm"]
			done[l.Name] = ok
		}
		for _, u := range users {
			if !done[u.name] {
				return false
			}
		}
		assert.False(t, done["gone"], "a student who left before has not completed it")
		return true
	}, 30*time.Second, 50*time.Millisecond, "every student connected has the lesson in the progress")
	for _, s := range students {
		s.close()
	}
	tt.close()
}

// headerClock is the run's virtual time in the header ("t 1:05", with or without its total).
var headerClock = regexp.MustCompile(`│ t (\S+)`)

// clockOf returns the virtual time the header of screen shows.
func clockOf(t *testing.T, screen string) string {
	t.Helper()
	m := headerClock.FindStringSubmatch(screen)
	require.NotNil(t, m, "no clock in the header:\n%s", screen)
	return m[1]
}

// classClock returns the virtual time of the class run's latest snapshot, as a header shows it.
func (ts *testServer) classClock(t *testing.T) string {
	t.Helper()
	ts.class.mu.Lock()
	r := ts.class.run
	ts.class.mu.Unlock()
	require.NotNil(t, r, "no class run")
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.snaps)
	return common.FmtClock(r.snaps[len(r.snaps)-1].T)
}

// Asserts that the class run outlives the teacher's session: when the teacher disconnects
// the students keep the run, told the teacher is away, at a standstill; the teacher
// reconnecting finds it where it was, paused, and resuming it moves every student on; a
// second teacher's session takes over from the first.
func TestClassTeacherAway(t *testing.T) {
	teacher := newUser(t, "teacher")
	ts := startClass(t, teacher, nil)
	tt := teacher.connect(t, ts, 140, 40, termOptions{})
	tt.waitText(60*time.Second, "Scenarios")
	_, students := connectAll(t, ts, 2, 100, 30)
	tt.press("enter")
	tt.waitText(60*time.Second, "running")
	eachText(t, students, 60*time.Second, "following")
	tt.press("1")
	eachText(t, students, 60*time.Second, "fault outage")
	tt.close()
	eachText(t, students, 60*time.Second, "teacher away")
	at := ts.classClock(t) // the teacher's dashboard has ended: the class run stepped its last
	students[0].waitFor("the class run's last moment", 60*time.Second, func(s string) bool {
		m := headerClock.FindStringSubmatch(s)
		return m != nil && m[1] == at
	})
	time.Sleep(500 * time.Millisecond)
	assert.Equal(t, at, clockOf(t, students[0].screen.String()), "the class run stands still while the teacher is away")

	tt = teacher.connect(t, ts, 140, 40, termOptions{})
	tt.waitText(60*time.Second, "paused at "+at+" while you were away", "fault: outage")
	tt.press("space")
	eachText(t, students, 60*time.Second, "▶ running")
	students[0].waitFor("the run moving on", 60*time.Second, func(s string) bool {
		m := headerClock.FindStringSubmatch(s)
		return m != nil && m[1] != at
	})

	again := teacher.connect(t, ts, 140, 40, termOptions{})
	assert.Equal(t, 0, exitStatus(tt.wait(30*time.Second)))
	assert.Contains(t, tt.stderr.String(), "the teacher connected again from another session")
	again.waitText(60*time.Second, "while you were away")
	for _, s := range students {
		s.close()
	}
	again.close()
	tt.close()
}

// pending reports whether the mailbox of the class member called name holds a message its
// dashboard has not taken.
func (ts *testServer) pending(t *testing.T, name string) bool {
	t.Helper()
	c := ts.class
	c.mu.Lock()
	var box *mailbox
	for st, m := range c.members {
		if st.name == name {
			box = m.box
		}
	}
	c.mu.Unlock()
	require.NotNil(t, box, "no member %s", name)
	box.mu.Lock()
	defer box.mu.Unlock()
	return box.msg != nil
}

// nextFrame waits until tm's screen changes.
func (tm *terminal) nextFrame(timeout time.Duration) {
	tm.t.Helper()
	select {
	case <-tm.screen.Changed():
	case <-time.After(timeout):
		require.FailNow(tm.t, "the screen stood still", "screen:\n%s", tm.screen.String())
	}
}

// Asserts that a student whose terminal reads nothing delays neither the teacher nor the other
// students: once the slow student's dashboard is stuck writing (its SSH channel's window full:
// a message the class posts it stays untaken while the teacher draws frames), the teacher's
// speed and pause reach the teacher's screen and the other student's, the slow one's mailbox
// holding the latest message meanwhile; once its terminal reads again it shows the latest
// (x2, paused) at its latest size. The slow student is made stuck by repainting its whole
// screen (its window resized, as a window being dragged) while it reads nothing; with wish's
// Bubble Tea middleware those resizes left its connection waiting for good (Server.dashboard).
func TestClassSlowStudent(t *testing.T) {
	teacher := newUser(t, "teacher")
	ts := startClass(t, teacher, nil)
	tt := teacher.connect(t, ts, 140, 40, termOptions{})
	tt.waitText(60*time.Second, "Scenarios")
	tt.press("enter")
	tt.waitText(60*time.Second, "running")
	other := newUser(t, "student-other").connect(t, ts, 100, 30, termOptions{})
	slow := newUser(t, "student-slow").connect(t, ts, 250, 80, termOptions{})
	eachText(t, []*terminal{other, slow}, 60*time.Second, "following")

	slow.stall()
	stuck := false
	n := 0
	for ; n < 400 && !stuck; n++ { // repaints of the whole screen, until it waits for the terminal
		require.NoError(t, slow.sess.WindowChange(80, 250-n%2))
		tt.nextFrame(30 * time.Second)
		if n%5 == 4 {
			ts.class.broadcast()
			for range 3 {
				tt.nextFrame(30 * time.Second)
			}
			stuck = ts.pending(t, "student-slow")
		}
	}
	require.True(t, stuck, "the slow student's dashboard never waited for its terminal")

	tt.press("+")
	eachText(t, []*terminal{tt, other}, 60*time.Second, " x2 ")
	tt.press("space")
	tt.waitText(60*time.Second, "paused")
	other.waitText(60*time.Second, "paused by teacher")
	assert.True(t, ts.pending(t, "student-slow"), "the slow student took nothing meanwhile: its mailbox holds the latest")

	slow.resume()
	slow.resize(100, 30)
	slow.waitText(60*time.Second, " x2 ", "paused by teacher")
	for _, tm := range []*terminal{other, slow, tt} {
		tm.close()
	}
	waitSessions(t, ts, 0, 30*time.Second)
}
