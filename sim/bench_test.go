package sim

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// stormScenario is a heavy run: 2,000 req/s over 120 s against a 1,500 req/s service that
// has a 30 s outage, so retries, queueing and timeouts all happen.
func stormScenario() scenarios.Scenario {
	return scenarios.Scenario{
		Name:     "storm",
		Duration: 120 * time.Second,
		Drain:    30 * time.Second,
		Clients:  20,
		Classes: []scenarios.Class{
			{Name: "payment", Priority: 9, Rate: 800},
			{Name: "search", Priority: 4, Rate: 800},
			{Name: "analytics", Priority: 1, Rate: 400},
		},
		Service: scenarios.Service{
			Workers: 150, ServiceTime: 100 * time.Millisecond, Sigma: 0.25, QueueLimit: 1500,
			CrashFactor: 2, CrashAfter: 5 * time.Second, RestartDelay: 10 * time.Second,
			WarmStart: 0.3, Warmup: 20 * time.Second,
			RefusalCost: 1, // as before refusal_cost existed: the workload of the speed figures
		},
		Faults: []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 40 * time.Second, Duration: 30 * time.Second}},
	}
}

// BenchmarkRun measures whole runs of the storm scenario per strategy (one goroutine) and
// reports the attempts simulated per second of wall-clock time and per CPU-second of the
// process (GC included), the latter being meaningful on a machine shared with other work.
//
// Each iteration also runs the storm with `none`, the reference, alternately before and after
// the strategy's run, and x-none is the strategy's attempts per CPU-second over none's in the
// same iterations: a ratio whose two figures see the same machine, so the load moves it far
// less than either figure (none's own row, none against none, shows how much). The speed target
// is x-none >= 0.6 for every strategy. served/attempt (the attempts a worker answered: the rest
// failed fast, were rejected by a full queue or timed out unserved), refused/attempt (the
// attempts the strategy refused locally, which cost an arrival and its calls but are not
// attempts) and holds/attempt say what the strategy's attempts cost the simulator beside its own
// code: a served attempt draws a service time and is popped from the workers' heap.
func BenchmarkRun(b *testing.B) {
	for _, name := range strategy.Names() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var own, ref stormRate
			i := 0
			for b.Loop() {
				if i++; i%2 == 0 {
					ref.run(b, "none")
					own.run(b, name)
				} else {
					own.run(b, name)
					ref.run(b, "none")
				}
			}
			b.ReportMetric(float64(own.attempts)/b.Elapsed().Seconds(), "attempts/s")
			if own.cpu > 0 && ref.cpu > 0 {
				b.ReportMetric(own.perCPUSecond(), "attempts/cpu-s")
				b.ReportMetric(own.perCPUSecond()/ref.perCPUSecond(), "x-none")
			}
			if own.attempts > 0 {
				b.ReportMetric(float64(own.served)/float64(own.attempts), "served/attempt")
				b.ReportMetric(float64(own.refused)/float64(own.attempts), "refused/attempt")
				b.ReportMetric(float64(own.held)/float64(own.attempts), "holds/attempt")
			}
		})
	}
}

// stormRate sums the attempts, what became of them, and the CPU time of storm runs.
type stormRate struct {
	attempts, served, refused, held int
	cpu                             time.Duration
}

// run runs the storm once with strategy name, adding its attempts and CPU time.
func (r *stormRate) run(b *testing.B, name string) {
	cpu0 := cpuTime()
	s, err := New(stormScenario(), name, 1)
	if err != nil {
		b.Fatal(err)
	}
	for !s.Done() {
		c := s.Step().Counts
		r.attempts += c.Attempts
		r.served += c.Successes + c.ServerErrors
		r.refused += c.LocalRejects
		r.held += c.Held
	}
	r.cpu += cpuTime() - cpu0
}

// perCPUSecond returns the attempts per CPU-second.
func (r *stormRate) perCPUSecond() float64 { return float64(r.attempts) / r.cpu.Seconds() }

// Asserts that memory stays flat with the number of requests: after a warm-up, the heap in
// use after 5 minutes of simulated traffic is not larger than after 1 minute (requests and
// attempts are pooled, nothing is kept per request once it ends), and a tick allocates only
// its snapshot (a small, constant number of allocations).
func TestMemoryFlat(t *testing.T) {
	scn := stormScenario()
	scn.Duration = 6 * time.Minute
	scn.Faults = nil
	scn.Load = nil
	s, err := New(scn, "naive", 1)
	require.NoError(t, err)
	heapAfter := func(d time.Duration) uint64 {
		for s.Now() < d {
			s.Step()
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	early := heapAfter(time.Minute)
	late := heapAfter(5 * time.Minute)
	t.Logf("heap after 1 min: %d B, after 5 min: %d B", early, late)
	assert.Less(t, float64(late), 1.2*float64(early)+256<<10, "heap does not grow with the number of requests")

	allocs := testing.AllocsPerRun(100, func() { s.Step() })
	t.Logf("allocations per tick: %.1f", allocs)
	assert.LessOrEqual(t, allocs, 8.0, "a tick allocates only its snapshot")
}

// BenchmarkOracle measures the oracle of every built-in open-loop scenario against a run of the
// same scenario with `none`, the cheapest strategy: bench computes one oracle per scenario x
// seed for all its strategies, so the ratio (oracle/none, per scenario) is what the oracle
// adds to a bench of one strategy; with the catalog's fourteen it is a fourteenth of that.
func BenchmarkOracle(b *testing.B) {
	var open []scenarios.Scenario
	for _, scn := range scenarios.Catalog() {
		if !scn.Loop.Closed {
			open = append(open, scn)
		}
	}
	var oracle, none time.Duration
	for b.Loop() {
		for _, scn := range open {
			t0 := time.Now()
			if _, err := Oracle(scn, 1); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			s, err := New(scn, "none", 1)
			if err != nil {
				b.Fatal(err)
			}
			for !s.Done() {
				s.Step()
			}
			oracle, none = oracle+t1.Sub(t0), none+time.Since(t1)
		}
	}
	b.ReportMetric(float64(oracle.Microseconds())/float64(b.N*len(open))/1e3, "ms/oracle")
	b.ReportMetric(oracle.Seconds()/none.Seconds(), "oracle/none")
}
