package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// The cost model: what one run of a scenario will take, estimated from the scenario alone
// before the run starts, so that a command can refuse a run that would take the machine's
// memory or hours of CPU (a scenario file may come from a stranger). Every figure is meant as
// an upper estimate: the simulator's own bounds (retries per request, a request's longest life,
// the queue's limit) taken at their worst, times constants measured on the development machine
// (2-core AMD EPYC, Go 1.26) by the benchmarks of cost_bench_test.go. The formulas, with
//
//	D = duration, T = duration + drain, dt = tick, ticks = ceil(T / dt), window = max(1, 1s / dt)
//	rate(t) = the sum over classes of rate x the class's own load factor x the load factor at t
//	R = the strategy's most retries (0 for none, 3 for every other), L = layers
//	K = (1 + R) x (1 + TierRetries)^(L-1): attempts per request when every attempt fails
//	life = min(deadline + timeout, (1 + R) x timeout + R x the strategy's longest delay) + dt
//
// are, for the work:
//
//	open loop:   mean = the integral of rate(t) over [0, D]  (RateSeconds)
//	             lambda = the largest rate(t) over [0, D]     (the peak arrival rate, PeakRate)
//	closed loop: mean = users x (D / max(think, 10ms) + 1)  (a user sends at most one request
//	             per think time, which the simulator never lets fall under 10 ms, plus the first)
//	             lambda = users / max(think, 10ms)
//	arrivals = mean + 4 x sqrt(mean)                       (Poisson: 4 standard deviations)
//	attempts = arrivals x K
//	checks   = users x D / 1s (closed loop with a load profile: idle users look again each second)
//	CPU      = (attempts + checks) x nsPerAttempt
//	         + ticks x (nsPerTick + window x nsPerWindowTick + classes x nsPerClassTick
//	                    + clients x nsPerClientTick(strategy))   (strategy.Footprint.TickNs)
//
// and for the memory (the peak of the heap, garbage not yet collected included):
//
//	live     = lambda x life (open loop), users (closed loop): requests alive at once
//	chains   = 1, or 1 + R with layers (a client retry may start while tiers still retry)
//	held     = queue_limit + workers + live x chains: attempts queued, served or awaited
//	entries  = lambda x K x (timeout + dt): per-attempt timeouts, kept until their time
//	memory   = bytesBase + clients x bytesPerClient(strategy) + users x bytesPerUser   (strategy.Footprint.ClientBytes)
//	         + held x bytesPerAttempt + entries x bytesPerEntry
//
// What makes these bounds hold is in the simulator: a strategy never retries more than R
// times (strategy's invariant tests), an intermediate tier TierRetries times; a request ends
// by its deadline plus one timeout (no retry is sent after the deadline, and every attempt is
// answered within its timeout); an attempt's slot is freed once it is answered and the service
// no longer holds it, and the service holds at most queue_limit queued attempts (the queue's
// ring never grows past it) and workers served ones. lambda x K bounds the attempt rate over a
// timeout in the steady state; a burst of retries above it is covered by the slack of the
// constants (they are rounded up, and the terms overlap: a queued attempt is also counted
// among the live requests'). TestEstimateBoundsBuiltins checks the attempts against every
// built-in scenario and strategy, TestEstimateBoundsMemory the memory against runs at the limits.

// Constants of the model, measured on the development machine (see the comment above).
const (
	// nsPerAttempt is the CPU time of one simulated attempt, arrival, timeout, answer and
	// decision included: 500 ns, that is 2e6 attempts per CPU-second. BenchmarkRun measures
	// 4.7e6 (breaker) to 1.4e7 (naive) attempts per CPU-second on its storm; cortex against a
	// queue of a million attempts ran at 3.1e6 (getrusage around the run). 2e6 leaves room for
	// slower machines and for a heap growing fast (filling a queue of a million attempts ran at
	// 0.9e6 a CPU-second, garbage collection included, but only for its first second).
	nsPerAttempt = 500
	// nsPerTick is a tick's own work with one client and one class (the snapshot, the
	// recorder): 570 ns measured (BenchmarkCostTick/base/100ms).
	nsPerTick = 1000
	// nsPerWindowTick is the cost of each tick of the one-second utilisation window that every
	// tick sums: 0.5 ns measured (base/1ms minus base/100ms, over 990 ticks).
	nsPerWindowTick = 1
	// nsPerClassTick is a class's share of a tick: 29 ns measured (classes-64/1ms).
	nsPerClassTick = 32
	// bytesBase is the process before the run: the runtime, the program, the per-second
	// timeline of a run of the longest duration. A headless run of a built-in scenario peaks
	// at 9 to 10 MB of resident memory (/usr/bin/time).
	bytesBase = 16e6
	// bytesPerAttempt is an attempt held by the service or awaited by a client, with its
	// request, its timeout entry and its queue slot: 193 to 210 B measured
	// (BenchmarkCostQueuedAttempt: 100 B live, the rest the old arrays of the pools as they
	// double, not yet collected).
	bytesPerAttempt = 256
	// bytesPerEntry is a timeout entry whose attempt is answered: 38 B measured
	// (BenchmarkCostTimeoutEntry); 72 B is its worst, 24 B in a ring up to twice as long as
	// its content, and briefly the ring it grew from.
	bytesPerEntry = 72
	// bytesPerUser is a closed-loop user with its think timer: 148 B measured
	// (BenchmarkCostUser).
	bytesPerUser = 160
)

// costOf returns the model's figures for the named strategy: its registered footprint
// (strategy.Footprint), or the costliest one's for an unknown name.
func costOf(name string) strategy.Footprint {
	if f, ok := strategy.FootprintOf(name); ok {
		return f
	}
	return strategy.Footprint{Retries: strategy.DefaultMaxRetries, MaxDelay: strategy.MaxDelay, ClientBytes: 96e3, TickNs: 96}
}

// Cost is the estimate of one run (Estimate): each figure is the largest over the strategies
// estimated. The zero value is a run that costs nothing.
type Cost struct {
	Arrivals float64       // original requests, at most
	Attempts float64       // attempts simulated, at most
	CPU      time.Duration // CPU time at the measured speed of the development machine
	Memory   float64       // peak heap in bytes

	cpuAdvice, memAdvice advice // what to change in the file to lower each

	// What the memory figure counts (for the tests of the bounds): attempts held at once by
	// the service or awaited, timeout entries, requests alive at once.
	held, entries, live float64
}

// Budget is the most one run may take before a command refuses it (unless --allow-large).
type Budget struct {
	CPU    time.Duration // CPU time of the run, as Estimate computes it
	Memory float64       // peak heap in bytes
}

// DefaultBudget is 10 minutes of CPU and 2 GB: a run that a user can still wait for, and a
// heap that fits beside a desktop on an 8 GB laptop (a tenth of the 24 GB development machine).
// The estimates are upper ones (every attempt failing and retried, 500 ns an attempt where
// the benchmarks measure 70 to 210), so an accepted run usually takes a fraction of it; every
// built-in scenario is estimated under 1/100 of it with any strategy (TestBuiltinsWithinBudget).
var DefaultBudget = Budget{CPU: 10 * time.Minute, Memory: 2e9}

// Estimate returns the cost of one run of scn with the costliest of the named strategies
// (every catalog strategy when none is named): for each figure, the largest over them. Zero
// fields of scn get the simulator's defaults, as in New. It does not validate scn: a scenario
// outside the limits of package scenarios gets an estimate all the same.
func Estimate(scn scenarios.Scenario, strategies ...string) Cost {
	scn = withDefaults(scn)
	if len(strategies) == 0 {
		strategies = strategy.Names()
	}
	var c Cost
	for i, name := range strategies {
		e := estimateOne(scn, costOf(name))
		if i == 0 || e.Attempts > c.Attempts {
			c.Arrivals, c.Attempts = e.Arrivals, e.Attempts
		}
		if i == 0 || e.CPU > c.CPU {
			c.CPU, c.cpuAdvice = e.CPU, e.cpuAdvice
		}
		if i == 0 || e.Memory > c.Memory {
			c.Memory, c.memAdvice = e.Memory, e.memAdvice
			c.held, c.entries, c.live = e.held, e.entries, e.live
		}
	}
	return c
}

// estimateOne applies the formulas of the model (above) to scn with the strategy sc.
func estimateOne(scn scenarios.Scenario, sc strategy.Footprint) Cost {
	d := scn.Duration.Seconds()
	dt := scn.Tick.Seconds()
	timeout := scn.Timeout.Seconds()
	tiers := math.Pow(1+TierRetries, float64(scn.Layers-1))
	k := float64(1+sc.Retries) * tiers

	var mean, lambda, users, checks float64
	if scn.Loop.Closed {
		users = float64(scn.Loop.Users)
		think := max(scn.Loop.Think, time.Duration(minThink)).Seconds()
		mean = users * (d/think + 1)
		lambda = users / think
		if len(scn.Load) > 0 {
			checks = users * d // an idle user looks again after at least a second
		}
	} else {
		mean = scn.RateSeconds()
		lambda = scn.PeakRate()
	}
	var c Cost
	c.Arrivals = mean + 4*math.Sqrt(mean)
	c.Attempts = c.Arrivals * k

	ticks := math.Ceil(float64(scn.Duration+scn.Drain) / float64(scn.Tick))
	window := max(1, math.Floor(1/dt))
	clients := float64(scn.Clients)
	classes := float64(len(scn.Classes))
	attemptNs := (c.Attempts + checks) * nsPerAttempt
	clientNs := ticks * clients * sc.TickNs
	tickNs := ticks*(nsPerTick+window*nsPerWindowTick+classes*nsPerClassTick) + clientNs
	c.CPU = time.Duration(min(attemptNs+tickNs, math.MaxInt64/2))
	switch {
	case attemptNs >= tickNs:
		c.cpuAdvice = trafficAdvice(scn)
	case clientNs >= tickNs/2:
		c.cpuAdvice = advice{lower: []string{"fleet.clients", "duration"}}
	default:
		c.cpuAdvice = advice{lower: []string{"duration"}, raise: []string{"tick"}}
	}

	life := min(scn.Deadline+scn.Timeout, time.Duration(1+sc.Retries)*scn.Timeout+time.Duration(sc.Retries)*sc.MaxDelay).Seconds() + dt
	live := lambda * life
	if scn.Loop.Closed {
		live = users
	}
	chains := 1.0
	if scn.Layers > 1 {
		chains = float64(1 + sc.Retries)
	}
	terms := []struct {
		bytes  float64
		advice advice
	}{
		{clients * sc.ClientBytes, advice{lower: []string{"fleet.clients"}}},
		{users * bytesPerUser, advice{lower: []string{"fleet.users"}}},
		{float64(scn.Service.QueueLimit) * bytesPerAttempt, advice{lower: []string{"service.queue_limit"}}},
		{float64(scn.Service.Workers) * bytesPerAttempt, advice{lower: []string{"service.workers"}}},
		{live * chains * bytesPerAttempt, liveAdvice(scn)},
		{lambda * k * (timeout + dt) * bytesPerEntry, entriesAdvice(scn)},
	}
	c.held = float64(scn.Service.QueueLimit+scn.Service.Workers) + live*chains
	c.entries = lambda * k * (timeout + dt)
	c.live = live
	c.Memory = bytesBase
	largest := 0.0
	for _, t := range terms {
		c.Memory += t.bytes
		if t.bytes > largest {
			largest, c.memAdvice = t.bytes, t.advice
		}
	}
	return c
}

// advice is what to change in a scenario to lower a cost: fields to lower and to raise.
type advice struct{ lower, raise []string }

// merge returns the fields of a and b, each once, a's first.
func (a advice) merge(b advice) advice {
	union := func(x, y []string) []string {
		out := append([]string(nil), x...)
		for _, f := range y {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
		return out
	}
	return advice{union(a.lower, b.lower), union(a.raise, b.raise)}
}

// String says it: "lower fleet.users or duration, or raise fleet.think".
func (a advice) String() string {
	var parts []string
	if len(a.lower) > 0 {
		parts = append(parts, "lower "+orList(a.lower))
	}
	if len(a.raise) > 0 {
		parts = append(parts, "raise "+orList(a.raise))
	}
	return strings.Join(parts, ", or ")
}

// trafficAdvice names the fields that set how much traffic a run simulates.
func trafficAdvice(scn scenarios.Scenario) advice {
	var a advice
	if scn.Loop.Closed {
		a.lower = append(a.lower, "fleet.users")
		a.raise = append(a.raise, "fleet.think")
	} else {
		a.lower = append(a.lower, rateFields(scn)...)
	}
	if scn.Layers > 1 {
		a.lower = append(a.lower, "fleet.layers")
	}
	a.lower = append(a.lower, "duration")
	return a
}

// rateFields names the fields that set an open loop's arrival rate: the classes' rates, and
// the load factors, the scenario's and the classes' own, that raise it.
func rateFields(scn scenarios.Scenario) []string {
	fields := []string{"class[*].rate"}
	if scn.PeakLoad() > 1 {
		fields = append(fields, "load[*].factor")
	}
	for i := range scn.Classes {
		if slices.ContainsFunc(scn.Classes[i].Load, func(p scenarios.LoadPoint) bool { return p.Factor > 1 }) {
			fields = append(fields, "class[*].load[*].factor")
			break
		}
	}
	return fields
}

// liveAdvice names the fields that set how many requests are alive at once.
func liveAdvice(scn scenarios.Scenario) advice {
	if scn.Loop.Closed {
		return advice{lower: []string{"fleet.users"}}
	}
	a := advice{lower: rateFields(scn)}
	if scn.Layers > 1 {
		a.lower = append(a.lower, "fleet.layers")
	}
	a.lower = append(a.lower, "fleet.deadline")
	return a
}

// entriesAdvice names the fields that set how many attempts are sent within a timeout.
func entriesAdvice(scn scenarios.Scenario) advice {
	a := trafficAdvice(scn)
	a.lower[len(a.lower)-1] = "fleet.timeout" // instead of duration
	return a
}

// orList joins items as "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// Within reports whether c fits in b.
func (c Cost) Within(b Budget) bool { return c.CPU <= b.CPU && c.Memory <= b.Memory }

// Check returns nil when c fits in b, and otherwise an *OverBudgetError that gives the
// estimate, the budget and what to change.
func (c Cost) Check(b Budget) error {
	if c.Within(b) {
		return nil
	}
	return &OverBudgetError{Cost: c, Budget: b}
}

// String gives the estimate in a few words: "up to 2.1e5 attempts, 12 MB".
func (c Cost) String() string {
	return fmt.Sprintf("up to %s attempts, %s", FormatCount(c.Attempts), FormatBytes(c.Memory))
}

// OverBudgetError is a run whose estimate exceeds the budget. Its message says what the run
// would take, what the budget is and which fields of the scenario to change, e.g. "this run
// would simulate up to 1.2e9 attempts (about 10 minutes of CPU) and hold up to 3.1 GB; the
// budget is 10 minutes of CPU and 2 GB a run; lower class[*].rate or duration".
type OverBudgetError struct {
	Cost   Cost
	Budget Budget
}

func (e *OverBudgetError) Error() string {
	c, b := e.Cost, e.Budget
	var a advice
	if c.CPU > b.CPU {
		a = a.merge(c.cpuAdvice)
	}
	if c.Memory > b.Memory {
		a = a.merge(c.memAdvice)
	}
	return fmt.Sprintf("this run would simulate up to %s attempts (about %s of CPU) and hold up to %s; the budget is %s of CPU and %s a run; %s",
		FormatCount(c.Attempts), FormatCPU(c.CPU), FormatBytes(c.Memory), FormatCPU(b.CPU), FormatBytes(b.Memory), a)
}

// FormatCount writes a count of things for a person: "3000" under 10,000, then "2.1e5", "1e9".
func FormatCount(x float64) string {
	if x < 1e4 {
		return fmt.Sprintf("%.0f", math.Ceil(x))
	}
	exp := int(math.Floor(math.Log10(x)))
	m := x / math.Pow(10, float64(exp))
	if m >= 9.95 { // rounds up to 10.0
		m, exp = 1, exp+1
	}
	s := strings.TrimSuffix(fmt.Sprintf("%.1f", m), ".0")
	return fmt.Sprintf("%se%d", s, exp)
}

// FormatBytes writes a size in decimal units: "640 KB", "12 MB", "3.1 GB", "2 GB".
func FormatBytes(b float64) string {
	switch {
	case b < 1e6:
		return fmt.Sprintf("%.0f KB", math.Ceil(b/1e3))
	case b < 1e9:
		return fmt.Sprintf("%.0f MB", math.Ceil(b/1e6))
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", b/1e9), ".0") + " GB"
}

// FormatCPU writes a CPU time roughly: "under a second", "40 seconds", "8 minutes", "2.5 hours".
func FormatCPU(d time.Duration) string {
	switch {
	case d < time.Second:
		return "under a second"
	case d < 90*time.Second:
		return fmt.Sprintf("%.0f seconds", d.Seconds())
	case d < 90*time.Minute:
		return fmt.Sprintf("%.0f minutes", d.Minutes())
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", d.Hours()), ".0") + " hours"
}
