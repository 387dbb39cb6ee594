package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// randomScenario draws a small valid scenario: any loop, layers, faults and service shape.
func randomScenario(r *rand.Rand) scenarios.Scenario {
	d := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(r.Int64N(int64(hi-lo)+1)) }
	scn := scenarios.Scenario{
		Name:     "random",
		Duration: d(5*time.Second, 20*time.Second),
		Drain:    d(time.Second, 10*time.Second),
		Tick:     []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, time.Second}[r.IntN(4)],
		Clients:  1 + r.IntN(30),
		Deadline: d(500*time.Millisecond, 20*time.Second),
		Timeout:  d(50*time.Millisecond, 3*time.Second),
		Layers:   1 + r.IntN(2),
		Service: scenarios.Service{
			Workers: 1 + r.IntN(50), ServiceTime: d(time.Millisecond, 300*time.Millisecond),
			Sigma: r.Float64(), QueueLimit: r.IntN(500), DropExpired: r.IntN(2) == 0,
			CrashFactor: 3 * r.Float64(), CrashAfter: d(0, 5*time.Second),
			RestartDelay: d(0, 5*time.Second), WarmStart: 0.05 + 0.95*r.Float64(), Warmup: d(0, 10*time.Second),
		},
	}
	for i := range 1 + r.IntN(3) {
		scn.Classes = append(scn.Classes, scenarios.Class{Name: "c", Priority: r.IntN(11), Rate: 150 * r.Float64() * float64(i+1)})
	}
	if r.IntN(3) == 0 {
		scn.Loop = scenarios.Loop{Closed: true, Users: 1 + r.IntN(300), Think: d(0, 2*time.Second)}
	}
	for range r.IntN(4) {
		scn.Load = append(scn.Load, scenarios.LoadPoint{At: d(0, scn.Duration), Factor: 3 * r.Float64()})
	}
	sortLoad(scn.Load)
	for range r.IntN(4) {
		spec := scenarios.FaultSpecs()[r.IntN(scenarios.NumFaultKinds)]
		v := 1 - r.Float64() // in (0, 1]
		switch spec.Unit {
		case scenarios.UnitNone:
			v = 0
		case scenarios.UnitRate:
			v *= 500
		case scenarios.UnitFactor:
			v = 0.05 + 0.95*v
		}
		scn.Faults = append(scn.Faults, scenarios.Fault{Kind: spec.Kind, At: d(0, scn.Duration), Duration: d(0, 10*time.Second), Value: v})
	}
	return scn
}

func sortLoad(p []scenarios.LoadPoint) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].At < p[j-1].At; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// Asserts, over many random valid scenarios and every strategy, that a run never panics and
// keeps its books: failures are the sum of their causes, every original ends once, every
// attempt gets one outcome, the run lasts duration + drain, and run-time controls in the
// middle change nothing of that.
func TestRandomScenariosKeepTheirBooks(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	r := rand.New(rand.NewPCG(42, 1))
	names := strategy.Names()
	for i := range 40 {
		scn := randomScenario(r)
		name := names[i%len(names)]
		s, err := New(scn, name, int64(i))
		require.NoError(t, err, "scenario %d: %+v", i, scn)
		var sum source.Counts
		n := 0
		for !s.Done() {
			if n == 20 {
				spec := scenarios.FaultSpecs()[i%scenarios.NumFaultKinds]
				require.NoError(t, s.Control(source.Inject(scenarios.Fault{Kind: spec.Kind, Value: spec.InjectValue(100), Duration: time.Second})))
				require.NoError(t, s.Control(source.SetClass(scn.Classes[0].Name, 2, 3)))
				require.NoError(t, s.Control(source.SetStrategy(names[(i+1)%len(names)])))
			}
			c := s.Step().Counts
			n++
			require.Equal(t, c.Failures, c.Timeouts+c.FastFails+c.ServerErrors+c.Throttled+c.BadRequests)
			sum = addCounts(sum, c)
		}
		require.Equal(t, int((scn.Duration+scn.Drain+scn.Tick-1)/scn.Tick), n, "scenario %d: ticks", i)
		inFlight := len(s.reqs) - len(s.freeReq)
		require.Equal(t, sum.Originals, sum.Completed+sum.Abandoned+inFlight, "scenario %d (%s): originals", i, name)
		require.LessOrEqual(t, sum.Successes+sum.Failures, sum.Attempts, "scenario %d (%s): outcomes", i, name)
	}
}
