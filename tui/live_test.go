package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// liveFake is a fake source that says it is live traffic and records SetPaused.
type liveFake struct {
	*fakeSource
	mu     sync.Mutex
	pauses []bool
}

var _ source.Pauser = (*liveFake)(nil)

func (s *liveFake) Meta() source.Meta {
	m := s.fakeSource.Meta()
	m.Live = true
	return m
}

func (s *liveFake) SetPaused(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pauses = append(s.pauses, on)
}

func (s *liveFake) paused() []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]bool(nil), s.pauses...)
}

// Asserts what the dashboard does differently on live traffic: the header says LIVE instead of
// a speed, the footer leaves the speed keys out, the speed and step keys explain that they do not apply and change nothing, and
// pause (and the picker) pause the source itself, which sends traffic on its own.
func TestLiveSource(t *testing.T) {
	var made []*liveFake
	factory := func(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
		s := &liveFake{fakeSource: newFake(scn, strat, seed)}
		made = append(made, s)
		return s, nil
	}
	scn := fakeScenario()
	m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, Strategy: "cortex", ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 3)
	require.Len(t, made, 1)
	lines := strings.Split(m.View(), "\n")
	assert.Contains(t, lines[0], "LIVE")
	assert.NotContains(t, lines[0], "x1")
	footer := lines[len(lines)-1]
	assert.Contains(t, footer, "pause")
	assert.NotContains(t, footer, "speed up", "the speed keys are left out of the footer")

	speed := m.fr.speed
	m.Update(keyMsg("+"))
	assert.Equal(t, speed, m.fr.speed, "no speed on live traffic")
	assert.Contains(t, m.View(), "real time")
	m.Update(keyMsg("space"))
	m.Update(keyMsg("."))
	assert.Contains(t, m.View(), "real time")

	m.Update(keyMsg("space"))
	m.Update(keyMsg("l"))
	if _, cmd := m.Update(keyMsg("esc")); cmd != nil {
		m.Update(cmd()) // the picker's cancel
	}
	assert.Equal(t, []bool{true, false, true, false}, made[0].paused(), "pause, resume, picker open, picker closed")
}

// Asserts that the full help (?) agrees with the footer: on live traffic it leaves out the
// speed and step keys and keeps the others; on a simulated run it lists them.
func TestLiveHelpScreen(t *testing.T) {
	for _, live := range []bool{true, false} {
		factory := func(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
			if live {
				return &liveFake{fakeSource: newFake(scn, strat, seed)}, nil
			}
			return newFake(scn, strat, seed), nil
		}
		scn := fakeScenario()
		m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, Strategy: "cortex", ExportDir: t.TempDir()})
		m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
		advanceFrames(m, 2)
		m.Update(keyMsg("?"))
		view := m.View()
		require.Contains(t, view, "Help")
		assert.Contains(t, view, "pause / resume")
		assert.Contains(t, view, "restart the scenario")
		for _, gone := range []string{"speed up", "slow down", "one tick forward"} {
			if live {
				assert.NotContains(t, view, gone, "live: not in the help, as not in the footer")
			} else {
				assert.Contains(t, view, gone, "simulated: in the help")
			}
		}
	}
}

// hostileFake is a live fake source whose attempts fail against a hostile --target: every tick
// counts failures by cause, and the first tells what the target does (an EventTarget).
type hostileFake struct {
	*liveFake
	told bool
}

func (s *hostileFake) Advance(d time.Duration) []source.Snapshot {
	snaps := s.liveFake.Advance(d)
	for i := range snaps {
		snaps[i].Counts.FailureCauses[source.FailOversize] = 30
		snaps[i].Counts.FailureCauses[source.FailTimeout] = 2
		if !s.told {
			s.told = true
			snaps[i].Events = append(snaps[i].Events, source.Event{T: snaps[i].T, Kind: source.EventTarget,
				Text: "the target sends more than 64 KiB of response headers, which the proxy does not read past: attempts fail as 'oversize headers'"})
		}
	}
	return snaps
}

// Asserts that the dashboard says why a live run's attempts fail: the traffic panel gives the
// run's failures by cause, the most frequent first, on a line of its own under its legend
// (the panel keeps its size), and the event log tells once what the target does, as a
// "target" event; at 140x40 and at 80x24, where the line is cut to its width.
func TestLiveFailureCauses(t *testing.T) {
	factory := func(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
		return &hostileFake{liveFake: &liveFake{fakeSource: newFake(scn, strat, seed)}}, nil
	}
	scn := fakeScenario()
	for _, size := range [][2]int{{140, 40}, {80, 24}} {
		m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, Strategy: "cortex", ExportDir: t.TempDir()})
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		advanceFrames(m, 3)
		view := m.View()
		lines := strings.Split(view, "\n")
		require.Len(t, lines, size[1])
		for _, l := range lines {
			assert.LessOrEqual(t, ansi.StringWidth(l), size[0])
		}
		assert.Regexp(t, `failed: [0-9]+ oversize headers · [0-9]+ t`, view, "%dx%d", size[0], size[1])
		assert.Contains(t, view, "target  the target sends more tha")
	}
}
