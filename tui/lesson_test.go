package tui

import (
	"fmt"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/tui/picker"
	"github.com/cortex-tui/cortex-tui/tui/signals"
)

// metricNamed returns the metric of the goal vocabulary called name.
func metricNamed(t *testing.T, name string) scenarios.Metric {
	t.Helper()
	i := slices.IndexFunc(scenarios.Metrics, func(m scenarios.Metric) bool { return m.Name == name })
	require.GreaterOrEqual(t, i, 0, name)
	return scenarios.Metrics[i]
}

// fakeLesson is a two-step lesson over the fake scenario: the CPS of its hump, then a switch to
// naive.
func fakeLesson(t *testing.T) scenarios.Lesson {
	return scenarios.Lesson{
		Name: "fake", Title: "A fake lesson", Scenario: "fake-storm", Strategy: "cortex", HintAt: 5 * time.Second,
		Steps: []scenarios.Step{
			{Text: "Watch the CPS climb over its hump.", Hint: "Let it run.",
				Goals: []scenarios.Goal{{Metric: metricNamed(t, "cps"), Op: scenarios.OpGreaterEq, Num: 0.5, For: 2 * time.Second}}},
			{Text: "Switch to naive.", Hint: "Press s until naive.",
				Goals: []scenarios.Goal{{Metric: metricNamed(t, "strategy"), Op: scenarios.OpEqual, State: "naive"}}},
		},
	}
}

// newLessonModel returns a dashboard following l on the fake scenario.
func newLessonModel(t *testing.T, w, h int, l scenarios.Lesson, guided bool) *Model {
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, Strategy: l.Strategy, Lesson: &l, Guided: guided, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// Asserts that the lesson panel renders as reviewed: the step, its goal with its value now and
// how long it has held, the hint once due, at the full size and at 80x24.
func TestGoldenLesson(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	for _, size := range [][2]int{{140, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newLessonModel(t, size[0], size[1], fakeLesson(t), false)
			fastForward(m, 31)
			golden.RequireEqual(t, m.View())
		})
	}
}

// Asserts that the lesson's steps unlock one after the other as their goals hold, that the hint
// key shows the hint at once, and that a restart keeps the steps done.
func TestLessonSteps(t *testing.T) {
	m := newLessonModel(t, 140, 40, fakeLesson(t), false)
	require.NotNil(t, m.fr.lesson)
	st := m.fr.lesson.tr.Status("cortex")
	assert.Equal(t, 0, st.Step)
	assert.Empty(t, st.Hint, "no hint at t=0")
	assert.NotContains(t, m.View(), "Hint: Let it run.")
	m.Update(keyMsg("H"))
	assert.Contains(t, m.View(), "Hint: Let it run.", "H shows the hint at once")

	for i := 0; i < 60 && m.fr.lesson.tr.Step() == 0; i++ {
		fastForward(m, 1)
	}
	require.Equal(t, 1, m.fr.lesson.tr.Step(), "the CPS held above 0.5 for 2 s: step 2 unlocked")
	m.Update(keyMsg("r"))
	assert.Equal(t, 1, m.fr.lesson.tr.Step(), "a restart keeps the steps done")
	switchTo(t, m, "naive")
	advanceFrames(m, 1)
	assert.True(t, m.LessonDone(), "the switch to naive completes the lesson")
	assert.Contains(t, m.View(), "Lesson complete.")
}

// Asserts guided mode: the run pauses at each caption until space is pressed, and resumes.
func TestGuidedPausesAtCaptions(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	scn := fakeScenario()
	scn.Notes = []scenarios.Note{{At: 2 * time.Second, Text: "first caption"}, {At: 4 * time.Second, Text: "second caption"}}
	ff := &fakeFactory{}
	m := New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, Guided: true})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 100)
	assert.True(t, m.fr.paused, "paused at the first caption")
	assert.Equal(t, 2*time.Second+scn.Tick, m.fr.runs[0].hist.Last.T, "at the end of the tick the caption began in (x1: one tick a frame)")
	assert.Contains(t, m.View(), "guided: paused at a caption")
	m.Update(keyMsg("space"))
	assert.False(t, m.fr.paused)
	advanceFrames(m, 100)
	assert.True(t, m.fr.paused, "paused at the second caption")
	assert.Equal(t, 4*time.Second+scn.Tick, m.fr.runs[0].hist.Last.T)

	// At top speed a frame is 6.4 s of the run: it still ends on the caption's tick.
	scn.Notes = append(scn.Notes, scenarios.Note{At: 20 * time.Second, Text: "third caption"})
	m = New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, Guided: true})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	m.setSpeed(len(speeds) - 1)
	for range 2 { // the first two captions
		advanceFrames(m, 100)
		m.Update(keyMsg("space"))
	}
	advanceFrames(m, 100)
	assert.True(t, m.fr.paused)
	assert.Equal(t, 20*time.Second+scn.Tick, m.fr.runs[0].hist.Last.T, "x64: paused on the third caption's tick")
}

// Asserts, for every built-in lesson, that a learner who presses the keys its hints name
// completes it in the dashboard: on the simulator, each step's actions are turned into key
// presses (s until the strategy, tab and right for a weight, up/down and { } or [ ] for a
// class) when the step begins, and the run goes on at x8 until the lesson is done.
func TestLessonsByKeys(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	if testing.Short() {
		t.Skip("runs whole scenarios")
	}
	for _, l := range scenarios.Lessons() {
		t.Run(l.Name, func(t *testing.T) {
			scn, err := scenarios.Lookup(l.Scenario)
			require.NoError(t, err)
			m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, Scenario: &scn, Strategy: l.Strategy, Lesson: &l, Guided: true, ExportDir: t.TempDir()})
			m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
			defer m.ctl.closeAll()
			pressActions(t, m, l.Steps[0].Actions)
			step := 0
			for frames := 0; frames < 5000 && !m.LessonDone() && !m.done(); frames++ {
				if m.fr.paused {
					m.Update(keyMsg("space")) // guided: go on after each caption and step
				}
				fastForward(m, 1)
				if s := m.fr.lesson.tr.Step(); s != step && s < len(l.Steps) {
					step = s
					pressActions(t, m, l.Steps[s].Actions)
				}
			}
			assert.True(t, m.LessonDone(), "%s completed by keys (stopped at step %d, t=%s)", l.Name, m.fr.lesson.tr.Step()+1, m.fr.runs[0].hist.Last.T)
		})
	}
}

// pressActions presses the keys that carry out actions, as a learner following the hint would.
func pressActions(t *testing.T, m *Model, actions []scenarios.Action) {
	t.Helper()
	press := func(k string) { m.Update(keyMsg(k)) }
	for _, a := range actions {
		switch a.Kind {
		case scenarios.ActStrategy:
			switchTo(t, m, a.Name)
		case scenarios.ActWeight:
			i := slices.IndexFunc(signals.Names[:], func(s struct{ Key, Name string }) bool { return s.Key == a.Name })
			require.GreaterOrEqual(t, i, 0)
			for n := 0; n < 5 && m.fr.selWeight != i; n++ {
				press("tab")
			}
			for n := 0; n < 40 && m.fr.weights[i] < a.Value-1e-9; n++ {
				press("right")
			}
			require.GreaterOrEqual(t, m.fr.weights[i], a.Value-0.05, "weight %s raised", a.Name)
		case scenarios.ActShare, scenarios.ActPriority:
			for n := 0; n < 10 && m.fr.classes[m.fr.selClass].Name != a.Name; n++ {
				press("down")
				if m.fr.selClass == len(m.fr.classes)-1 && m.fr.classes[m.fr.selClass].Name != a.Name {
					for range m.fr.classes {
						press("up")
					}
				}
			}
			require.Equal(t, a.Name, m.fr.classes[m.fr.selClass].Name)
			c := func() *float64 {
				if a.Kind == scenarios.ActShare {
					return &m.fr.classes[m.fr.selClass].Share
				}
				p := float64(m.fr.classes[m.fr.selClass].Priority)
				return &p
			}
			down, up := "[", "]"
			if a.Kind == scenarios.ActPriority {
				down, up = "{", "}"
			}
			for n := 0; n < 40 && *c() != a.Value; n++ {
				if *c() > a.Value {
					press(down)
				} else {
					press(up)
				}
			}
			require.InDelta(t, a.Value, *c(), 1e-9, "%s", a.Text)
		default:
			t.Fatalf("no keys for action %q", a.Text)
		}
	}
}

// Asserts that picking a lesson in the picker (filtering, then enter) opens its scenario with
// its strategy and follows the lesson, with the lesson panel on screen (the picker's own tests
// cover its lessons section).
func TestPickerLessons(t *testing.T) {
	m := New(Options{Keys: keymap.Default(), Factory: (&fakeFactory{}).build, LessonsDone: map[string]bool{"priorities": true}})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	m.Update(keyMsg("/"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("lesson metastable")})
	assert.Contains(t, m.View(), "3 steps · enter starts it", "the lesson's story beside the list")
	_, cmd := m.Update(keyMsg("enter"))
	require.NotNil(t, cmd)
	msg := cmd()
	picked, ok := msg.(picker.PickedLessonMsg)
	require.True(t, ok, "enter on a lesson picks it: %T", msg)
	assert.Equal(t, "metastable", picked.Lesson.Name)
	m.Update(msg)
	require.Equal(t, screenDashboard, m.screen)
	require.NotNil(t, m.fr.lesson)
	assert.Equal(t, "naive", m.fr.runs[0].meta.Strategy, "the lesson's strategy")
	assert.Contains(t, m.View(), "Lesson · A metastable failure · step 1/3")
}

// Asserts that the dashboard opened on the lessons (cortex-tui learn) highlights the first
// lesson not completed: enter picks it at once.
func TestOpenOnLessons(t *testing.T) {
	ls := scenarios.Lessons()
	require.Greater(t, len(ls), 2)
	m := New(Options{Keys: keymap.Default(), Factory: (&fakeFactory{}).build, Lessons: true,
		LessonsDone: map[string]bool{ls[0].Name: true}})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	_, cmd := m.Update(keyMsg("enter"))
	require.NotNil(t, cmd)
	picked, ok := cmd().(picker.PickedLessonMsg)
	require.True(t, ok, "a lesson is highlighted")
	assert.Equal(t, ls[1].Name, picked.Lesson.Name, "the first lesson not done")
}

// Asserts that a completed lesson offers the next one: the panel names it and the key that
// opens it, and that key opens the picker with it highlighted, so enter starts it.
func TestCompletedLessonOffersTheNext(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	ls := scenarios.Lessons()
	l := fakeLesson(t)
	l.Name = ls[0].Name // as if it were the first built-in lesson
	m := newLessonModel(t, 140, 40, l, false)
	for i := 0; i < 60 && m.fr.lesson.tr.Step() == 0; i++ {
		fastForward(m, 1)
	}
	switchTo(t, m, "naive")
	advanceFrames(m, 1)
	require.True(t, m.LessonDone())
	assert.Contains(t, m.View(), "Next: "+ls[1].Title)
	m.Update(keyMsg("l"))
	require.Equal(t, screenPicker, m.screen)
	_, cmd := m.Update(keyMsg("enter"))
	require.NotNil(t, cmd)
	picked, ok := cmd().(picker.PickedLessonMsg)
	require.True(t, ok)
	assert.Equal(t, ls[1].Name, picked.Lesson.Name)
}

// Asserts that a control applied while a lesson's run is paused is checked at once: the goal's
// value follows the weight on screen and the step completes without the run going on.
func TestLessonSeesControlsWhilePaused(t *testing.T) {
	l := scenarios.Lesson{Name: "w", Title: "Weights", Scenario: "fake-storm", Strategy: "cortex", HintAt: time.Minute,
		Steps: []scenarios.Step{
			{Text: "Raise L.", Hint: "tab, right.", Goals: []scenarios.Goal{{Metric: metricNamed(t, "weight.L"), Op: scenarios.OpGreaterEq, Num: 0.26}}},
			{Text: "Then wait.", Hint: "wait.", Goals: []scenarios.Goal{{Metric: metricNamed(t, "t"), Op: scenarios.OpGreater, Num: 1e6}}},
		}}
	m := newLessonModel(t, 140, 40, l, false)
	fastForward(m, 3)
	m.Update(keyMsg("space"))
	require.True(t, m.fr.paused)
	m.Update(keyMsg("tab")) // L
	m.Update(keyMsg("right"))
	assert.Contains(t, m.View(), "weight.L >= 0.26 (now 0.24)", "the weight as on screen, while paused")
	assert.Equal(t, 0, m.fr.lesson.tr.Step())
	m.Update(keyMsg("right"))
	assert.Equal(t, 1, m.fr.lesson.tr.Step(), "the step done at once")
	assert.True(t, m.fr.paused, "still paused")
}

// Asserts that a goal on a windowed metric (amplification: the last 5 s) says so beside its
// value, while a gauge's (the queue, at the last tick) says "now": the Traffic title's
// "amplif. 1.00x" is the last whole second, and a lesson that read "now 1.59x" beside it
// contradicted the screen right after the crash.
func TestLessonSaysWhichWindow(t *testing.T) {
	l := scenarios.Lesson{Name: "w", Title: "Windows", Scenario: "fake-storm", Strategy: "cortex", HintAt: time.Minute,
		Steps: []scenarios.Step{{Text: "Watch.", Hint: "wait.", Goals: []scenarios.Goal{
			{Metric: metricNamed(t, "amplification"), Op: scenarios.OpGreaterEq, Num: 100},
			{Metric: metricNamed(t, "queue"), Op: scenarios.OpGreaterEq, Num: 1e6},
		}}}}
	m := newLessonModel(t, 140, 40, l, false)
	fastForward(m, 3)
	v := m.View()
	assert.Regexp(t, `amplification >= 100\.00x \(last 5s [0-9.]+x\)`, v)
	assert.Regexp(t, `queue >= 1e\+06 \(now [0-9]+\)`, v)
}

// Asserts that at 80x24 a step's goals are shown whole, each on the line it fits on, rather
// than joined on one line cut in the middle: retry-storm's last step read "✗ t >=…".
func TestLessonGoalsNeverCut(t *testing.T) {
	l := scenarios.Lesson{Name: "w", Title: "Three goals", Scenario: "fake-storm", Strategy: "naive", HintAt: time.Minute,
		Steps: []scenarios.Step{{Text: "Now switch the fleet to CORTEX and hold success above 70% for 20 s after the crash.", Hint: "s.",
			Goals: []scenarios.Goal{
				{Metric: metricNamed(t, "strategy"), Op: scenarios.OpEqual, State: "cortex"},
				{Metric: metricNamed(t, "success"), Op: scenarios.OpGreaterEq, Num: 0.7, For: 20 * time.Second},
				{Metric: metricNamed(t, "t"), Op: scenarios.OpGreaterEq, Num: 110},
			}}}}
	m := newLessonModel(t, 80, 24, l, false)
	fastForward(m, 3)
	v := m.View()
	for _, g := range l.Steps[0].Goals {
		assert.Contains(t, v, " "+g.String()+" (", "the goal %q whole", g.String())
	}
	assert.Contains(t, v, "Now switch the fleet", "the step's text keeps a line")
}
