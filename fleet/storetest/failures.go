package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
)

// The cases of a store that fails: a backend killed, stalled or restarted empty.

// Asserts the fallback: when the store dies, the next sync fails and the engine reads its local
// view at once (and its decisions go on, on its own budget); when the store comes back empty,
// the next sync rejoins it, and the outcomes recorded meanwhile are published then.
func outage(t *testing.T, h Harness) {
	if h.Kill == nil {
		t.Skip("the harness cannot kill its store")
	}
	store := h.New(t, "outage", fleet.Options{Budget: fleet.Budget{Capacity: 100, RefillRate: 10}})
	ms := members(t, store, 2, patience)
	for _, m := range ms {
		m.Engine().RecordFailure(20 * time.Millisecond)
	}
	for _, err := range round(ms) {
		require.NoError(t, err)
	}
	e := ms[0].Engine()
	require.Equal(t, engine.FleetJoint, e.Snapshot().Fleet)

	h.Kill(t)
	e.RecordSuccess(20 * time.Millisecond)
	e.RecordSuccess(20 * time.Millisecond)
	require.Error(t, ms[0].Sync(context.Background()))
	s := e.Snapshot()
	assert.Equal(t, engine.FleetLocal, s.Fleet, "local at the first failed sync")
	assert.InDelta(t, 1.0/3, s.Signals.F, 1e-12, "the engine's own F")
	assert.False(t, ms[0].Status().Healthy)
	assert.NotEmpty(t, ms[0].Status().LastError)
	assert.Equal(t, engine.Retry, e.ShouldRetry(10, 0, true).Action, "decisions go on, on the local budget")

	h.Restart(t)
	require.NoError(t, ms[0].Sync(context.Background()))
	s = e.Snapshot()
	assert.Equal(t, engine.FleetJoint, s.Fleet, "rejoined")
	assert.InDelta(t, 0, e.FleetStatus().F, 1e-12, "the empty store holds the two successes published since")
	assert.InDelta(t, 1.0/3-engine.DefaultEnvelope, s.Signals.F, 1e-12, "the fleet's F within the envelope of the engine's own")
	assert.True(t, ms[0].Status().Healthy)
}

// Asserts that a stalled store never holds a decision: while a sync waits on the store,
// decisions go on; the sync then fails on its timeout (the store held it until its deadline),
// the engine falls back to its local view, and rejoins at the next sync once the store answers
// again. The stalled sync's answer is held back until the decisions are made, so that a slow
// machine cannot end the sync first; decisions that wait on the sync fail the case.
func stall(t *testing.T, h Harness) {
	if h.Stall == nil {
		t.Skip("the harness cannot stall its store")
	}
	inner := h.New(t, "stall", fleet.Options{Budget: fleet.Budget{Capacity: 100, RefillRate: 10}})
	entered := make(chan struct{}, 4)
	var mu sync.Mutex
	gate := make(chan struct{}) // closed: syncs answer at once
	close(gate)
	deadlined := false // the last sync ran until its deadline
	store := storeFunc(func(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error {
		entered <- struct{}{}
		err := inner.Sync(ctx, inst, r, v)
		mu.Lock()
		g := gate
		dl, ok := ctx.Deadline()
		deadlined = ok && !time.Now().Before(dl)
		mu.Unlock()
		<-g
		return err
	})
	m := members(t, store, 1, 300*time.Millisecond)[0]
	require.NoError(t, m.Sync(context.Background()))
	<-entered
	e := m.Engine()

	wait := h.Stall(t)
	mu.Lock()
	gate = make(chan struct{})
	release := gate
	mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- m.Sync(context.Background()) }()
	<-entered
	decided := make(chan struct{})
	go func() {
		defer close(decided)
		for i := range 1000 {
			e.RecordSuccess(20 * time.Millisecond)
			_ = e.ShouldRetry(i%11, 0, true)
		}
	}()
	select {
	case <-decided:
	case <-time.After(patience):
		close(release)
		t.Fatalf("1000 decisions took over %s while a sync waited on the store: they wait for it", patience)
	}
	close(release)
	err := <-done
	require.Error(t, err, "the sync gives up on its timeout")
	mu.Lock()
	assert.True(t, deadlined, "the store held the sync until its deadline: %v", err)
	mu.Unlock()
	assert.Equal(t, engine.FleetLocal, e.Snapshot().Fleet)
	wait()
	require.NoError(t, m.Sync(context.Background()))
	<-entered
	assert.Equal(t, engine.FleetJoint, e.Snapshot().Fleet)
}

// Asserts that a store restarted empty does not count the leases the engines held before: the
// tokens they held are dropped from their leases, so the fleet never has more tokens in
// circulation than its capacity.
func restartForfeitsLeases(t *testing.T, h Harness) {
	if h.Kill == nil {
		t.Skip("the harness cannot restart its store")
	}
	store := h.New(t, "restart", fleet.Options{Budget: fleet.Budget{Capacity: 30}})
	ms := members(t, store, 3, patience)
	for _, m := range ms {
		m.Engine().ShouldRetry(10, 0, true)
	}
	for range 2 {
		for _, err := range round(ms) {
			require.NoError(t, err)
		}
	}
	before := 0.0
	for _, m := range ms {
		before += m.Held()
	}
	require.Positive(t, before)
	h.Kill(t)
	h.Restart(t)
	for _, err := range round(ms) {
		require.NoError(t, err)
	}
	held := 0.0
	for _, m := range ms {
		held += m.Held()
	}
	var v engine.FleetView
	r := report(77)
	require.NoError(t, store.Sync(context.Background(), "probe", &r, &v))
	assert.LessOrEqual(t, held, v.Leased+1e-9, "the engines hold no token the store does not count")
	assert.LessOrEqual(t, v.Tokens+v.Leased, 30.0+1e-9)
}
