package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/classroom"
)

// fakeClass is a class of one run, the fake scenario's, as the server's would hand it out:
// the teacher gets the run, a student the same run (the fake source refuses nothing, which
// these tests do not press).
type fakeClass struct {
	teacher bool
	ff      fakeFactory
	driven  []Play
}

func (c *fakeClass) Teacher() bool { return c.teacher }

func (c *fakeClass) Join() (ClassRun, bool) {
	scn := fakeScenario()
	src, _ := c.ff.build(scn, "cortex", scn.Seed)
	return ClassRun{Source: src, Scenario: scn, Play: Play{Speed: 1}, Gen: 1}, true
}

func (c *fakeClass) Fork() (ClassRun, error) { return ClassRun{}, errors.New("no fork here") }

func (c *fakeClass) Drive(p Play) { c.driven = append(c.driven, p) }

// classModel is a dashboard of the fake class at 140x40, a frame of data drawn, its charts
// counted from then on.
func classModel(t *testing.T, teacher bool) (*Model, *int) {
	m := New(Options{Keys: keymap.Default(), Factory: (&fakeFactory{}).build, Class: &fakeClass{teacher: teacher}, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	require.Equal(t, screenDashboard, m.screen)
	advanceFrames(m, 12)
	draws := 0
	c, tr := findPanel[cpsCell](t, m, 0), findPanel[trafficCell](t, m, 0)
	c.Chart, tr.Chart = countingChart{c.Chart, &draws}, countingChart{tr.Chart, &draws}
	return m, &draws
}

// Asserts that a dashboard of a class draws, on what the server tells it, only what changed:
// a message that changes nothing it shows (another student came or went) draws no frame at
// all; the teacher's speed or pause redraws a student's header and no chart; a student joining
// redraws the teacher's roster and header and no chart. The server tells every dashboard of
// the class each of these; sixty students redrawing every chart each time delayed the
// teacher's own frame.
func TestClassMsgDrawsWhatChanged(t *testing.T) {
	alice := []Member{{Name: "teacher", State: MemberTeacher}, {Name: "alice", State: MemberFollowing}}
	bob := append(append([]Member(nil), alice...), Member{Name: "bob", State: MemberFollowing})
	tests := []struct {
		name    string
		teacher bool
		first   ClassMsg // told first, the frames counted after it
		msg     ClassMsg
		frames  int64  // frames drawn on msg
		shows   string // on screen after msg ("" for nothing new)
	}{
		{"a student: the roster changed", false, ClassMsg{Gen: 1, Play: Play{Speed: 1}, Roster: alice}, ClassMsg{Gen: 1, Play: Play{Speed: 1}, Roster: bob}, 0, ""},
		{"a student: the same message again", false, ClassMsg{Gen: 1, Play: Play{Speed: 2}}, ClassMsg{Gen: 1, Play: Play{Speed: 2}}, 0, ""},
		{"a student: the teacher's speed", false, ClassMsg{Gen: 1, Play: Play{Speed: 1}}, ClassMsg{Gen: 1, Play: Play{Speed: 2}}, 1, " x2 "},
		{"a student: the teacher's pause", false, ClassMsg{Gen: 1, Play: Play{Speed: 1}}, ClassMsg{Gen: 1, Play: Play{Speed: 1, Paused: true}}, 1, "paused by teacher"},
		{"the teacher: the same roster", true, ClassMsg{Roster: alice}, ClassMsg{Roster: alice}, 0, ""},
		{"the teacher: a student joined", true, ClassMsg{Roster: alice}, ClassMsg{Roster: bob}, 1, "bob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, draws := classModel(t, tt.teacher)
			m.Update(tt.first)
			before, frames := m.View(), m.Frames()
			*draws = 0
			m.Update(tt.msg)
			assert.Equal(t, tt.frames, m.Frames()-frames, "frames drawn")
			assert.Zero(t, *draws, "no chart drawn")
			if tt.shows == "" {
				assert.Equal(t, before, m.View())
				return
			}
			assert.NotContains(t, before, tt.shows)
			assert.True(t, strings.Contains(m.View(), tt.shows), "shows %q:\n%s", tt.shows, m.View())
		})
	}
}

// heldSource is a followed class run that hands out the snapshots it is given (a paused class
// run gives none).
type heldSource struct {
	source.Source
	next []source.Snapshot
}

func (s *heldSource) Advance(time.Duration) []source.Snapshot {
	out := s.next
	s.next = nil
	return out
}

// Asserts that a student following the class draws one frame per batch of new class
// snapshots and none while the class run hands out nothing (the teacher paused, or its next
// snapshot not stepped yet), however many ticks pass.
func TestFollowerDrawsPerSnapshot(t *testing.T) {
	m, _ := classModel(t, false)
	real := m.fr.runs[0].src
	held := &heldSource{Source: real}
	m.fr.runs[0].src = held
	frames := m.Frames()
	advanceFrames(m, 20)
	assert.Equal(t, frames, m.Frames(), "no snapshot, no frame")
	held.next = real.Advance(300 * time.Millisecond) // three ticks of the class run at once
	require.Len(t, held.next, 3)
	advanceFrames(m, 5)
	assert.Equal(t, frames+1, m.Frames(), "one frame for the three")
}

// Asserts that a student's copy of the class run, at 80 columns, says in the footer whole
// which keys resume it and rejoin the class (it read "...every key is yours (space res…").
func TestForkedStatusKeepsItsKeys(t *testing.T) {
	c := &fakeClass{}
	m := New(Options{Keys: keymap.Default(), Factory: (&fakeFactory{}).build, Class: c, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	advanceFrames(m, 5)
	run, ok := c.Join()
	require.True(t, ok)
	run.Play.Paused = true
	m.Update(classroom.ForkedMsg{Run: run})
	lines := strings.Split(m.View(), "\n")
	footer := strings.TrimRight(lines[len(lines)-1], " ")
	assert.Contains(t, footer, "your own copy of the class run, forked at")
	assert.True(t, strings.HasSuffix(footer, "space resumes, F rejoins"), "%q", footer)
}
