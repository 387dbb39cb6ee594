package engine

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inFleet is a mutate for newTestEngine that switches the fleet membership on.
func inFleet(c *Config) { c.Fleet = DefaultFleetConfig() }

// viewOf returns a fleet view with the given short-span outcomes (all at latency lat), the same
// outcomes over the window, and a bucket of capacity tokens, free tokens free and granted.
func viewOf(successes, failures uint64, lat time.Duration, capacity, free, granted float64) FleetView {
	v := FleetView{
		Short:     FleetCounts{Successes: successes, Failures: failures},
		Long:      FleetCounts{Successes: successes, Failures: failures},
		Instances: 3,
		Capacity:  capacity,
		Tokens:    free,
		Granted:   granted,
	}
	i := binOf(int64(lat))
	v.ShortLatency.Counts[i] = successes + failures
	v.ShortLatency.Sums[i] = (successes + failures) * uint64(lat)
	return v
}

// Asserts that an engine without a fleet publishes nothing, ignores views and reports mode OFF.
func TestFleetOff(t *testing.T) {
	e, _ := newTestEngine(t, nil)
	e.RecordFailure(time.Second)
	var r FleetReport
	e.FleetReport(&r)
	assert.Equal(t, FleetCounts{}, r.Counts)
	assert.Equal(t, 60*time.Second, r.Window)
	assert.Equal(t, 5*time.Second, r.Horizon)
	before := e.Snapshot()
	v := viewOf(0, 100, time.Second, 500, 0, 0)
	e.FleetApply(&r, &v)
	e.FleetLost()
	after := e.Snapshot()
	assert.Equal(t, before.Signals, after.Signals)
	assert.Equal(t, FleetOff, after.Fleet)
	assert.Equal(t, FleetStatus{}, e.FleetStatus())
}

// Asserts that a report carries the outcomes recorded since the last applied one, that applying
// removes exactly what it carried (outcomes recorded in between stay pending), and that a
// failed sync keeps them for the next report.
func TestFleetReportPending(t *testing.T) {
	e, clock := newTestEngine(t, inFleet)
	e.RecordSuccess(20 * time.Millisecond)
	e.RecordFailure(time.Second)
	e.RecordTimeout(2 * time.Second)
	var r FleetReport
	e.FleetReport(&r)
	assert.Equal(t, FleetCounts{Successes: 1, Failures: 2, Timeouts: 1}, r.Counts)
	assert.Equal(t, 1.0, r.Earned, "one success earns TokenRefillPerSuccess")
	assert.Equal(t, uint64(1), r.Latency.Counts[binOf(int64(time.Second))])

	e.FleetLost() // the store failed: everything stays pending
	e.RecordSuccess(30 * time.Millisecond)
	var r2 FleetReport
	e.FleetReport(&r2)
	assert.Equal(t, FleetCounts{Successes: 2, Failures: 2, Timeouts: 1}, r2.Counts)

	e.RecordFailure(time.Second) // recorded while the sync is in flight
	clock.Advance(100 * time.Millisecond)
	v := viewOf(10, 0, 20*time.Millisecond, 500, 400, 4)
	e.FleetApply(&r2, &v)
	var r3 FleetReport
	e.FleetReport(&r3)
	assert.Equal(t, FleetCounts{Failures: 1}, r3.Counts)
	var n uint64
	for _, c := range r3.Latency.Counts {
		n += c
	}
	assert.Equal(t, uint64(1), n)
}

// Asserts how the signals merge: F, L and B come from the fleet view while it is fresh (mode
// FLEET), from the engine's own window and bucket once it is older than MaxAge or after a
// failed sync (mode LOCAL), and from the fleet again after the next view.
func TestFleetSignalsMerge(t *testing.T) {
	e, clock := newTestEngine(t, func(c *Config) {
		inFleet(c)
		c.Fleet.Envelope = 1 // the fleet's F and L whatever the engine's own
		c.BaselineLatency = 20 * time.Millisecond
		c.LearnTail = false
	})
	for range 50 { // local: healthy, 20 ms
		clock.Advance(10 * time.Millisecond)
		e.RecordSuccess(20 * time.Millisecond)
	}
	local := e.Snapshot()
	require.Equal(t, FleetLocal, local.Fleet, "no view yet")
	require.Zero(t, local.Signals.F)

	sync := func(v FleetView) {
		var r FleetReport
		e.FleetReport(&r)
		e.FleetApply(&r, &v)
	}
	// The fleet: half the requests fail, at 80 ms (L = (80-20)/60 = 1), bucket 250 of 500 free.
	sync(viewOf(50, 50, 80*time.Millisecond, 500, 250, 4))
	s := e.Snapshot()
	assert.Equal(t, FleetJoint, s.Fleet)
	assert.InDelta(t, 0.5, s.Signals.F, 1e-9)
	assert.InDelta(t, 1.0, s.Signals.L, 1e-9)
	assert.InDelta(t, 1-(250.0+0)/500, s.Signals.B, 1e-9, "free plus leased over capacity")
	assert.Equal(t, 3, e.FleetStatus().Instances)
	assert.InDelta(t, 0.5, e.FleetStatus().F, 1e-9)
	assert.Greater(t, s.CPS, 0.2, "the fleet's failures and latency weigh in the CPS")
	assert.InDelta(t, local.CPS, e.FleetStatus().LocalCPS, 1e-9, "the local CPS reads the engine's own healthy signals")

	clock.Advance(DefaultFleetConfig().MaxAge + time.Millisecond) // stale: local again
	s = e.Snapshot()
	assert.Equal(t, FleetLocal, s.Fleet)
	assert.Zero(t, s.Signals.F)
	assert.Zero(t, s.Signals.L)
	assert.Equal(t, DefaultFleetConfig().MaxAge+time.Millisecond, e.FleetStatus().Age)

	sync(viewOf(50, 50, 80*time.Millisecond, 500, 250, 0))
	require.Equal(t, FleetJoint, e.Snapshot().Fleet)
	e.FleetLost() // a failed sync: local at once, without waiting for MaxAge
	s = e.Snapshot()
	assert.Equal(t, FleetLocal, s.Fleet)
	assert.Zero(t, s.Signals.F)
	assert.Equal(t, uint64(1), e.FleetStatus().Failures)
}

// Asserts the envelope: while the view is fresh, the fleet's F and L move the engine's own by
// at most Fleet.Envelope (0.3 by default), up or down, whatever the store answers; B is the
// fleet bucket's.
func TestFleetEnvelope(t *testing.T) {
	for _, tc := range []struct {
		name           string
		localFail      int // of 10 local outcomes
		fleetS, fleetF uint64
		lat            time.Duration
		wantF, wantL   float64
	}{
		{"fleet failing, engine healthy", 0, 0, 1000, 80 * time.Millisecond, 0.3, 0.3},
		{"fleet healthy, engine failing", 10, 1000, 0, 20 * time.Millisecond, 0.7, 0},
		{"within the envelope", 2, 90, 10, 20 * time.Millisecond, 0.1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, func(c *Config) {
				inFleet(c)
				c.BaselineLatency = 20 * time.Millisecond
				c.LearnTail = false
			})
			for i := range 10 {
				if i < tc.localFail {
					e.RecordFailure(20 * time.Millisecond)
				} else {
					e.RecordSuccess(20 * time.Millisecond)
				}
			}
			var r FleetReport
			e.FleetReport(&r)
			v := viewOf(tc.fleetS, tc.fleetF, tc.lat, 500, 500, 0)
			e.FleetApply(&r, &v)
			s := e.Snapshot()
			require.Equal(t, FleetJoint, s.Fleet)
			assert.InDelta(t, tc.wantF, s.Signals.F, 1e-9)
			assert.InDelta(t, tc.wantL, s.Signals.L, 1e-9)
		})
	}
}

// Asserts the lease: with no leased token a retry is refused and the next report asks for at
// least its price; granted tokens are spent locally, the fleet's free tokens count for the
// priority reserve, a stale view spends from the engine's own bucket, and tokens held above
// twice the target are handed back.
func TestFleetLease(t *testing.T) {
	e, clock := newTestEngine(t, func(c *Config) {
		inFleet(c)
		c.BudgetReserve = 0.5
		c.TokenBucketCapacity = 10
	})
	sync := func(v FleetView) FleetReport {
		var r FleetReport
		e.FleetReport(&r)
		v.Held = r.Held + v.Granted // the store records the lease as reported
		e.FleetApply(&r, &v)
		return r
	}
	sync(viewOf(10, 0, 20*time.Millisecond, 100, 100, 0)) // fresh, nothing leased
	d := e.ShouldRetry(10, 0, true)
	assert.Equal(t, ReasonBudgetExhausted, d.Reason, "no leased token: refused, never waits")
	var r FleetReport
	e.FleetReport(&r)
	assert.Equal(t, 4.0, r.Want, "the lease's minimum (the refused retry cost 1)")

	sync(viewOf(10, 0, 20*time.Millisecond, 100, 90, 3))
	for range 3 {
		require.Equal(t, Retry, e.ShouldRetry(10, 0, true).Action)
	}
	assert.Equal(t, ReasonBudgetExhausted, e.ShouldRetry(10, 0, true).Reason, "lease spent")
	assert.Equal(t, 10.0, e.Snapshot().Tokens, "the engine's own bucket is untouched")

	r = sync(viewOf(10, 0, 20*time.Millisecond, 100, 40, 10))
	assert.Equal(t, 3.0, r.Spent)
	var next FleetReport
	e.FleetReport(&next)
	assert.Equal(t, FleetReport{Window: next.Window, Horizon: next.Horizon, Held: 10}, next,
		"10 held, within twice the target (twice the 3 spent last interval): nothing wanted or handed back")
	// Priority 0 keeps half the capacity (50) in the fleet: 40 free + 10 held - 1 < 50.
	assert.Equal(t, ReasonBudgetExhausted, e.ShouldRetry(0, 0, true).Reason)
	assert.Equal(t, Retry, e.ShouldRetry(10, 0, true).Action)

	clock.Advance(time.Second) // stale: the engine's own bucket pays
	assert.Equal(t, Retry, e.ShouldRetry(10, 0, true).Action)
	assert.Equal(t, 9.0, e.Snapshot().Tokens)
	assert.Equal(t, 9.0, e.FleetStatus().Held)

	// Idle: the target falls back to the minimum (4), and what is held above 8 goes back.
	sync(viewOf(10, 0, 20*time.Millisecond, 100, 40, 0))
	e.FleetReport(&r)
	assert.Equal(t, 5.0, r.Return)
	assert.Equal(t, 4.0, r.Held)
	assert.Zero(t, r.Want)

	// Other instances lease 80 of the 100 and spent none: the fleet is nearly full, so the
	// reserve lets priority 0 spend its lease (0 free + 90 leased - 1 >= 50); counting only the
	// free tokens and its own lease refused it with burn at 0.10.
	v := viewOf(10, 0, 20*time.Millisecond, 100, 0, 0)
	v.Leased = 90
	sync(v)
	require.InDelta(t, 0.10, e.Snapshot().Signals.B, 1e-9)
	assert.Equal(t, Retry, e.ShouldRetry(0, 0, true).Action, "a nearly full fleet bucket keeps its reserve")
	// Spent elsewhere instead: 0 free + 40 leased is under the reserve of 50.
	v.Leased = 40
	sync(v)
	assert.Equal(t, ReasonBudgetExhausted, e.ShouldRetry(0, 0, true).Reason, "an emptied fleet bucket keeps its reserve")
	assert.Equal(t, Retry, e.ShouldRetry(10, 0, true).Action, "priority 10 keeps no reserve")
}

// Asserts that a fleet member's hot path allocates nothing either.
func TestFleetAllocs(t *testing.T) {
	e, clock := newTestEngine(t, inFleet)
	v := viewOf(10, 10, 20*time.Millisecond, 1e9, 1e9, 1e9)
	var r FleetReport
	allocs := testing.AllocsPerRun(200, func() {
		clock.Advance(time.Millisecond)
		e.RecordSuccess(20 * time.Millisecond)
		e.ShouldRetry(5, 0, true)
		e.FleetReport(&r)
		e.FleetApply(&r, &v)
		_ = e.Snapshot()
		_ = e.FleetStatus()
	})
	assert.Zero(t, allocs)
}

// Asserts that a bad fleet configuration names its fields, and that an off one is not checked.
func TestFleetConfigValidate(t *testing.T) {
	c := DefaultConfig()
	c.Fleet = FleetConfig{Enabled: true, MaxAge: 0, Lease: 0.5}
	err := c.Validate()
	require.Error(t, err)
	var ce ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []string{"Fleet.MaxAge", "Fleet.Lease"}, ce.Fields())
	c.Fleet.Enabled = false
	assert.NoError(t, c.Validate())
}

// Asserts that the fleet histogram's P99 is the engine's: the mean of the bin holding it.
func TestFleetHistogramP99(t *testing.T) {
	var h, o FleetHistogram
	assert.Zero(t, h.P99())
	for i, lat := range []time.Duration{10 * time.Millisecond, 500 * time.Millisecond} {
		b := binOf(int64(lat))
		n := uint64(99)
		if i == 1 {
			n = 2
		}
		o.Counts[b] += n
		o.Sums[b] += n * uint64(lat)
	}
	h.Add(&o)
	assert.Equal(t, 500*time.Millisecond, h.P99())
	assert.Equal(t, "FLEET", FleetJoint.String())
	assert.Equal(t, "LOCAL", FleetLocal.String())
	assert.Equal(t, "OFF", FleetOff.String())
}

// Asserts that a store answering nonsense (NaN, infinities, negative tokens, counts that
// overflow a rate) can neither panic the engine nor give it a non-finite signal: decisions stay
// well-formed.
func TestFleetNonsenseView(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, v := range []FleetView{
		{Capacity: nan, Tokens: nan, Leased: nan, Granted: nan},
		{Capacity: inf, Tokens: inf, Leased: -inf, Granted: inf},
		{Capacity: -5, Tokens: -1, Leased: -1, Granted: -3},
		{Capacity: 10, Tokens: 1e300, Leased: 1e300, Granted: 1e300},
		{Short: FleetCounts{Successes: math.MaxUint64, Failures: math.MaxUint64}, Long: FleetCounts{Failures: math.MaxUint64}, Capacity: 10},
		{ShortLatency: FleetHistogram{Counts: [FleetBins]uint64{79: math.MaxUint64}, Sums: [FleetBins]uint64{79: math.MaxUint64}}, Capacity: 10},
	} {
		e, _ := newTestEngine(t, inFleet)
		var r FleetReport
		e.FleetReport(&r)
		require.NotPanics(t, func() { e.FleetApply(&r, &v) })
		for p := range 11 {
			d := e.ShouldRetry(p, 0, true)
			for _, x := range d.Signals.Array() {
				assert.False(t, math.IsNaN(x) || math.IsInf(x, 0), "signal %v of %+v", x, v.Capacity)
			}
			assert.NotEqual(t, ReasonInternalError, d.Reason)
		}
		st := e.FleetStatus()
		assert.False(t, math.IsNaN(st.Burn) || math.IsNaN(st.F) || math.IsNaN(st.Held))
	}
}
