package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// fleetFake is a live fake source whose engines are in a fleet: healthy until lost is set,
// then LOCAL with the store's error.
type fleetFake struct {
	*liveFake
	mu   sync.Mutex
	lost bool
}

var _ source.Fleet = (*fleetFake)(nil)

func (s *fleetFake) Fleet() *source.FleetMeta {
	return &source.FleetMeta{Name: "shop", Store: "redis://127.0.0.1:6379", Instance: "a"}
}

func (s *fleetFake) Advance(d time.Duration) []source.Snapshot {
	out := s.liveFake.Advance(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range out {
		cv := out[i].Cortex
		if cv == nil {
			continue
		}
		h := &source.FleetHealth{Joint: 20, Engines: 20, LocalCPS: cv.CPS / 2, Age: 120 * time.Millisecond,
			Instances: 3, F: 0.25, Burn: 0.4, Held: 31, Syncs: 1234, Failures: 0, Repaired: 2}
		if s.lost {
			h.Joint, h.Age, h.Failures = 0, 2100*time.Millisecond, 17
			h.LastError = "redisstore: sync of a: dial tcp 127.0.0.1:6379: connect: connection refused\x1b[2J"
		}
		cv.Fleet = h
	}
	return out
}

// Asserts the fleet panel: a run in a fleet shows it between the decisions and the events
// with the fleet's and the local CPS side by side, FLEET, the view's age, the members (one per
// process), the syncs and the bad values the store repaired (as reviewed in the golden file); when the store fails it says LOCAL and shows the
// error, made inert; a run alone has no fleet panel (the other goldens).
func TestFleetPanel(t *testing.T) {
	var made *fleetFake
	factory := func(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
		made = &fleetFake{liveFake: &liveFake{fakeSource: newFake(scn, strat, seed)}}
		return made, nil
	}
	scn := fakeScenario()
	m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, Strategy: "cortex", ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 30)
	view := m.View()
	assert.Contains(t, view, "Fleet shop · FLEET")
	assert.Contains(t, view, "fleet │")
	assert.Contains(t, view, "3 members, 20 engines")
	assert.Contains(t, view, "2 bad values repaired", "the bad values the store repaired")
	golden.RequireEqual(t, view)

	made.mu.Lock()
	made.lost = true
	made.mu.Unlock()
	advanceFrames(m, 3)
	view = m.View()
	assert.Contains(t, view, "Fleet shop · LOCAL")
	assert.Contains(t, view, "17 failed")
	assert.Contains(t, view, "refused")
	require.NotContains(t, view, "\x1b[2J", "the store's error is made inert")
	for _, l := range strings.Split(view, "\n") {
		assert.LessOrEqual(t, len([]rune(l)), 140)
	}
}

// Asserts that the fleet panel gives way in a narrow window: at 80 columns the events keep
// their room and no fleet panel is drawn; at 100 it is.
func TestFleetPanelWidth(t *testing.T) {
	for _, c := range []struct {
		w    int
		want bool
	}{{80, false}, {100, true}, {250, true}} {
		factory := func(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
			return &fleetFake{liveFake: &liveFake{fakeSource: newFake(scn, strat, seed)}}, nil
		}
		scn := fakeScenario()
		m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, Strategy: "cortex", ExportDir: t.TempDir()})
		m.Update(tea.WindowSizeMsg{Width: c.w, Height: 30})
		advanceFrames(m, 5)
		assert.Equal(t, c.want, strings.Contains(m.View(), "Fleet shop"), "width %d", c.w)
	}
}
