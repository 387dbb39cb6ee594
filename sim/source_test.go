package sim

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Asserts that Advance runs whole ticks and carries the fraction over, returns snapshots
// oldest first, and returns nil once the run is over.
func TestSourceAdvanceCarry(t *testing.T) {
	src, err := NewSource(testScenario(), "naive", 1)
	require.NoError(t, err)
	defer src.Close()
	tick := src.Meta().Tick
	assert.Empty(t, src.Advance(tick/4))
	assert.Empty(t, src.Advance(tick/4))
	assert.Empty(t, src.Advance(tick/4))
	got := src.Advance(tick / 4)
	require.Len(t, got, 1, "four quarters make one tick")
	assert.Equal(t, tick, got[0].T)
	got = src.Advance(3*tick + tick/2)
	require.Len(t, got, 3)
	assert.Equal(t, 2*tick, got[0].T)
	assert.Equal(t, 4*tick, got[2].T)
	assert.Len(t, src.Advance(tick/2), 1, "the carried half completes a tick")
	assert.Empty(t, src.Advance(-time.Second), "negative durations count as 0")

	all := src.Advance(time.Hour)
	require.NotEmpty(t, all)
	last := all[len(all)-1]
	assert.True(t, last.Done)
	assert.Equal(t, src.Meta().Total, last.T)
	assert.Nil(t, src.Advance(time.Second), "nil after the run is over")
}

// Asserts that the source and the sim agree: the same scenario, strategy and seed give the
// same snapshots through Advance as through Step.
func TestSourceMatchesSim(t *testing.T) {
	src, err := NewSource(withOutage(), "backoff", 4)
	require.NoError(t, err)
	s, err := New(withOutage(), "backoff", 4)
	require.NoError(t, err)
	want := stepAll(t, s)
	var got []source.Snapshot
	for {
		batch := src.Advance(730 * time.Millisecond)
		if batch == nil {
			break
		}
		got = append(got, batch...)
	}
	assert.Equal(t, want, got)
}

// Asserts that injected faults act at once and are logged, and that Clear and ClearAll end
// them (an outage's end starts the warm-up).
func TestSourceInjectAndClear(t *testing.T) {
	scn := testScenario()
	scn.Service.Warmup = 10 * time.Second
	src, err := NewSource(scn, "none", 1)
	require.NoError(t, err)
	src.Advance(time.Second)
	require.NoError(t, src.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultOutage})))
	snaps := src.Advance(time.Second)
	assert.Equal(t, source.ServiceDown, snaps[0].Service.State)
	require.Len(t, snaps[0].Faults, 1)
	assert.True(t, snaps[0].Faults[0].Injected)
	assert.Zero(t, snaps[0].Faults[0].Remaining, "until cleared")
	assert.True(t, hasEvent(snaps, source.EventFault, func(e source.Event) bool {
		f := e.Fault
		return f.Change == source.FaultStarted && f.Kind == scenarios.FaultOutage && f.Injected && f.Duration == 0
	}))

	require.NoError(t, src.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultLatency, Value: 0.1, Duration: 2 * time.Second})))
	snaps = src.Advance(time.Second)
	assert.Len(t, snaps[0].Faults, 2)
	require.NoError(t, src.Control(source.Clear(scenarios.FaultOutage)))
	snaps = src.Advance(time.Second)
	assert.Equal(t, source.ServiceWarming, snaps[0].Service.State)
	require.NoError(t, src.Control(source.ClearAll()))
	snaps = src.Advance(time.Second)
	assert.Empty(t, snaps[len(snaps)-1].Faults)

	require.NoError(t, src.Control(source.Inject(scenarios.Fault{Kind: "meteor"})), "refused as an event")
	snaps = src.Advance(time.Second)
	assert.True(t, hasEvent(snaps, source.EventFault, func(e source.Event) bool {
		return e.Fault.Change == source.FaultRefused && e.Fault.Kind == "meteor" && strings.Contains(e.Fault.Reason, "meteor")
	}), "an invalid fault is refused in the log")
}

// hasEvent reports whether one of the snapshots' events is of kind k and satisfies match.
func hasEvent(snaps []source.Snapshot, k source.EventKind, match func(source.Event) bool) bool {
	for _, s := range snaps {
		for _, e := range s.Events {
			if e.Kind == k && match(e) {
				return true
			}
		}
	}
	return false
}

// Asserts ControlClass: a share of 0 stops a class's arrivals, the priority changes, and bad
// values are errors naming the class.
func TestSourceSetClass(t *testing.T) {
	src, err := NewSource(testScenario(), "none", 1)
	require.NoError(t, err)
	require.NoError(t, src.Control(source.SetClass("analytics", 0, 3)))
	assert.Equal(t, 3, src.Meta().Classes[1].Priority)
	for _, s := range src.Advance(5 * time.Second) {
		assert.Zero(t, s.Classes[1].Arrived)
		assert.Equal(t, 3, s.Classes[1].Priority)
	}
	for _, c := range []struct {
		class string
		share float64
		prio  int
		want  string
	}{{"search", 1, 1, `no class "search"`}, {"payment", -1, 1, "share"}, {"payment", 1, 11, "priority"}} {
		err := src.Control(source.SetClass(c.class, c.share, c.prio))
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.want)
	}
}

// Asserts SetStrategy (the meta and the CORTEX view follow it; a bad name changes nothing),
// SetWeights and SetAdaptive on cortex, and Restart back to t = 0 with the same run.
func TestSourceStrategyWeightsRestart(t *testing.T) {
	src, err := NewSource(testScenario(), "naive", 1)
	require.NoError(t, err)
	first := src.Advance(2 * time.Second)
	require.Error(t, src.Control(source.SetStrategy("yolo")))
	assert.Equal(t, "naive", src.Meta().Strategy)
	require.NoError(t, src.Control(source.SetWeights(engine.Weights{F: 1})), "a no-op without cortex")
	require.NoError(t, src.Control(source.SetStrategy("cortex")))
	assert.Equal(t, "cortex", src.Meta().Strategy)
	snaps := src.Advance(time.Second)
	require.NotNil(t, snaps[0].Cortex)
	require.NoError(t, src.Control(source.SetWeights(engine.Weights{F: 1, L: 1, Q: 1, B: 1, C: 1})))
	require.NoError(t, src.Control(source.SetAdaptive(true)))
	snaps = src.Advance(time.Second)
	assert.InDelta(t, 0.2, snaps[0].Cortex.Weights.F, 1e-9, "renormalised")
	assert.True(t, snaps[0].Cortex.Adaptive)
	assert.Error(t, src.Control(source.SetWeights(engine.Weights{F: -1})))

	require.NoError(t, src.Control(source.Restart()))
	again := src.Advance(2 * time.Second)
	require.Len(t, again, len(first))
	assert.Equal(t, time.Duration(0)+src.Meta().Tick, again[0].T)
	assert.Equal(t, "cortex", src.Meta().Strategy, "restart keeps the strategy")
	for i := range again {
		assert.Equal(t, first[i].Counts.Originals, again[i].Counts.Originals, "same arrivals after restart")
	}
}

// Asserts that the source is safe for concurrent use: Advance from one goroutine while
// controls come from another (run with -race).
func TestSourceConcurrent(t *testing.T) {
	src, err := NewSource(testScenario(), "cortex", 1)
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 50 {
			src.Advance(200 * time.Millisecond)
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 50 {
			_ = src.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultErrors, Value: 0.5}))
			_ = src.Control(source.SetClass("payment", float64(i%3), 5))
			_ = src.Control(source.SetAdaptive(i%2 == 0))
			_ = src.Meta()
			_ = src.Control(source.ClearAll())
		}
	}()
	wg.Wait()
	assert.NoError(t, src.Close())
}
