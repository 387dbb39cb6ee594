package sim

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// oracleScenario is a scenario for checking the oracle by hand: one class of 100 req/s for 60 s
// and 10 s of drain, against 50 workers x 100 ms (500 req/s) with constant service times, no
// warm-up, a 30 s deadline and a 2 s timeout.
func oracleScenario() scenarios.Scenario {
	scn := testScenario()
	scn.Classes = []scenarios.Class{{Name: "api", Priority: 5, Rate: 100}}
	scn.Service.Workers, scn.Service.Sigma, scn.Service.WarmStart = 50, 0, 1
	scn.Deadline, scn.Timeout = 30*time.Second, 2*time.Second
	return scn
}

// arrivalsPerSecond runs scn with none from seed and returns its originals per second of the
// run (the simulator's own arrivals).
func arrivalsPerSecond(t *testing.T, scn scenarios.Scenario, seed int64) []int {
	t.Helper()
	res, err := run(scn, "none", seed)
	require.NoError(t, err)
	out := make([]int, len(res.Timeline))
	for i, r := range res.Timeline {
		out[i] = r.Originals
	}
	return out
}

// sumRange is the sum of xs[from:to].
func sumRange(xs []int, from, to int) int {
	n := 0
	for _, x := range xs[from:min(to, len(xs))] {
		n += x
	}
	return n
}

// Asserts that the oracle draws the simulator's arrivals: its originals of each priority are
// those of a run of the same scenario and seed.
func TestOracleSeesTheRunsArrivals(t *testing.T) {
	scn := testScenario()
	scn.Classes = append(scn.Classes, scenarios.Class{Name: "prefetch", Priority: 1, Rate: 5,
		Load: []scenarios.LoadPoint{{At: 20 * time.Second, Factor: 1}, {At: 30 * time.Second, Factor: 12}}})
	scn.Load = []scenarios.LoadPoint{{At: 0, Factor: 1}, {At: 60 * time.Second, Factor: 2}}
	for _, seed := range []int64{1, 7} {
		b, err := Oracle(scn, seed)
		require.NoError(t, err)
		res, err := run(scn, "none", seed)
		require.NoError(t, err)
		total := 0
		for _, r := range res.Timeline {
			total += r.Originals
		}
		assert.Equal(t, total, b.Arrived, "seed %d", seed)
		require.Len(t, b.Priorities, 2, "priorities 9 and 1 (analytics and prefetch share 1)")
		assert.Equal(t, []int{9, 1}, []int{b.Priorities[0].Priority, b.Priorities[1].Priority}, "highest first")
		assert.Equal(t, total, b.Priorities[0].Arrived+b.Priorities[1].Arrived)
		succeeded := res.Summary.SuccessRate * float64(total)
		assert.LessOrEqual(t, succeeded, b.Success+1e-9)
	}
}

// Asserts the oracle in cases worked out by hand, each from the definition in
// docs/simulator.md (the scenario's capacity over time, each original within its deadline).
func TestOracleByHand(t *testing.T) {
	const seed = 3
	tests := []struct {
		name string
		edit func(*scenarios.Scenario)
		// want returns the bound on the originals that can succeed, from the run's arrivals per
		// second (60 of the arrival phase, then the drain).
		want func(perSecond []int) float64
		tol  float64
	}{
		{
			name: "light load, no fault: every original",
			want: func(ps []int) float64 { return float64(sumRange(ps, 0, 60)) },
		},
		{
			// Arrivals from 10 s to 30 s reach only the outage: 30 s is 20 s before its end
			// (deadline 20 s); those after can wait for it to end, served at once by 500 req/s.
			name: "an outage longer than the deadline loses what cannot wait for its end",
			edit: func(s *scenarios.Scenario) {
				s.Deadline = 20 * time.Second
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 10 * time.Second, Duration: 40 * time.Second}}
			},
			want: func(ps []int) float64 { return float64(sumRange(ps, 0, 10) + sumRange(ps, 30, 60)) },
		},
		{
			// The same for a blackhole: nothing sent during it reaches the service.
			name: "a blackhole longer than the deadline",
			edit: func(s *scenarios.Scenario) {
				s.Deadline = 20 * time.Second
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultBlackhole, At: 10 * time.Second, Duration: 40 * time.Second}}
			},
			want: func(ps []int) float64 { return float64(sumRange(ps, 0, 10) + sumRange(ps, 30, 60)) },
		},
		{
			// 10 workers x 100 ms serve 100 attempts a second; half fail, so 50 successes a
			// second over the 70 s of the run, plus the first attempt of each of the 10 workers
			// at t = 0 (half of which succeed): 3,505 of about 6,000 originals.
			name: "errors on half the attempts of a service at the arrival rate",
			edit: func(s *scenarios.Scenario) {
				s.Service.Workers = 10
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultErrors, At: 0, Duration: 60 * time.Second, Value: 0.5}}
				s.Drain = 0 // the fault would end with the arrivals and leave the drain clean
			},
			want: func([]int) float64 { return 60*50 + 5 },
			tol:  1e-6,
		},
		{
			// A mean service time equal to the timeout: P(d <= timeout) for a lognormal of
			// sigma 0.25 is Phi(sigma / 2); 10 workers x 2 s start 5 attempts a second, plus
			// (1 + CV^2) x 10 at t = 0, over the 70 s of the run.
			name: "service times at the timeout: only the short ones answer in time",
			edit: func(s *scenarios.Scenario) {
				s.Service.Workers, s.Service.ServiceTime, s.Service.Sigma = 10, 2*time.Second, 0.25
			},
			want: func([]int) float64 {
				p := 0.5 * math.Erfc(-0.125/math.Sqrt2)
				return p * (5*70 + (1+math.Expm1(0.0625))*10)
			},
			tol: 1e-6,
		},
		{
			// A throttle of 40 req/s for the whole run: its bucket holds 40 tokens at the start,
			// then 40 a second for 70 s.
			name: "a throttle below the arrival rate",
			edit: func(s *scenarios.Scenario) {
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultThrottle, At: 0, Duration: 60 * time.Second, Value: 40}}
				s.Drain = 0
			},
			want: func([]int) float64 { return 40 + 40*60 },
			tol:  1e-6,
		},
		{
			// Every attempt of the whole arrival phase has a 30% chance of a 4xx, which ends the
			// original; the drain cannot help those whose deadline falls inside the fault.
			name: "bad requests for the whole run",
			edit: func(s *scenarios.Scenario) {
				s.Drain = 0
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultBadRequests, At: 0, Duration: 60 * time.Second, Value: 0.3}}
			},
			want: func(ps []int) float64 { return 0.7 * float64(sumRange(ps, 0, 60)) },
			tol:  1e-6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scn := oracleScenario()
			if tt.edit != nil {
				tt.edit(&scn)
			}
			b, err := Oracle(scn, seed)
			require.NoError(t, err)
			want := tt.want(arrivalsPerSecond(t, scn, seed))
			tol := max(tt.tol, 1e-9)
			assert.InDelta(t, want, b.Success, tol*max(1, want), "the bound, in originals")
		})
	}
}

// Asserts that the oracle serves the highest priority first: with 100 req/s of payments and
// 100 req/s of analytics against 150 req/s, every payment can succeed and analytics get what
// is left, and the bound of both together is the service's capacity over the run.
func TestOraclePriorities(t *testing.T) {
	scn := oracleScenario()
	scn.Service.Workers = 15
	scn.Drain = 0
	scn.Classes = []scenarios.Class{{Name: "payment", Priority: 9, Rate: 100}, {Name: "analytics", Priority: 1, Rate: 100}}
	b, err := Oracle(scn, 1)
	require.NoError(t, err)
	require.Len(t, b.Priorities, 2)
	top, low := b.Priorities[0], b.Priorities[1]
	assert.Equal(t, 9, top.Priority)
	assert.InDelta(t, 1, top.Rate(), 1e-9, "every payment")
	assert.InDelta(t, float64(top.Arrived), top.AtLeast, 1e-9)
	// 15 workers x 100 ms for 60 s, and each worker's first attempt, less what the first tick
	// has no arrival for (about 20 arrive in it, against 30 attempts).
	capacity := 150.0*60 + 15
	assert.InDelta(t, capacity-7.5, low.AtLeast, 7.5, "both together: the capacity")
	assert.InDelta(t, low.AtLeast-float64(top.Arrived), low.Success, 1e-6, "analytics: what payments leave")
	assert.InDelta(t, low.AtLeast, b.Success, 1e-9)
	assert.Less(t, low.Rate(), 0.55)
}

// Asserts that a closed loop has no oracle (its arrivals depend on the schedule), and that an
// invalid scenario is New's error.
func TestOracleErrors(t *testing.T) {
	_, err := Oracle(loopScenario(true), 1)
	assert.ErrorIs(t, err, ErrClosedLoop)
	bad := testScenario()
	bad.Service.Workers = 0
	_, err = Oracle(bad, 1)
	assert.ErrorContains(t, err, "service.workers")
}

// Asserts that the oracle is tight: in a fault-free scenario at light load (half the capacity,
// lognormal service times), `none` reaches it within a point in every seed.
func TestOracleTight(t *testing.T) {
	for seed := int64(1); seed <= 5; seed++ {
		b, err := Oracle(testScenario(), seed)
		require.NoError(t, err)
		res, err := run(testScenario(), "none", seed)
		require.NoError(t, err)
		assert.InDelta(t, 1, b.Rate(), 1e-9, "seed %d: every original can succeed", seed)
		assert.GreaterOrEqual(t, res.Summary.SuccessRate, b.Rate()-0.01, "seed %d: none within a point of the oracle", seed)
	}
}

// Asserts that fine ticks cost the oracle steps of 100 ms and a timeout's worth of ticks, not
// the run's: 10 minutes at 1 ms ticks (630,000 ticks) allocate under 4 MB in all (per tick
// that would be 30 MB), and the bound stays that of 100 ms ticks within the noise of the
// other arrivals.
func TestOracleFineTicks(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	scn := oracleScenario()
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 10 * time.Second, Duration: 40 * time.Second}}
	scn.Deadline = 20 * time.Second
	coarse, err := Oracle(scn, 1)
	require.NoError(t, err)
	scn.Tick = time.Millisecond
	fine, err := Oracle(scn, 1)
	require.NoError(t, err)
	assert.InDelta(t, coarse.Rate(), fine.Rate(), 0.02)
	assert.InDelta(t, 40.0/60, fine.Rate(), 0.03, "the arrivals of 10-30 s are lost")

	scn.Duration = 10 * time.Minute
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Oracle(scn, 1)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "bytes allocated")
}
