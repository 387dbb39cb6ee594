package tui

import (
	"fmt"
	"sync"
	"sync/atomic"
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
)

// Asserts that a frame's budget on the wall clock allows steps until frameBudget has passed
// or maxFrameTicks steps were made, whichever comes first (a fake clock: no sleeping).
func TestFrameBudget(t *testing.T) {
	clock := engine.NewManualClock(time.Unix(0, 0))
	more := frameBudgetFrom(clock)
	assert.True(t, more(1))
	clock.Advance(frameBudget - time.Nanosecond)
	assert.True(t, more(maxFrameTicks-1))
	assert.False(t, more(maxFrameTicks), "at most maxFrameTicks steps")
	clock.Advance(time.Nanosecond)
	assert.False(t, more(1), "the budget is spent")
}

// countingSource counts the Advance calls a source gets and the virtual time it is asked for.
type countingSource struct {
	source.Source
	mu       sync.Mutex
	calls    int
	maxStep  time.Duration
	snapshot int
}

func (c *countingSource) Advance(d time.Duration) []source.Snapshot {
	out := c.Source.Advance(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.maxStep = max(c.maxStep, d)
	c.snapshot += len(out)
	return out
}

func (c *countingSource) counts() (calls int, maxStep time.Duration, snapshots int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls, c.maxStep, c.snapshot
}

// Asserts that an advance command steps every source by at most one tick per call, the same
// steps for both (compare stays in lockstep), and stops when the frame's budget says so, with
// slowed set: the rest of the frame's virtual time is dropped.
func TestAdvanceStepsWithinBudget(t *testing.T) {
	scn := fakeScenario() // 100 ms ticks
	tests := []struct {
		name      string
		d         time.Duration
		steps     int // the budget allows this many steps
		wantSnaps int
		slowed    bool
	}{
		{"x64 within the budget", 6400 * time.Millisecond, maxFrameTicks, 64, false},
		{"x64 cut after 10 steps", 6400 * time.Millisecond, 10, 10, true},
		{"x0.25: a fraction of a tick, carried over", 25 * time.Millisecond, maxFrameTicks, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := newFrameBudget
			t.Cleanup(func() { newFrameBudget = saved })
			newFrameBudget = func() func(int) bool { return func(n int) bool { return n < tt.steps } }
			a := &countingSource{Source: newFake(scn, "cortex", 1)}
			b := &countingSource{Source: newFake(scn, "naive", 1)}
			msg := advance([]source.Source{a, b}, tt.d, scn.Tick, 7)().(advancedMsg)
			assert.Equal(t, 7, msg.gen)
			assert.Equal(t, tt.slowed, msg.slowed)
			require.Len(t, msg.snaps, 2)
			for _, s := range []*countingSource{a, b} {
				calls, maxStep, snaps := s.counts()
				assert.LessOrEqual(t, maxStep, scn.Tick, "one tick at a time")
				assert.Equal(t, tt.wantSnaps, snaps)
				assert.Equal(t, max(tt.wantSnaps, 1), calls)
			}
			assert.Len(t, msg.snaps[0], tt.wantSnaps)
			assert.Len(t, msg.snaps[1], tt.wantSnaps)
		})
	}
}

// gateSource is a fake source whose Advance waits at a gate until the test opens it, standing
// for a tick that takes long. Every other call made while an Advance is under way is counted
// as a violation: it would have waited for the source's lock, and Update with it.
type gateSource struct {
	*fakeSource
	entered    chan struct{} // receives once per Advance that reached the gate
	gate       chan struct{} // closed by the test to let Advance through
	stepping   atomic.Bool
	violations atomic.Int32
}

func (g *gateSource) Advance(d time.Duration) []source.Snapshot {
	g.stepping.Store(true)
	defer g.stepping.Store(false)
	g.entered <- struct{}{}
	<-g.gate
	return g.fakeSource.Advance(d)
}

func (g *gateSource) check() {
	if g.stepping.Load() {
		g.violations.Add(1)
	}
}

func (g *gateSource) Meta() source.Meta                   { g.check(); return g.fakeSource.Meta() }
func (g *gateSource) Control(c source.ControlEvent) error { g.check(); return g.fakeSource.Control(c) }
func (g *gateSource) Close() error                        { g.check(); return g.fakeSource.Close() }

// Asserts that keys pressed while a frame is being stepped, however long that takes, are
// handled at once and never wait for the source: Update returns from each key with the
// dashboard's state changed (paused, the fault marked, the weight and the share moved) while
// the source's Advance is still blocked, no call reaches the source during it (the controls
// wait for the frame to return, not for the source's lock), and when the frame returns the
// controls are applied in order and the paused dashboard schedules no further tick.
func TestKeysDuringAHeavyFrame(t *testing.T) {
	scn := fakeScenario()
	g := &gateSource{fakeSource: newFake(scn, "cortex", 1), entered: make(chan struct{}, 1), gate: make(chan struct{})}
	factory := func(scenarios.Scenario, string, int64) (source.Source, error) { return g, nil }
	m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})

	cmd := m.onTick(tickMsg{tag: m.tag})
	require.NotNil(t, cmd, "the frame's stepping is a command, run off the Update loop")
	advanced := make(chan tea.Msg, 1)
	go func() { advanced <- cmd() }()
	<-g.entered // the frame is now stepping, and stays blocked until the gate opens

	weight := m.fr.weights[m.fr.selWeight]
	for _, k := range []string{"1", "s", "right", "]", "a", "0", "2", "space"} {
		m.Update(keyMsg(k))
	}
	assert.True(t, m.fr.paused, "space is handled at once")
	assert.Contains(t, m.View(), "paused")
	assert.True(t, m.injected[scenarios.FaultBlackhole], "2 is handled at once")
	assert.NotEqual(t, weight, m.fr.weights[m.fr.selWeight], "right is handled at once")
	assert.Equal(t, 1.25, m.fr.classes[m.fr.selClass].Share, "] is handled at once")
	assert.True(t, m.fr.adaptive, "a is handled at once")
	_, _, injected, _ := g.calls()
	assert.Empty(t, injected, "nothing reached the source while it stepped")
	assert.Zero(t, g.violations.Load())

	close(g.gate)
	_, next := m.Update(<-advanced)
	assert.Nil(t, next, "paused: no further tick")
	assert.Zero(t, g.violations.Load(), "no call reached the source while it stepped")
	_, _, injected, _ = g.calls()
	kinds := make([]scenarios.FaultKind, len(injected))
	for i, f := range injected {
		kinds[i] = f.Kind
	}
	assert.Equal(t, []scenarios.FaultKind{scenarios.FaultOutage, scenarios.FaultBlackhole}, kinds, "in order, after the frame")
	meta := g.Meta()
	assert.Equal(t, "cortex-article", meta.Strategy, "s applied after the frame")
	assert.Equal(t, 1.25, meta.Classes[m.fr.selClass].Share, "] applied after the frame")
	g.mu.Lock()
	defer g.mu.Unlock()
	assert.True(t, g.adaptive, "a applied after the frame")
	assert.NotEmpty(t, g.weightSet, "right applied after the frame")
	assert.Equal(t, 1, g.clearAlls, "0 applied after the frame")
}

// heaviest is a scenario at the limits the dashboard must stay usable on, and which the cost
// model accepts: 1,000 cortex clients, 64 classes, 1 ms ticks, 100,000 req/s into one worker
// behind a queue of a million attempts, for 30 s.
func heaviest() scenarios.Scenario {
	scn := scenarios.Defaults()
	scn.Name, scn.Summary = "heaviest", "the limits the dashboard accepts"
	scn.Duration, scn.Tick, scn.Clients = 30*time.Second, time.Millisecond, scenarios.MaxClients
	for i := range scenarios.MaxClasses {
		scn.Classes = append(scn.Classes, scenarios.Class{Name: fmt.Sprint("class-", i), Priority: i % 11, Rate: 100_000 / scenarios.MaxClasses})
	}
	scn.Service.Workers, scn.Service.ServiceTime, scn.Service.QueueLimit = 1, 100*time.Millisecond, scenarios.MaxQueueLimit
	return scn
}

// Asserts that on the heaviest scenario the cost model accepts, at the highest speed, a frame
// is stepped off the Update loop (Update on the tick returns before any Advance), never brings
// more than maxFrameTicks ticks (x64 asks for 6,400 of these 1 ms ticks), says the run is
// slowed, and that a key pressed after the heavy frame is handled by the very next Update.
func TestHeaviestAcceptedScenarioStaysResponsive(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	scn := heaviest()
	require.NoError(t, scn.Validate())
	require.NoError(t, sim.Estimate(scn).Check(sim.DefaultBudget), "the cost model accepts it")
	var src *countingSource
	factory := func(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
		s, err := sim.NewSource(scn, strat, seed)
		src = &countingSource{Source: s}
		return src, err
	}
	m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, ExportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.setSpeed(len(speeds) - 1)

	_, cmd := m.Update(tickMsg{tag: m.tag})
	require.NotNil(t, cmd)
	calls, _, _ := src.counts()
	assert.Zero(t, calls, "Update only starts the frame; the command steps it")
	msg := cmd().(advancedMsg)
	require.Len(t, msg.snaps, 1)
	assert.Len(t, msg.snaps[0], maxFrameTicks, "at most maxFrameTicks ticks in a frame")
	assert.True(t, msg.slowed)
	m.Update(msg)
	assert.Contains(t, m.View(), "(slowed)")

	m.Update(keyMsg("space"))
	assert.True(t, m.fr.paused, "the key after the heavy frame is handled at once")
	assert.Contains(t, m.View(), "paused")
}

// Asserts that a frame which did all its virtual time but overran its budget on the clock (one
// tick of a heavy scenario at x1) is reported as slowed, and one within it is not.
func TestAdvanceOverrunIsSlowed(t *testing.T) {
	scn := fakeScenario()
	for _, overran := range []bool{false, true} {
		saved := newFrameBudget
		newFrameBudget = func() func(int) bool {
			return func(n int) bool { return n < maxFrameTicks && !overran } // the clock, as the test says
		}
		msg := advance([]source.Source{newFake(scn, "cortex", 1)}, scn.Tick, scn.Tick, 1)().(advancedMsg)
		newFrameBudget = saved
		assert.Len(t, msg.snaps[0], 1, "the frame's one tick is done")
		assert.Equal(t, overran, msg.slowed)
	}
}
