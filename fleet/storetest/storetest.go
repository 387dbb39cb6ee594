// Package storetest is the one test suite every fleet store passes: fleet.Memory in package
// fleet's tests, the Redis store in package redisstore's, against a real redis-server. A store
// package calls Run with a Harness that builds its stores and, where it can, makes them fail.
package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
)

// Harness is what the suite needs of a store.
type Harness struct {
	// New returns a store of the fleet called name with opts. Each case uses its own names, so
	// a harness may keep one backend (one Redis) for the whole suite.
	New func(t *testing.T, name string, opts fleet.Options) fleet.Store
	// Clock is the store's clock.
	Clock engine.Clock
	// Wait lets d of the store's time pass: a manual clock advances, real time sleeps.
	Wait func(d time.Duration)
	// Kill makes every store of the harness fail (Redis: the server is killed); Restart brings
	// the backend back empty (Redis: a new server on the same port, no persistence).
	Kill, Restart func(t *testing.T)
	// Stall makes the backend hang for a while (Redis: CLIENT PAUSE); the function it returns
	// waits for the stall to end.
	Stall func(t *testing.T) (wait func())
}

// patience bounds the syncs of the cases that do not make the store fail: far more than a
// loaded machine takes, so that only a store that hangs misses it.
const patience = 20 * time.Second

// Run runs every case of the suite against h's stores.
func Run(t *testing.T, h Harness) {
	t.Run("SameFailureRate", func(t *testing.T) { sameFailureRate(t, h) })
	t.Run("BucketBound", func(t *testing.T) { bucketBound(t, h) })
	t.Run("EarnedRefill", func(t *testing.T) { earnedRefill(t, h) })
	t.Run("SuccessBonus", func(t *testing.T) { successBonus(t, h) })
	t.Run("LeaseReturnAndExpiry", func(t *testing.T) { leaseReturnAndExpiry(t, h) })
	t.Run("WindowExpires", func(t *testing.T) { windowExpires(t, h) })
	t.Run("FleetsDoNotMix", func(t *testing.T) { fleetsDoNotMix(t, h) })
	t.Run("Outage", func(t *testing.T) { outage(t, h) })
	t.Run("Stall", func(t *testing.T) { stall(t, h) })
	t.Run("ConfigRefused", func(t *testing.T) { configRefused(t, h) })
	t.Run("DuplicateRefused", func(t *testing.T) { duplicateRefused(t, h) })
	t.Run("LeaveReturnsLease", func(t *testing.T) { leaveReturnsLease(t, h) })
	t.Run("OneMemberManyEngines", func(t *testing.T) { oneMemberManyEngines(t, h) })
	t.Run("BoundedReport", func(t *testing.T) { boundedReport(t, h) })
	t.Run("RestartForfeitsLeases", func(t *testing.T) { restartForfeitsLeases(t, h) })
}

// newEngine returns a fleet member's engine on its own manual clock (engine time only ages its
// fleet view), with a fixed baseline so that L is defined from the start.
func newEngine(t *testing.T, seed int64) *engine.Engine {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Clock = engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cfg.Seed = seed
	cfg.BaselineLatency = 20 * time.Millisecond
	cfg.Fleet = engine.DefaultFleetConfig()
	e, err := engine.New(cfg)
	require.NoError(t, err)
	return e
}

// members builds n engines syncing with store, named i0..i(n-1).
func members(t *testing.T, store fleet.Store, n int, timeout time.Duration) []*fleet.Member {
	t.Helper()
	ms := make([]*fleet.Member, n)
	for i := range ms {
		m, err := fleet.NewMember([]*engine.Engine{newEngine(t, int64(i+1))}, store, fleet.MemberConfig{Instance: fmt.Sprintf("i%d", i), Timeout: timeout})
		require.NoError(t, err)
		ms[i] = m
	}
	return ms
}

// round syncs every member once, all at the same time, and returns their errors.
func round(ms []*fleet.Member) []error {
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() { errs[i] = m.Sync(context.Background()) })
	}
	wg.Wait()
	return errs
}

// Asserts that two and five engines, each seeing its own share of the outcomes, all read the
// same fleet failure rate once each has synced once after the outcomes were published (one
// sync interval), and that it is the rate over every engine's outcomes.
func sameFailureRate(t *testing.T, h Harness) {
	for _, n := range []int{2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			store := h.New(t, fmt.Sprintf("same-f-%d", n), fleet.Options{Budget: fleet.Budget{Capacity: 100, RefillRate: 10}})
			ms := members(t, store, n, patience)
			var ok, failed uint64
			for i, m := range ms {
				for range 10 {
					m.Engine().RecordSuccess(20 * time.Millisecond)
				}
				for range 2 * i {
					m.Engine().RecordFailure(20 * time.Millisecond)
				}
				ok, failed = ok+10, failed+uint64(2*i)
			}
			local := ms[len(ms)-1].Engine().Snapshot().Signals.F
			require.NotZero(t, local)
			for _, err := range round(ms) { // publishes every engine's outcomes
				require.NoError(t, err)
			}
			for _, err := range round(ms) { // one interval later: every engine reads them all
				require.NoError(t, err)
			}
			want := float64(failed) / float64(ok+failed)
			for i, m := range ms {
				s := m.Engine().Snapshot()
				assert.Equal(t, engine.FleetJoint, s.Fleet, "engine %d", i)
				assert.InDelta(t, want, s.Signals.F, 1e-12, "engine %d", i)
				assert.Equal(t, n, m.Engine().FleetStatus().Instances, "engine %d", i)
			}
			assert.NotEqual(t, local, want, "the fleet's F is not the last engine's own")
		})
	}
}

// Asserts that under many concurrent spenders, each asking for tokens at every sync and
// spending all it gets, the tokens granted never exceed the capacity plus the refill over the
// time the spending took, and that the bucket did pay out all of its capacity.
func bucketBound(t *testing.T, h Harness) {
	const (
		spenders = 8
		syncs    = 40
		capacity = 50.0
		rate     = 200.0
	)
	store := h.New(t, "bound", fleet.Options{Budget: fleet.Budget{Capacity: capacity, RefillRate: rate}})
	start := h.Clock.Now()
	var mu sync.Mutex
	granted := 0.0
	var errs atomic.Int64
	var wg sync.WaitGroup
	for i := range spenders {
		wg.Go(func() {
			name := fmt.Sprintf("spender-%d", i)
			r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second}
			var v engine.FleetView
			for range syncs {
				r.Want = 5
				if err := store.Sync(context.Background(), name, &r, &v); err != nil {
					errs.Add(1)
					continue
				}
				r.Spent = v.Granted // everything granted is spent before the next sync
				mu.Lock()
				granted += v.Granted
				mu.Unlock()
				h.Wait(time.Millisecond)
			}
		})
	}
	wg.Wait()
	elapsed := h.Clock.Now().Sub(start)
	require.Zero(t, errs.Load())
	bound := capacity + rate*elapsed.Seconds()
	t.Logf("granted %.1f tokens in %s, bound %.1f", granted, elapsed, bound)
	assert.LessOrEqual(t, granted, bound+1e-6)
	assert.GreaterOrEqual(t, granted, capacity, "the spenders emptied the bucket")
}

// Asserts the earned refill: a fleet whose requests all fail refills nothing, and reported
// successes earn refill again.
func earnedRefill(t *testing.T, h Harness) {
	store := h.New(t, "earned", fleet.Options{Budget: fleet.Budget{Capacity: 10, RefillRate: 1000, RefillPerSuccess: 1}})
	r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Want: 10}
	var v engine.FleetView
	require.NoError(t, store.Sync(context.Background(), "a", &r, &v))
	assert.Equal(t, 10.0, v.Granted, "a new bucket is full")
	total := 0.0
	r.Spent, r.Want, r.Counts = 10, 10, engine.FleetCounts{Failures: 100}
	for range 5 {
		h.Wait(10 * time.Millisecond)
		require.NoError(t, store.Sync(context.Background(), "a", &r, &v))
		total += v.Granted
		r.Spent, r.Counts = v.Granted, engine.FleetCounts{Failures: 100}
	}
	assert.Zero(t, total, "nothing succeeded: nothing refilled")
	r.Counts, r.Earned = engine.FleetCounts{Successes: 3}, 3
	require.NoError(t, store.Sync(context.Background(), "a", &r, &v)) // banks 3 tokens of credit
	r.Counts, r.Earned, r.Spent = engine.FleetCounts{}, 0, v.Granted
	h.Wait(100 * time.Millisecond) // the rate allows 100: the credit (3) is the limit
	require.NoError(t, store.Sync(context.Background(), "a", &r, &v))
	assert.InDelta(t, 3.0, v.Granted, 1e-9)
}

// Asserts the success bonus: each reported success puts SuccessBonus tokens into the bucket,
// never above the capacity.
func successBonus(t *testing.T, h Harness) {
	store := h.New(t, "bonus", fleet.Options{Budget: fleet.Budget{Capacity: 20, SuccessBonus: 5}})
	r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Want: 20}
	var v engine.FleetView
	require.NoError(t, store.Sync(context.Background(), "a", &r, &v))
	require.Equal(t, 20.0, v.Granted)
	r = engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Spent: 20, Counts: engine.FleetCounts{Successes: 2}}
	require.NoError(t, store.Sync(context.Background(), "a", &r, &v))
	assert.Equal(t, 10.0, v.Tokens, "2 successes x 5")
	r = engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Counts: engine.FleetCounts{Successes: 100}}
	require.NoError(t, store.Sync(context.Background(), "a", &r, &v))
	assert.Equal(t, 20.0, v.Tokens, "never above the capacity")
}

// Asserts that returned tokens go back to the bucket, that the leased total follows what each
// instance holds, and that a silent instance's lease is reclaimed after the expiry without
// being refunded.
func leaseReturnAndExpiry(t *testing.T, h Harness) {
	store := h.New(t, "lease", fleet.Options{Budget: fleet.Budget{Capacity: 20}, Expiry: 300 * time.Millisecond})
	var v engine.FleetView
	a := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Want: 10}
	require.NoError(t, store.Sync(context.Background(), "a", &a, &v))
	require.Equal(t, 10.0, v.Granted)
	assert.Equal(t, 10.0, v.Tokens)
	assert.Equal(t, 10.0, v.Leased)

	a = engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Held: 4, Return: 4, Spent: 2}
	require.NoError(t, store.Sync(context.Background(), "a", &a, &v))
	assert.Equal(t, 14.0, v.Tokens, "4 returned")
	assert.Equal(t, 4.0, v.Leased, "a holds 4")
	assert.Equal(t, 20.0-2, v.Tokens+v.Leased, "the 2 spent are gone")

	h.Wait(500 * time.Millisecond) // a goes silent past the expiry
	b := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Want: 1}
	require.NoError(t, store.Sync(context.Background(), "b", &b, &v))
	assert.Equal(t, 1, v.Instances, "a is no longer a member")
	assert.Equal(t, 1.0, v.Leased, "a's lease reclaimed, b holds 1")
	assert.Equal(t, 13.0, v.Tokens, "a's 4 not refunded")
}

// Asserts that outcomes leave the short span after Horizon and the long span after Window.
func windowExpires(t *testing.T, h Harness) {
	store := h.New(t, "window", fleet.Options{})
	// Start 50 ms into a second of the store's clock, so that each wait below crosses exactly
	// one second boundary.
	h.Wait(time.Second - time.Duration(h.Clock.Now().UnixNano()%int64(time.Second)) + 50*time.Millisecond)
	var v engine.FleetView
	r := engine.FleetReport{Window: 2 * time.Second, Horizon: time.Second, Counts: engine.FleetCounts{Successes: 3, Failures: 1}}
	r.Latency.Counts[10], r.Latency.Sums[10] = 4, 4*300_000
	require.NoError(t, store.Sync(context.Background(), "a", &r, &v))
	assert.Equal(t, r.Counts, v.Short)
	assert.Equal(t, r.Counts, v.Long)
	assert.Equal(t, uint64(4), v.ShortLatency.Counts[10])
	assert.Equal(t, uint64(1_200_000), v.ShortLatency.Sums[10])

	empty := engine.FleetReport{Window: 2 * time.Second, Horizon: time.Second}
	h.Wait(time.Second)
	require.NoError(t, store.Sync(context.Background(), "a", &empty, &v))
	assert.Equal(t, engine.FleetCounts{}, v.Short, "past the horizon")
	assert.Equal(t, r.Counts, v.Long, "still in the window")
	h.Wait(time.Second)
	require.NoError(t, store.Sync(context.Background(), "a", &empty, &v))
	assert.Equal(t, engine.FleetCounts{}, v.Long, "past the window")
}

// Asserts that two fleets on one backend share neither outcomes nor tokens.
func fleetsDoNotMix(t *testing.T, h Harness) {
	opts := fleet.Options{Budget: fleet.Budget{Capacity: 10}}
	one, two := h.New(t, "mix-one", opts), h.New(t, "mix-two", opts)
	var v engine.FleetView
	r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Counts: engine.FleetCounts{Failures: 7}, Want: 10}
	require.NoError(t, one.Sync(context.Background(), "a", &r, &v))
	require.Equal(t, 10.0, v.Granted)
	r = engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Want: 10}
	require.NoError(t, two.Sync(context.Background(), "a", &r, &v))
	assert.Equal(t, engine.FleetCounts{}, v.Short)
	assert.Equal(t, 10.0, v.Granted, "a full bucket of its own")
}

// storeFunc is a fleet.Store made of a function.
type storeFunc func(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error

func (f storeFunc) Sync(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error {
	return f(ctx, inst, r, v)
}

// report returns an empty report of the suite's spans (a minute, 5 s) from the instance that
// joined with token.
func report(token uint64) engine.FleetReport {
	return engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Token: token}
}

// Asserts that a fleet has one configuration while it has members: an instance whose spans
// differ is refused with ErrRefused naming what the fleet runs, and takes the fleet over once
// its members have left.
func configRefused(t *testing.T, h Harness) {
	store := h.New(t, "config", fleet.Options{Budget: fleet.Budget{Capacity: 10}, Config: "cortex"})
	var v engine.FleetView
	a := report(1)
	require.NoError(t, store.Sync(context.Background(), "a", &a, &v))
	b := report(2)
	b.Window = 30 * time.Second
	err := store.Sync(context.Background(), "b", &b, &v)
	require.ErrorIs(t, err, fleet.ErrRefused)
	var re *fleet.RefusedError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, fleet.RefusedConfig, re.Reason)
	assert.Contains(t, err.Error(), `"cortex": capacity 10`)
	assert.Contains(t, err.Error(), "60s", "the fleet's own spans")

	a.Leave = true
	require.NoError(t, store.Sync(context.Background(), "a", &a, &v))
	require.NoError(t, store.Sync(context.Background(), "b", &b, &v), "an empty fleet takes the new configuration")
	assert.Equal(t, 1, v.Instances)
}

// Asserts that two instances of one name (another token) cannot both be members: the second is
// refused while the first syncs, and may join once the first has left.
func duplicateRefused(t *testing.T, h Harness) {
	store := h.New(t, "dup", fleet.Options{Budget: fleet.Budget{Capacity: 10}})
	var v engine.FleetView
	one, two := report(11), report(12)
	require.NoError(t, store.Sync(context.Background(), "web", &one, &v))
	require.NoError(t, store.Sync(context.Background(), "web", &one, &v), "the same instance again")
	err := store.Sync(context.Background(), "web", &two, &v)
	var re *fleet.RefusedError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, fleet.RefusedDuplicate, re.Reason)
	assert.Equal(t, 1, func() int { require.NoError(t, store.Sync(context.Background(), "web", &one, &v)); return v.Instances }())
	one.Leave = true
	require.NoError(t, store.Sync(context.Background(), "web", &one, &v))
	require.NoError(t, store.Sync(context.Background(), "web", &two, &v), "the name is free once its holder left")
}

// Asserts that a member that leaves hands its whole lease back at once: the tokens are free in
// the bucket again, nothing stays leased, and the instance is no longer counted.
func leaveReturnsLease(t *testing.T, h Harness) {
	store := h.New(t, "leave", fleet.Options{Budget: fleet.Budget{Capacity: 20}})
	ms := members(t, store, 2, patience)
	for _, m := range ms {
		m.Engine().ShouldRetry(10, 0, true) // refused for want of a lease: the next sync asks
	}
	for range 2 {
		for _, err := range round(ms) {
			require.NoError(t, err)
		}
	}
	require.Positive(t, ms[0].Held())
	require.Positive(t, ms[1].Held())
	require.NoError(t, ms[0].Leave(context.Background()))
	assert.Zero(t, ms[0].Held(), "its lease went back")
	require.NoError(t, ms[1].Sync(context.Background()))
	s := ms[1].Engine().FleetStatus()
	assert.Equal(t, 1, s.Instances, "the member that left is not counted")
	var v engine.FleetView
	r := report(99)
	require.NoError(t, store.Sync(context.Background(), "probe", &r, &v))
	assert.InDelta(t, ms[1].Held(), v.Leased, 1e-9, "only the member that stayed holds a lease")
	assert.InDelta(t, 20, v.Tokens+v.Leased, 1e-9, "every token is back in circulation")
}

// Asserts one member per process: three engines sharing one pool sync as one instance, their
// outcomes summed into one report, the fleet's view applied to each, the lease held once.
func oneMemberManyEngines(t *testing.T, h Harness) {
	store := h.New(t, "process", fleet.Options{Budget: fleet.Budget{Capacity: 50, RefillRate: 10}})
	pool := engine.NewFleetPool()
	var es []*engine.Engine
	for i := range 3 {
		cfg := engine.DefaultConfig()
		cfg.Clock = engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		cfg.Seed = int64(i + 1)
		cfg.BaselineLatency = 20 * time.Millisecond
		cfg.Fleet = engine.DefaultFleetConfig()
		cfg.Fleet.Pool = pool
		e, err := engine.New(cfg)
		require.NoError(t, err)
		es = append(es, e)
	}
	m, err := fleet.NewMember(es, store, fleet.MemberConfig{Instance: "proc", Timeout: patience})
	require.NoError(t, err)
	for i, e := range es {
		e.RecordSuccess(20 * time.Millisecond)
		for range i {
			e.RecordFailure(20 * time.Millisecond)
		}
		e.ShouldRetry(10, 0, true)
	}
	require.NoError(t, m.Sync(context.Background()))
	require.NoError(t, m.Sync(context.Background()))
	for i, e := range es {
		s := e.Snapshot()
		assert.Equal(t, engine.FleetJoint, s.Fleet, "engine %d", i)
		assert.Equal(t, 1, e.FleetStatus().Instances, "one instance for the process")
	}
	assert.InDelta(t, 0.5, es[0].FleetStatus().F, 1e-9, "3 failures of 6 outcomes, summed")
	held := m.Held()
	require.Positive(t, held)
	require.Equal(t, engine.Retry, es[2].ShouldRetry(10, 0, true).Action, "any engine spends from the pool")
	assert.InDelta(t, held-1, pool.Held(), 1e-9)
	var v engine.FleetView
	r := report(5)
	require.NoError(t, store.Sync(context.Background(), "probe", &r, &v))
	assert.InDelta(t, held, v.Leased, 1e-9, "the process holds one lease")
	_, err = fleet.NewMember([]*engine.Engine{es[0], newEngine(t, 9)}, store, fleet.MemberConfig{Instance: "x"})
	assert.ErrorContains(t, err, "Pool")
}

// Asserts bounded influence: an instance that lies cannot put more tokens in circulation than
// the capacity (holding or returning more than it was granted), nor report more outcomes than
// Options.MaxRate per second of its syncs.
func boundedReport(t *testing.T, h Harness) {
	store := h.New(t, "liar", fleet.Options{Budget: fleet.Budget{Capacity: 10}, MaxRate: 100})
	var v engine.FleetView
	r := report(7)
	r.Want = 4
	require.NoError(t, store.Sync(context.Background(), "liar", &r, &v))
	require.Equal(t, 4.0, v.Granted)
	r = report(7)
	r.Held, r.Return, r.Spent = 1000, 1000, 1000
	r.Counts = engine.FleetCounts{Successes: 1e9, Failures: 1e9, Timeouts: 1e9}
	require.NoError(t, store.Sync(context.Background(), "liar", &r, &v))
	assert.LessOrEqual(t, v.Tokens+v.Leased, 10.0+1e-9, "never more tokens than the capacity")
	assert.LessOrEqual(t, v.Held, 4.0, "it holds at most what it was granted")
	assert.LessOrEqual(t, v.Short.Successes+v.Short.Failures, uint64(2*200+1), "at most MaxRate per second, over at most 2 s")
	assert.Positive(t, v.Short.Failures)
}
