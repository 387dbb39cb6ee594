package sim

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/cputime"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
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
//
// With $SPEED_TABLE_OUT set, it writes there the markdown table of docs/simulator.md's speed
// section (make speed-table), one row per strategy from its last run of iterations.
func BenchmarkRun(b *testing.B) {
	load := loadAverage()
	rows := map[string][2]stormRate{}
	for _, name := range strategy.Names() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var own, ref stormRate
			defer func() { rows[name] = [2]stormRate{own, ref} }()
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
				b.ReportMetric(own.arrivalsPerCPUSecond()/ref.arrivalsPerCPUSecond(), "x-none-arrivals")
			}
			if own.attempts > 0 {
				b.ReportMetric(float64(own.served)/float64(own.attempts), "served/attempt")
				b.ReportMetric(float64(own.refused)/float64(own.attempts), "refused/attempt")
				b.ReportMetric(float64(own.held)/float64(own.attempts), "holds/attempt")
			}
		})
	}
	if out := os.Getenv("SPEED_TABLE_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(speedTable(rows, load, loadAverage())), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// speedTable is the markdown table of the storm runs in rows (strategy: its runs and none's),
// in catalog order, with the load averages before and after, and the strategies under the
// speed target.
func speedTable(rows map[string][2]stormRate, before, after string) string {
	var sb strings.Builder
	sb.WriteString("| strategy | attempts a run | served, refused, holds per attempt | attempts per CPU-second | x-none | arrivals per CPU-second | x-none arrivals |\n|---|---|---|---|---|---|---|\n")
	var under, underArr []string
	n := 0
	for _, name := range strategy.Names() {
		r, ok := rows[name]
		own, ref := r[0], r[1]
		if !ok || own.runs == 0 || own.attempts == 0 || own.cpu <= 0 || ref.cpu <= 0 {
			continue
		}
		n++
		x := own.perCPUSecond() / ref.perCPUSecond()
		if x < 0.6 {
			under = append(under, fmt.Sprintf("%s %.3f", name, x))
		}
		xa := own.arrivalsPerCPUSecond() / ref.arrivalsPerCPUSecond()
		if xa < 0.6 {
			underArr = append(underArr, fmt.Sprintf("%s %.3f", name, xa))
		}
		a := float64(own.attempts)
		fmt.Fprintf(&sb, "| %s | %s | %.2f, %.2f, %.2f | %.1f M | %.2f | %.1f M | %.2f |\n", name, thousands(own.attempts/own.runs),
			float64(own.served)/a, float64(own.refused)/a, float64(own.held)/a, own.perCPUSecond()/1e6, x,
			own.arrivalsPerCPUSecond()/1e6, xa)
	}
	fmt.Fprintf(&sb, "\n%d iterations a strategy, each with a run of none; GOMAXPROCS %d; load average %s before, %s after. ",
		rowsRuns(rows), runtime.GOMAXPROCS(0), before, after)
	if len(under) == 0 {
		fmt.Fprintf(&sb, "Every one of the %d strategies at x-none >= 0.6.\n", n)
	} else {
		fmt.Fprintf(&sb, "Under x-none 0.6: %s (of %d strategies).", strings.Join(under, ", "), n)
	}
	if len(underArr) == 0 {
		sb.WriteString(" On arrivals, every one at 0.6 or more.\n")
	} else {
		fmt.Fprintf(&sb, " On arrivals, under 0.6: %s.\n", strings.Join(underArr, ", "))
	}
	return sb.String()
}

// rowsRuns is the number of runs of the first strategy in rows with any (every one has the same).
func rowsRuns(rows map[string][2]stormRate) int {
	for _, name := range strategy.Names() {
		if r, ok := rows[name]; ok && r[0].runs > 0 {
			return r[0].runs
		}
	}
	return 0
}

// thousands writes n with a comma every three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// loadAverage is the 1-minute load average and the number of runnable processes
// (/proc/loadavg), "unknown" where it cannot be read.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 4 {
		return f[0]
	}
	return "unknown"
}

// stormRate sums the arrivals (original requests), the attempts, what became of them, and the
// CPU time of storm runs.
type stormRate struct {
	runs, arrivals, attempts, served, refused, held int
	cpu                                             time.Duration
}

// run runs the storm once with strategy name, adding its attempts and CPU time.
func (r *stormRate) run(b *testing.B, name string) {
	cpu0 := cputime.Process()
	s, err := New(stormScenario(), name, 1)
	if err != nil {
		b.Fatal(err)
	}
	for !s.Done() {
		c := s.Step().Counts
		r.arrivals += c.Originals
		r.attempts += c.Attempts
		r.served += c.Successes + c.ServerErrors
		r.refused += c.LocalRejects
		r.held += c.Held
	}
	r.cpu += cputime.Process() - cpu0
	r.runs++
}

// perCPUSecond returns the attempts per CPU-second.
func (r *stormRate) perCPUSecond() float64 { return float64(r.attempts) / r.cpu.Seconds() }

// arrivalsPerCPUSecond returns the arrivals (original requests handled) per CPU-second.
func (r *stormRate) arrivalsPerCPUSecond() float64 { return float64(r.arrivals) / r.cpu.Seconds() }

// Asserts that memory stays flat with the number of requests: after a warm-up, the heap in
// use after 5 minutes of simulated traffic is not larger than after 1 minute (requests and
// attempts are pooled, nothing is kept per request once it ends), and a tick allocates only
// its snapshot (a small, constant number of allocations).
func TestMemoryFlat(t *testing.T) {
	racedetect.SkipWholeRuns(t) // one goroutine: make test runs it without the race detector
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
