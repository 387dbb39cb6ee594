package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/help"
)

// Asserts that each time key does what its help says: space pauses and resumes, "." steps one
// tick while paused only, + and - change the speed within x0.25..x64, r restarts at t=0.
func TestTimeKeys(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	t.Run("space pauses and resumes", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("space"))
		assert.True(t, m.fr.paused)
		assert.Contains(t, m.View(), "paused")
		m.Update(keyMsg("space"))
		assert.False(t, m.fr.paused)
		assert.Contains(t, m.View(), "running")
	})
	t.Run("dot steps one tick while paused", func(t *testing.T) {
		m, ff := newTestModel(t, 140, 40, "cortex")
		advanceFrames(m, 10)
		before := m.fr.runs[0].hist.Last.T
		_, cmd := m.Update(keyMsg("."))
		assert.Nil(t, cmd, "running: the step key does nothing")
		m.Update(keyMsg("space"))
		_, cmd = m.Update(keyMsg("."))
		require.NotNil(t, cmd)
		m.Update(cmd())
		assert.Equal(t, before+ff.last().meta.Tick, m.fr.runs[0].hist.Last.T)
	})
	t.Run("plus and minus change the speed within bounds", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		for range 20 {
			m.Update(keyMsg("+"))
		}
		assert.Equal(t, speeds[len(speeds)-1], m.fr.speed)
		assert.Contains(t, m.View(), "x64")
		for range 20 {
			m.Update(keyMsg("-"))
		}
		assert.Equal(t, speeds[0], m.fr.speed)
		assert.Contains(t, m.View(), "x0.25")
	})
	t.Run("r restarts with the same seed", func(t *testing.T) {
		m, ff := newTestModel(t, 140, 40, "cortex")
		advanceFrames(m, 30)
		require.Greater(t, m.fr.runs[0].hist.Last.T.Seconds(), 0.0)
		m.Update(keyMsg("r"))
		_, restarts, _, _ := ff.last().calls()
		assert.Equal(t, 1, restarts)
		assert.False(t, m.fr.runs[0].hist.Seen, "history forgotten")
		assert.Equal(t, int64(7), m.fr.runs[0].meta.Seed)
	})
}

// Asserts that 1..6 inject the documented fault (with the documented value) into the source
// and that pressing the key again clears it; 0 clears every fault.
func TestFaultKeys(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	scn := fakeScenario()
	cases := []struct {
		key   string
		kind  scenarios.FaultKind
		value float64
	}{
		{"1", scenarios.FaultOutage, 0},
		{"2", scenarios.FaultBlackhole, 0},
		{"3", scenarios.FaultLatency, 1},
		{"4", scenarios.FaultErrors, 0.5},
		{"5", scenarios.FaultThrottle, 0.5 * scn.Service.Capacity()},
		{"6", scenarios.FaultCapacity, 0.3},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			m, ff := newTestModel(t, 140, 40, "cortex")
			m.Update(keyMsg(c.key))
			_, _, injected, _ := ff.last().calls()
			require.Len(t, injected, 1)
			assert.Equal(t, c.kind, injected[0].Kind)
			assert.InDelta(t, c.value, injected[0].Value, 1e-9)
			assert.Contains(t, m.View(), string(c.kind)+" injected")
			advanceFrames(m, 2)
			m.Update(keyMsg(c.key))
			_, _, _, cleared := ff.last().calls()
			assert.Equal(t, []scenarios.FaultKind{c.kind}, cleared)
		})
	}
	t.Run("0 clears all", func(t *testing.T) {
		m, ff := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("1"))
		m.Update(keyMsg("0"))
		assert.Equal(t, 1, ff.last().clearAlls)
		assert.Empty(t, m.injected)
	})
}

// Asserts that the tuning keys select weights and classes, change them, and send the new
// values to the source: weights renormalised to sum 1, shares and priorities clamped.
func TestTuningKeys(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	t.Run("tab and shift+tab select a weight, wrapping", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("tab"))
		assert.Equal(t, 1, m.fr.selWeight)
		m.Update(keyMsg("shift+tab"))
		m.Update(keyMsg("shift+tab"))
		assert.Equal(t, 4, m.fr.selWeight)
	})
	t.Run("right raises the selected weight, renormalised", func(t *testing.T) {
		m, ff := newTestModel(t, 140, 40, "cortex")
		before := m.fr.weights
		m.Update(keyMsg("right"))
		w := m.fr.weights
		assert.Greater(t, w[0], before[0])
		sum := 0.0
		for _, v := range w {
			sum += v
		}
		assert.InDelta(t, 1, sum, 1e-9)
		require.Len(t, ff.last().weightSet, 1)
		assert.Equal(t, engine.WeightsFrom(w), ff.last().weightSet[0])
		assert.Contains(t, m.View(), "now 0.33")
	})
	t.Run("left never goes below zero", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		for range 30 {
			m.Update(keyMsg("left"))
		}
		assert.Equal(t, 0.0, m.fr.weights[0])
	})
	t.Run("a toggles adaptive weights", func(t *testing.T) {
		m, ff := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("a"))
		assert.True(t, m.fr.adaptive)
		assert.True(t, ff.last().adaptive)
		m.Update(keyMsg("a"))
		assert.False(t, ff.last().adaptive)
	})
	t.Run("up and down select a class, clamped", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("up"))
		assert.Equal(t, 0, m.fr.selClass)
		for range 5 {
			m.Update(keyMsg("down"))
		}
		assert.Equal(t, 2, m.fr.selClass)
	})
	t.Run("brackets change the share, braces the priority", func(t *testing.T) {
		m, ff := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("down"))
		m.Update(keyMsg("]"))
		m.Update(keyMsg("}"))
		got := ff.last().Meta().Classes[1]
		assert.InDelta(t, 1+shareStep, got.Share, 1e-9)
		assert.Equal(t, 6, got.Priority)
		for range 10 {
			m.Update(keyMsg("["))
			m.Update(keyMsg("{"))
		}
		got = ff.last().Meta().Classes[1]
		assert.Equal(t, 0.0, got.Share)
		assert.Equal(t, 0, got.Priority)
		assert.Equal(t, got, m.fr.classes[1])
	})
}

// Asserts that the view keys work: s cycles the strategy (skipping one the source refuses), c
// compares cortex with naive on the same seed and back, l opens the picker and esc returns,
// ? toggles the full help, e writes CSV and JSON and shows where, q quits and closes sources.
func TestViewKeys(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	t.Run("s cycles the strategy", func(t *testing.T) {
		names := strategy.Names()
		m, ff := newTestModel(t, 140, 40, names[0])
		for _, name := range append(names[1:], names[0]) { // in catalog order, back to the first
			if name == "grpc" {
				continue // the fake source refuses it: s skips it
			}
			m.Update(keyMsg("s"))
			assert.Equal(t, name, ff.last().Meta().Strategy)
			assert.Equal(t, name, m.fr.runs[0].meta.Strategy)
		}
	})
	t.Run("c compares two strategies on the same seed", func(t *testing.T) {
		m, ff := newTestModel(t, 140, 40, "cortex")
		advanceFrames(m, 5)
		m.Update(keyMsg("c"))
		require.Len(t, m.fr.runs, 2)
		assert.Equal(t, "cortex", m.fr.runs[0].meta.Strategy)
		assert.Equal(t, "naive", m.fr.runs[1].meta.Strategy)
		assert.Equal(t, m.fr.runs[0].meta.Seed, m.fr.runs[1].meta.Seed)
		assert.True(t, ff.made[0].closed, "the previous source is closed")
		advanceFrames(m, 20)
		assert.Equal(t, m.fr.runs[0].hist.Last.T, m.fr.runs[1].hist.Last.T, "both advance together")
		m.Update(keyMsg("1"))
		for _, r := range m.fr.runs {
			assert.Contains(t, r.src.(*fakeSource).faults, scenarios.FaultOutage, "faults go to both")
		}
		m.Update(keyMsg("c"))
		assert.Len(t, m.fr.runs, 1)
	})
	t.Run("l opens the picker, esc goes back", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("l"))
		assert.Equal(t, screenPicker, m.screen)
		assert.Contains(t, m.View(), "Scenarios")
		_, cmd := m.Update(keyMsg("esc"))
		require.NotNil(t, cmd)
		m.Update(cmd())
		assert.Equal(t, screenDashboard, m.screen)
	})
	t.Run("? toggles the full help", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		m.Update(keyMsg("?"))
		assert.True(t, m.showHelp)
		assert.Contains(t, m.View(), "inject / clear an outage")
		m.Update(keyMsg("esc"))
		assert.False(t, m.showHelp)
	})
	t.Run("e exports CSV and JSON", func(t *testing.T) {
		dir := t.TempDir()
		ff := &fakeFactory{}
		scn := fakeScenario()
		m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: dir})
		m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
		advanceFrames(m, 35)
		_, cmd := m.Update(keyMsg("e"))
		require.NotNil(t, cmd)
		m.Update(cmd())
		csvPath := filepath.Join(dir, "cortex-fake-storm-cortex-seed7.csv")
		csv, err := os.ReadFile(csvPath)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
		assert.True(t, strings.HasPrefix(lines[0], "t,originals,attempts,retries,successes,failures,shed,service,capacity,queue,cps,state,circuit"), lines[0])
		assert.Len(t, lines, 1+4, "a header, then one row per simulated second begun (3.5 s run)")
		js, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7.json"))
		require.NoError(t, err)
		assert.Contains(t, string(js), `"timeline"`)
		assert.Contains(t, m.View(), "exported to "+dir+": "+exported("cortex-fake-storm-cortex-seed7"))
		info, err := os.Stat(csvPath)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "an ordinary file, not the temp file's 0600")
	})
	t.Run("q quits and closes the sources", func(t *testing.T) {
		for _, k := range []string{"q", "ctrl+c"} {
			m, ff := newTestModel(t, 140, 40, "cortex")
			_, cmd := m.Update(keyMsg(k))
			require.NotNil(t, cmd)
			assert.Equal(t, tea.QuitMsg{}, cmd())
			assert.True(t, ff.last().closed)
		}
	})
}

// Asserts that every binding of the keymap is handled somewhere: a key of each binding changes
// the model's state or the screen (so help text and behaviour cannot drift apart silently).
func TestEveryBindingDoesSomething(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	k := testKeys()
	for _, group := range k.FullHelp() {
		for _, b := range group {
			name := b.Help().Desc
			if b.Help().Key == "enter" || b.Help().Key == "esc" || b.Help().Key == "q/ctrl+c" || b.Help().Key == "/" {
				continue // exercised by the picker, summary and quit tests
			}
			t.Run(name, func(t *testing.T) {
				require.NotEmpty(t, b.Keys(), "a binding in the help has no key (a fault kind's Binding without default keys in keymap?)")
				m, _ := newTestModel(t, 140, 40, "cortex")
				switch b.Help().Key {
				case ".": // steps only while paused
					m.Update(keyMsg("space"))
				case "up": // the first class is selected: move off it first
					m.Update(keyMsg("down"))
				case "pgup", "pgdown": // a log longer than the panel, scrolled back for pgdown
					for range 12 {
						m.Update(keyMsg("space"))
					}
					if b.Keys()[0] == "pgdown" {
						m.Update(tea.KeyMsg{Type: tea.KeyPgUp})
					}
				}
				before := m.View()
				_, cmd := m.Update(keyMsg(b.Keys()[0]))
				if cmd != nil {
					if msg := cmd(); msg != nil {
						m.Update(msg)
					}
				}
				assert.NotEqual(t, before, m.View(), "key %q changed nothing on screen", b.Keys()[0])
			})
		}
	}
}

// Asserts that keys typed faster than the terminal is read, which arrive as one message of
// several runes ("+++"), act once per rune.
func TestBurstOfRunes(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("+++")})
	assert.Equal(t, speeds[defaultSpeed+3], m.fr.speed)
}

// Asserts that l then enter on another scenario replaces the run: the old source is closed, the
// new one is built by the factory with the picked scenario and the current strategy, and the
// loop runs again.
func TestLoadAnotherScenario(t *testing.T) {
	m, ff := newTestModel(t, 140, 40, "cortex")
	switchTo(t, m, "naive")
	advanceFrames(m, 3)
	m.Update(keyMsg("l"))
	m.Update(keyMsg("down"))
	_, cmd := m.Update(keyMsg("enter"))
	require.NotNil(t, cmd)
	_, next := m.Update(cmd())
	require.NotNil(t, next, "the loop starts on the new scenario")
	assert.Equal(t, screenDashboard, m.screen)
	require.Len(t, ff.made, 2)
	assert.True(t, ff.made[0].closed)
	picked := scenarios.Catalog()[1]
	assert.Equal(t, picked.Name, m.fr.runs[0].meta.Scenario)
	assert.Equal(t, "naive", m.fr.runs[0].meta.Strategy)
	assert.Equal(t, picked.Seed, m.fr.runs[0].meta.Seed)
}

// Asserts that the full help scrolls with up/down when it is taller than the window, so every
// key can be read at 80x24; the class's keys are left out of a dashboard of its own.
func TestHelpScrolls(t *testing.T) {
	m, _ := newTestModel(t, 80, 24, "cortex")
	m.Update(keyMsg("?"))
	require.Contains(t, m.View(), "scroll")
	assert.NotContains(t, m.View(), "raise the class's priority")
	seen := m.View()
	for range 60 { // every line passes through the window on the way down
		m.Update(keyMsg("down"))
		seen += m.View()
	}
	classOnly := help.ClassOnly(m.keys)
	for _, group := range m.keys.FullHelp() {
		for _, b := range group {
			switch {
			case help.SameKeys(classOnly, b):
				assert.NotContains(t, seen, b.Help().Desc, "no class: no help of %v", b.Keys())
			case b.Enabled() && b.Help().Desc != "":
				assert.Contains(t, seen, b.Help().Desc, "scrolling shows the help of %v", b.Keys())
			}
		}
	}
	assert.Contains(t, m.View(), "Press ? or esc to close, tab for the glossary.")
	m.Update(keyMsg("tab"))
	assert.Contains(t, m.View(), "Glossary")
	assert.Contains(t, m.View(), "Composite Pressure Score", "the glossary's page starts at its top")
	for range 80 {
		m.Update(keyMsg("down"))
	}
	assert.Contains(t, m.View(), "tab for the keys")
	m.Update(keyMsg("shift+tab"))
	assert.Contains(t, m.View(), "pause / resume")
	m.Update(keyMsg("esc"))
	assert.False(t, m.showHelp)
}

// Asserts that in the picker, while a filter is typed, "q" goes into the filter (it is a letter
// of a scenario name) while ctrl+c, which cannot be typed, still quits at once.
func TestQuitWhileFilteringInThePicker(t *testing.T) {
	ff := &fakeFactory{}
	m := New(Options{Keys: testKeys(), Factory: ff.build})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	require.Equal(t, screenPicker, m.screen)
	m.Update(keyMsg("/"))
	require.True(t, m.picker.Filtering())

	_, cmd := m.Update(keyMsg("q"))
	if cmd != nil {
		assert.NotEqual(t, tea.QuitMsg{}, cmd(), "q is typed into the filter")
	}
	assert.True(t, m.picker.Filtering())

	_, cmd = m.Update(keyMsg("ctrl+c"))
	require.NotNil(t, cmd)
	assert.Equal(t, tea.QuitMsg{}, cmd())
}

// Asserts that a run whose strategy was switched with `s` is exported under the names of both
// strategies, in the file name, the JSON header and the summary, never as one strategy's run.
func TestExportAfterStrategySwitchNamesBoth(t *testing.T) {
	dir := t.TempDir()
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: dir})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 10)
	m.Update(keyMsg("s"))
	require.Equal(t, "cortex-article", m.fr.runs[0].meta.Strategy)
	advanceFrames(m, 10)
	_, cmd := m.Update(keyMsg("e"))
	require.NotNil(t, cmd)
	m.Update(cmd())
	js, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex+cortex-article-seed7.json"))
	require.NoError(t, err)
	var doc struct {
		Strategy string `json:"strategy"`
		Summary  struct {
			Strategy string `json:"strategy"`
		} `json:"summary"`
	}
	require.NoError(t, json.Unmarshal(js, &doc))
	assert.Equal(t, "cortex+cortex-article", doc.Strategy)
	assert.Equal(t, "cortex+cortex-article", doc.Summary.Strategy)
}

// Asserts that a fault key on a finished run injects nothing and says how to go on, instead of
// claiming a fault that can no longer have any effect.
func TestFaultKeyAfterTheEnd(t *testing.T) {
	m, ff := newTestModel(t, 140, 40, "cortex")
	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 20)
	require.True(t, m.done())
	m.Update(keyMsg("esc")) // back from the summary to the final dashboard
	m.Update(keyMsg("1"))
	_, _, injected, _ := ff.last().calls()
	assert.Empty(t, injected, "nothing injected into a finished source")
	assert.Contains(t, m.View(), "the run is over")
}

// Asserts that the summary of a run whose strategy was switched and whose class priority was
// changed names both strategies, and names the class under each priority it had, so no
// priority line is left without a class.
func TestSummaryAfterSwitchAndPriorityChange(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	advanceFrames(m, 10)
	m.Update(keyMsg("s"))
	m.Update(keyMsg("down")) // search, priority 5
	m.Update(keyMsg("}"))
	require.Equal(t, 6, m.fr.classes[1].Priority)
	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 20)
	require.Equal(t, screenSummary, m.screen)
	v := m.View()
	assert.Contains(t, v, "cortex+cortex-article")
	assert.Contains(t, v, "priority 5 search")
	assert.Contains(t, v, "priority 6 search")
}

// Asserts that the controls the dashboard applies itself (pause, resume, speed, restart,
// compare on and off, export) are written to the event log, visible on the next frame, in
// every run's log; and that a speed key at its limit says so instead of logging a change.
func TestDashboardControlsAreLogged(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	cases := []struct {
		name string
		keys []string
		want string
	}{
		{"pause", []string{"space"}, "paused"},
		{"resume", []string{"space", "space"}, "resumed"},
		{"faster", []string{"+"}, "speed x2"},
		{"slower", []string{"-"}, "speed x0.5"},
		{"restart", []string{"r"}, "restarted, same seed"},
		{"compare on", []string{"c"}, "compare cortex vs naive"},
		{"compare off", []string{"c", "c"}, "compare off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestModel(t, 140, 48, "cortex")
			advanceFrames(m, 5)
			for _, k := range tc.keys {
				m.Update(keyMsg(k))
			}
			for i, r := range m.fr.runs {
				require.NotEmpty(t, r.hist.Events, "run %d", i)
				last := r.hist.Events[len(r.hist.Events)-1]
				assert.Contains(t, last.Text, tc.want, "run %d", i)
			}
			assert.Contains(t, m.View(), tc.want)
		})
	}
	t.Run("export", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		advanceFrames(m, 5)
		_, cmd := m.Update(keyMsg("e"))
		require.NotNil(t, cmd)
		m.Update(cmd())
		evs := m.fr.runs[0].hist.Events
		require.NotEmpty(t, evs)
		assert.Contains(t, evs[len(evs)-1].Text, "exported to")
	})
	t.Run("speed at its limit", func(t *testing.T) {
		m, _ := newTestModel(t, 140, 40, "cortex")
		m.setSpeed(len(speeds) - 1)
		n := len(m.fr.runs[0].hist.Events)
		m.Update(keyMsg("+"))
		assert.Len(t, m.fr.runs[0].hist.Events, n, "no change, no event")
		assert.Contains(t, m.View(), "is the limit")
	})
}

// Asserts that a step with "." while paused changes the time shown in the header, also past
// 100 s where the total is shown in whole seconds.
func TestStepShowsInHeader(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	m, _ := newTestModel(t, 140, 40, "cortex")
	m.fr.runs[0].meta.Total = 10 * time.Minute
	m.fr.runs[0].src.(*fakeSource).meta.Total = 10 * time.Minute
	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 17) // 108.8 s
	m.setSpeed(defaultSpeed)
	require.Greater(t, m.fr.runs[0].hist.Last.T, 100*time.Second)
	m.Update(keyMsg("space"))
	for range 3 {
		before := findPanel[headerCell](t, m, 0).View()
		_, cmd := m.Update(keyMsg("."))
		require.NotNil(t, cmd)
		m.Update(cmd())
		assert.NotEqual(t, before, findPanel[headerCell](t, m, 0).View(), "the step shows in the header")
	}
}

// Asserts the header's clock format: tenths of a second below and above 100 s.
func TestFmtClock(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{42300 * time.Millisecond, "42.3s"},
		{125300 * time.Millisecond, "2m05.3s"},
		{125960 * time.Millisecond, "2m06.0s"},
		{600 * time.Second, "10m00.0s"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, common.FmtClock(tc.d), tc.d)
	}
}

// Asserts that speed keys pressed in a row at one instant leave one event, the speed reached,
// while speed changes at different times each stay in the log.
func TestSpeedEventsCollapse(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	advanceFrames(m, 3)
	for range 3 {
		m.Update(keyMsg("+"))
	}
	evs := m.fr.runs[0].hist.Events
	require.NotEmpty(t, evs)
	assert.Equal(t, "speed x8", evs[len(evs)-1].Text)
	n := len(evs)
	advanceFrames(m, 1)
	m.Update(keyMsg("-"))
	evs = m.fr.runs[0].hist.Events
	assert.Len(t, evs, n+1)
	assert.Equal(t, "speed x4", evs[len(evs)-1].Text)
}

// Asserts that a tuning key at its limit (priority 0, share x0, a weight at 0) sends nothing to
// the source, so the log gets no repeated "priority 0" lines, and the footer says why.
func TestTuningAtLimitSendsNothing(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	m, ff := newTestModel(t, 140, 40, "cortex")
	m.Update(keyMsg("down")) // search, priority 5
	for range 5 {
		m.Update(keyMsg("{"))
	}
	require.Equal(t, 0, ff.last().Meta().Classes[1].Priority)
	advanceFrames(m, 1)
	n := len(m.fr.runs[0].hist.Events)
	m.Update(keyMsg("{"))
	advanceFrames(m, 1)
	assert.Len(t, m.fr.runs[0].hist.Events, n, "nothing logged")
	assert.Contains(t, m.View(), "already at the limit")

	for range 30 {
		m.Update(keyMsg("left"))
	}
	require.Equal(t, 0.0, m.fr.weights[0])
	sent := len(ff.last().weightSet)
	m.Update(keyMsg("left"))
	assert.Len(t, ff.last().weightSet, sent, "no weights sent")
	assert.Contains(t, m.View(), "is already 0.00")
}

// Asserts that every text naming a key (the full help's notes and closing line, the summary's
// hint, the naive strategy's note, the status after the end) names the key as remapped in the
// key file, not the default.
func TestTextsNameRemappedKeys(t *testing.T) {
	km, err := keymap.Parse("keys.toml", []byte(`outage = ["o"]
help = ["h"]
back = ["x"]
restart = ["R"]
load = ["L"]
strategy = ["S"]
compare = ["C"]
quit = ["ctrl+c"]
share_down = ["-", "<"]
slower = ["_"]
record = ["W"]
strategy_menu = ["Y"]`))
	require.NoError(t, err)
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: km, Factory: ff.build, Scenario: &scn, Strategy: "naive", ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 2)
	assert.Contains(t, m.View(), "(S switches the strategy, C")

	m.Update(keyMsg("h"))
	help := m.View()
	assert.Contains(t, help, "Faults: o outage")
	assert.Contains(t, help, "-/< ] share of traffic")
	assert.Contains(t, help, "Press h or x to close, tab for the glossary.")
	m.Update(keyMsg("x"))

	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 20)
	require.Equal(t, screenSummary, m.screen)
	assert.Contains(t, m.View(), "x back to the dashboard · R run again · L another scenario · e export · ctrl+c quit")
	m.Update(keyMsg("x"))
	m.Update(keyMsg("o"))
	assert.Contains(t, m.View(), "R runs it again, L picks another scenario")
}

// Asserts that the header lists the faults in effect while they last (so a fault injected and
// forgotten stays visible), and drops them once cleared.
func TestHeaderShowsActiveFaults(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	advanceFrames(m, 2)
	assert.NotContains(t, findPanel[headerCell](t, m, 0).View(), "fault:")
	m.Update(keyMsg("4"))
	m.Update(keyMsg("3"))
	advanceFrames(m, 1)
	assert.Contains(t, findPanel[headerCell](t, m, 0).View(), "fault:")
	assert.Contains(t, findPanel[headerCell](t, m, 0).View(), "errors 50%")
	assert.Contains(t, findPanel[headerCell](t, m, 0).View(), "latency +1s")
	m.Update(keyMsg("0"))
	advanceFrames(m, 1)
	assert.NotContains(t, findPanel[headerCell](t, m, 0).View(), "fault:")
}

// Asserts that the compare summary puts the two runs' numbers side by side on each row and fits
// narrow windows: at 60x20 and 80x24 both strategies and both success rates are on screen.
func TestCompareSummaryFits(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	for _, size := range [][2]int{{60, 20}, {80, 24}, {140, 40}} {
		m, _ := newTestModel(t, size[0], size[1], "cortex")
		m.Update(keyMsg("c"))
		m.setSpeed(len(speeds) - 1)
		advanceFrames(m, 20)
		require.Equal(t, screenSummary, m.screen, "%v", size)
		v := m.View()
		assert.Contains(t, v, "cortex", "%v", size)
		assert.Contains(t, v, "naive", "%v", size)
		for _, line := range strings.Split(v, "\n") {
			if strings.Contains(line, "success rate") {
				assert.Equal(t, 2, strings.Count(line, "%"), "%v: %s", size, line)
			}
		}
		assert.Contains(t, v, "quit", "%v: the hint wraps rather than being cut", size)
	}
}

// Asserts that a control applied while paused shows in the event log at once (marked as taking
// effect at the next tick), in every run's log, and that the next tick replaces it with the
// source's own event instead of logging it twice.
func TestControlWhilePausedIsLoggedAtOnce(t *testing.T) {
	m, _ := newTestModel(t, 140, 48, "cortex")
	m.Update(keyMsg("c"))
	advanceFrames(m, 3)
	m.Update(keyMsg("space"))
	m.Update(keyMsg("1"))
	for i, r := range m.fr.runs {
		log := r.hist.Log()
		require.NotEmpty(t, log)
		assert.Contains(t, log[len(log)-1].Text, "outage injected", "run %d", i)
		assert.Contains(t, log[len(log)-1].Text, "next tick: ", "run %d", i)
	}
	assert.Contains(t, m.View(), "next tick: ")
	_, cmd := m.Update(keyMsg("."))
	require.NotNil(t, cmd)
	m.Update(cmd())
	for i, r := range m.fr.runs {
		n := 0
		for _, e := range r.hist.Log() {
			if strings.Contains(e.Text, "outage injected") {
				n++
			}
		}
		assert.Equal(t, 1, n, "run %d: logged once, by the source", i)
	}
	assert.NotContains(t, m.View(), "next tick: ")
}

// Asserts that leaving compare keeps the controls applied to both runs on screen (weights,
// classes, injected faults), as the left run's source still has them, instead of showing the
// scenario's defaults.
func TestCompareOffKeepsControls(t *testing.T) {
	m, ff := newTestModel(t, 140, 40, "cortex")
	m.Update(keyMsg("c"))
	require.Len(t, m.fr.runs, 2)
	left := ff.made[len(ff.made)-2]
	advanceFrames(m, 2)
	m.Update(keyMsg("tab"))
	m.Update(keyMsg("right"))
	m.Update(keyMsg("down"))
	m.Update(keyMsg("["))
	m.Update(keyMsg("}"))
	m.Update(keyMsg("4"))
	weights, classes := m.fr.weights, append([]source.ClassMeta(nil), m.fr.classes...)
	m.Update(keyMsg("c"))
	require.Len(t, m.fr.runs, 1)
	assert.Equal(t, weights, m.fr.weights)
	assert.Equal(t, classes, m.fr.classes)
	assert.Equal(t, left.Meta().Classes, m.fr.classes, "as the source has them")
	assert.True(t, m.injected[scenarios.FaultErrors], "the errors fault stays known as injected")
	m.Update(keyMsg("4"))
	_, _, _, cleared := left.calls()
	assert.Contains(t, cleared, scenarios.FaultErrors, "so its key clears it")
}

// countingChart counts the draws of the chart it wraps.
type countingChart struct {
	chart.Chart
	draws *int
}

func (c countingChart) Draw(spec chart.Spec) string { *c.draws++; return c.Chart.Draw(spec) }

// Asserts that the keys that change no data (weight and class selection, weights, adaptive,
// shares, speed, pause) redraw no chart, in the full layout and in compare mode, while they do
// show on screen; a frame of new data redraws the charts.
func TestKeysRedrawNoChart(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	for _, compare := range []bool{false, true} {
		m, _ := newTestModel(t, 140, 40, "cortex")
		if compare {
			m.Update(keyMsg("c"))
		}
		advanceFrames(m, 12)
		draws := 0
		for i := range len(m.fr.runs) {
			c, tr := findPanel[cpsCell](t, m, i), findPanel[trafficCell](t, m, i)
			c.Chart, tr.Chart = countingChart{c.Chart, &draws}, countingChart{tr.Chart, &draws}
		}
		for _, k := range []string{"tab", "right", "a", "down", "]", "}", "+", "-", "space", "space"} {
			before := m.View()
			m.Update(keyMsg(k))
			assert.NotEqual(t, before, m.View(), "compare %v: %q shows", compare, k)
		}
		assert.Zero(t, draws, "compare %v: a key redrew a chart", compare)
		advanceFrames(m, 1)
		assert.Equal(t, 2*len(m.fr.runs)-btoi(compare), draws, "compare %v: a frame redraws every chart once (naive's CPS has none)", compare)
	}
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Asserts that Options.Compare opens the dashboard in compare mode with the right side built by
// CompareFactory (run --compare-engine): cortex against cortex with another engine, both
// named on screen, and that the compare key then goes back to one run and in again the same way.
func TestCompareEngines(t *testing.T) {
	scn := scenarios.Scenario{}
	for _, s := range scenarios.Catalog() {
		if s.Name == "dns-crash" {
			scn = s
		}
	}
	tuned := engine.DefaultConfig()
	tuned.TokenBucketCapacity = 30
	right := func(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
		return sim.NewSourceWith(scn, strat, seed, sim.Options{Engine: &tuned, EngineName: "tuned.toml"})
	}
	m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, CompareFactory: right, Compare: true, Scenario: &scn, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	require.Len(t, m.fr.runs, 2)
	assert.Equal(t, "cortex", m.fr.runs[0].meta.StrategyLabel())
	assert.Equal(t, "cortex (tuned.toml)", m.fr.runs[1].meta.StrategyLabel())
	assert.Contains(t, m.View(), "cortex (tuned.toml)")
	m.Update(keyMsg("c"))
	require.Len(t, m.fr.runs, 1)
	m.Update(keyMsg("c"))
	require.Len(t, m.fr.runs, 2)
	assert.Equal(t, "cortex (tuned.toml)", m.fr.runs[1].meta.StrategyLabel())
}

// Asserts that a finished run's results never change: after a compare run has ended, the
// controls that would change a run (strategy, weights, adaptive, a class, a fault, clearing
// them) change no summary, reach no source, and each says the run is over (s on the summary
// used to relabel both runs with strategies that never ran, and e exported them so).
func TestFinishedResultsNeverChange(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	m, ff := newTestModel(t, 140, 40, "cortex")
	m.Update(keyMsg("c"))
	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 40)
	require.True(t, m.done())
	require.Equal(t, screenSummary, m.screen)
	before, body := m.results(), m.body
	for _, k := range []string{"s", "right", "a", "]", "}", "1", "0"} {
		m.Update(keyMsg(k))
		assert.Contains(t, m.View(), "the run is over", "%s says so", k)
	}
	assert.Equal(t, before, m.results(), "the results are those of the runs as they ran")
	for _, r := range m.fr.runs {
		assert.NotContains(t, r.rec.Summary().Strategy, "+", "no strategy added to a finished run")
	}
	assert.Equal(t, body, m.body, "the summary as it was")
	_, _, injected, _ := ff.last().calls()
	assert.Empty(t, injected)
}

// Asserts that the summary screen's footer names the keys that lead on from a finished run
// (back to the dashboard, run again, another scenario, export), not the run's (pause, speed).
func TestSummaryFooterKeys(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 20)
	require.Equal(t, screenSummary, m.screen)
	lines := strings.Split(m.View(), "\n")
	footer := lines[len(lines)-1]
	for _, want := range []string{"esc the dashboard", "r run again", "e export"} {
		assert.Contains(t, footer, want)
	}
	assert.NotContains(t, footer, "speed up")
	m.Update(keyMsg("esc"))
	lines = strings.Split(m.View(), "\n")
	assert.Contains(t, lines[len(lines)-1], "speed up", "the dashboard's own keys again")
}

// Asserts that r restarts at x1 whatever the speed was (at x64 a restarted run flew past its
// opening captions), and that . while running says what it does instead of nothing.
func TestRestartSpeedAndStepWhileRunning(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	m.setSpeed(len(speeds) - 1)
	advanceFrames(m, 2)
	m.Update(keyMsg("r"))
	assert.Equal(t, 1.0, m.fr.speed)
	assert.Contains(t, m.View(), "restarted with the same seed, at x1")
	m.Update(keyMsg("."))
	assert.Contains(t, m.View(), ". steps one tick while paused: space pauses")
}

// Asserts that while a fault injected at run time is on, the caption says what it does instead
// of the scenario's note, which was written without it ("Everything is green" over a service
// DOWN from an injected outage), and that the note comes back once the fault is cleared.
func TestCaptionSaysWhatWasInjected(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	fastForward(m, 3)
	m.Update(keyMsg("1"))
	fastForward(m, 1)
	caption := strings.Split(m.View(), "\n")[1]
	assert.Contains(t, caption, "outage injected since ")
	assert.Contains(t, caption, "connection refused, every attempt fails fast (1 clears it)")
	assert.NotContains(t, caption, "note at")
	m.Update(keyMsg("1"))
	fastForward(m, 1)
	assert.Contains(t, strings.Split(m.View(), "\n")[1], "note at", "the scenario's note again")
}

// Asserts that at 80 columns the footer says how to clear an injected fault, whatever the
// length of its effect's words (it read "...attempts above the rate answered 429); press
// again to" before), and that the event log keeps the whole effect.
func TestInjectSaysHowToClear(t *testing.T) {
	for _, k := range []string{"1", "3", "5"} {
		m, _ := newTestModel(t, 80, 24, "cortex")
		advanceFrames(m, 2)
		m.Update(keyMsg(k))
		lines := strings.Split(m.View(), "\n")
		assert.Contains(t, lines[len(lines)-1], "press again to clear", "key %s: %s", k, lines[len(lines)-1])
	}
}
