package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

// frameAt reports whether screen is a whole dashboard frame of w x h: a frame drawn to the
// terminal's size has its footer's help on the last row and a panel's right border in the
// last column.
func frameAt(screen string, w, h int) bool {
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		return false
	}
	last := lines[h-1]
	if !strings.Contains(last, "quit") {
		return false
	}
	for _, l := range lines[1 : h-1] {
		if ansi.StringWidth(l) != w {
			return false
		}
		if r := []rune(strings.TrimRight(l, " ")); len(r) > 0 && ansi.StringWidth(string(r)) == w {
			return true // something reaches the last column: drawn at this width
		}
	}
	return false
}

// Asserts that a session gets the dashboard at its terminal's size from the first frame (the
// picker), that keys work (enter opens the scenario, + speeds it up), that a resize redraws it
// at the new size, and that q ends that session only, with status 0, freeing everything it
// held (goleak: no goroutine left; the session count back to 0).
func TestSessionFrameKeysResize(t *testing.T) {
	ts := startServer(t, nil)
	before := goleak.IgnoreCurrent()
	alice := newUser(t, "alice")
	tm := alice.connect(t, ts, 100, 30, termOptions{})
	tm.waitFor("the picker at 100x30", 20*time.Second, func(s string) bool {
		return strings.Contains(s, "Scenarios") && frameAt(s, 100, 30)
	})
	first := tm.screen.String()
	waitSessions(t, ts, 1, time.Second)

	tm.press("enter")
	tm.waitText(20*time.Second, "running", "x1")
	assert.NotEqual(t, first, tm.screen.String())
	tm.press("+")
	tm.waitText(10*time.Second, "x2")

	tm.resize(140, 40)
	tm.waitFor("the dashboard at 140x40", 20*time.Second, func(s string) bool { return frameAt(s, 140, 40) })
	tm.resize(80, 24)
	tm.waitFor("the dashboard at 80x24", 20*time.Second, func(s string) bool { return frameAt(s, 80, 24) })

	tm.press("q")
	err := tm.wait(20 * time.Second)
	assert.Equal(t, 0, exitStatus(err), "q is a normal end: %v", err)
	assert.False(t, tm.screen.Alt(), "the terminal is back on its main screen")
	tm.close()
	waitSessions(t, ts, 0, 10*time.Second)
	goleak.VerifyNone(t, before)
	assert.Contains(t, ts.log.String(), "session alice (SHA256:")
	assert.Contains(t, ts.log.String(), "ended: quit")
}

// Asserts that closing the connection in the middle of a run ends that session only: the
// other session goes on, and once the server has noticed, nothing of the closed session is
// left (no goroutine, the session count one less).
func TestDisconnectFreesEverything(t *testing.T) {
	ts := startServer(t, nil)
	bob := newUser(t, "bob")
	other := bob.connect(t, ts, 90, 28, termOptions{})
	other.waitText(20*time.Second, "Scenarios")
	other.press("enter")
	other.waitText(20*time.Second, "running")
	other.press("space") // paused: no goroutine of its own comes and goes while alice's are counted
	other.waitText(20*time.Second, "paused")
	time.Sleep(200 * time.Millisecond)
	before := goleak.IgnoreCurrent()

	alice := newUser(t, "alice")
	tm := alice.connect(t, ts, 100, 30, termOptions{})
	tm.waitText(20*time.Second, "Scenarios")
	tm.press("enter")
	tm.waitText(20*time.Second, "running")
	tm.press("+", "+", "+")
	tm.waitText(20*time.Second, "x8")
	waitSessions(t, ts, 2, time.Second)
	tm.close()
	waitSessions(t, ts, 1, 10*time.Second)
	goleak.VerifyNone(t, before)
	assert.Contains(t, ts.log.String(), "session alice")
	assert.Contains(t, ts.log.String(), "ended: disconnected")

	at := other.screen.String()
	other.press("space")
	other.waitFor("the other run going on", 20*time.Second, func(s string) bool { return s != at && strings.Contains(s, "running") })
	other.press("ctrl+c")
	assert.Equal(t, 0, exitStatus(other.wait(20*time.Second)), "ctrl+c quits that session")
	other.close()
	waitSessions(t, ts, 0, 10*time.Second)
}

// Asserts that each session is drawn in its own terminal's colours, at once in one server: a
// true-colour terminal gets 24-bit colours, from the dark palette or, on a terminal that says
// its background is light, the light one; a session whose environment says NO_COLOR gets no
// colour at all; and a terminal that answers no query still gets its dashboard, in the dark
// palette, after the query's timeout.
func TestSessionColours(t *testing.T) {
	ts := startServer(t, nil)
	env := []string{"COLORTERM=truecolor"}
	dark := newUser(t, "dark").connect(t, ts, 90, 26, termOptions{env: env})
	light := newUser(t, "light").connect(t, ts, 90, 26, termOptions{env: env, bg: "rgb:ffff/ffff/ffff"})
	plain := newUser(t, "plain").connect(t, ts, 90, 26, termOptions{env: append(env, "NO_COLOR=1")})
	silent := newUser(t, "silent").connect(t, ts, 90, 26, termOptions{env: env, silent: true})
	for _, tm := range []*terminal{dark, light, plain, silent} {
		tm.waitText(20*time.Second, "Scenarios")
		tm.press("enter")
		tm.waitText(20*time.Second, "running")
	}
	const darkText, lightText = "38;2;230;237;243", "38;2;31;35;40" // colText's two sides
	assert.Contains(t, dark.raw.String(), darkText)
	assert.NotContains(t, dark.raw.String(), lightText)
	assert.Contains(t, light.raw.String(), lightText)
	assert.NotContains(t, light.raw.String(), darkText)
	assert.Contains(t, silent.raw.String(), darkText)
	assert.NotRegexp(t, `\x1b\[[0-9;]*(3[0-9]|4[0-9]|1|3|7)(;[0-9;]*)?m`, plain.raw.String(), "no colour, no attribute under NO_COLOR")
	for _, tm := range []*terminal{dark, light, plain, silent} {
		tm.close()
	}
	waitSessions(t, ts, 0, 10*time.Second)
}
