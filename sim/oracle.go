package sim

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// The oracle: an upper bound on the success of any run of a scenario with a seed, computed from
// the scenario alone (docs/simulator.md, "The oracle bound"). An omniscient scheduler knows the
// run's arrivals (drawn by scenarios.Arrivals from the seed, the same for every strategy) and
// the service's capacity over time (this simulator's own physics replayed without traffic: the
// fault timeline, the warm-up after an outage, never a crash), and sends each original's
// attempt when a worker is free, so that it never waits in the queue. What it cannot choose is
// the service's randomness: a processed attempt takes a lognormal service time (one that
// exceeds the per-attempt timeout fails, the work done all the same) and fails with the
// errors fault's probability, so each success costs its attempt and, in expectation, the
// failed ones beside it. In steps of time (the tick, or 100 ms when the tick is shorter):
//
//	starts_k  = eff_k x step / S_k + (1 + CV^2) x (workers becoming usable at k)
//	            attempts that can start: the busy workers' renewals (Lorden's bound gives each
//	            worker at most 1 + CV^2 starts beyond its time / S, where CV^2 = e^(sigma^2) - 1)
//	attempts_k = min(starts_k, the throttle's tokens)  (rate R, burst R, full when it starts)
//	g_k       = P(service time <= timeout) x (1 - errors fraction)    (the least in reach)
//	success_k = g_k x attempts_k                                      (a fluid capacity)
//
// where eff_k and S_k are the effective workers and mean service time of the step (0 workers
// while DOWN; during a blackhole no attempt reaches the service, but for one timeout after it
// starts the workers still serve what was queued before, usable by originals that arrived
// before it). An original arriving in step a can use the capacity of the steps a to
// a + ceil(deadline / step) (its answer must reach the client by the deadline); during a
// bad_requests fault an attempt is refused (4xx, not retryable) with its fraction, so an
// original counts at most 1 minus the smallest fraction in its reach. The bound is the most
// originals such a schedule serves: a maximum flow on a convex bipartite graph, which serving
// each step's capacity to the oldest pending originals (Glover's greedy) reaches. Served highest
// priority first: the originals that can be served form a (poly)matroid, so the greedy by
// priority is also the most in total, and for every priority p the originals of priority >= p
// it serves are the most that any schedule can serve of them.

// PriorityBound is the oracle's figures for one priority (Bound.Priorities).
type PriorityBound struct {
	Priority int // the priority (of one class or of several)
	Arrived  int // originals of this priority in the run
	// Success is the originals of this priority the oracle serves when every higher priority
	// has been served all it can: at most Arrived. For the highest priority it bounds what any
	// strategy achieves; for the others it is their share under the priority order (a strategy
	// that favours a lower priority can serve it more, and then the higher ones less).
	Success float64
	// AtLeast is the most originals of this priority and the higher ones, together, that any
	// schedule can serve: an upper bound on their successes summed, for every strategy.
	AtLeast float64
}

// Rate is Success / Arrived, the oracle's success rate of the priority (0 with no arrivals).
func (p PriorityBound) Rate() float64 {
	if p.Arrived == 0 {
		return 0
	}
	return p.Success / float64(p.Arrived)
}

// Bound is the oracle's upper bound on the success of one run of a scenario with a seed
// (Oracle). The zero value is a run without arrivals.
type Bound struct {
	Arrived    int             // originals of the run
	Success    float64         // the most of them that can succeed (a fluid count, <= Arrived)
	Priorities []PriorityBound // one per priority with arrivals, the highest first
}

// Rate is Success / Arrived: the bound on the run's success rate (0 with no arrivals).
func (b Bound) Rate() float64 {
	if b.Arrived == 0 {
		return 0
	}
	return b.Success / float64(b.Arrived)
}

// PriorityRates is the bound on each priority's success rate, by priority (report.NewOracle's
// argument); empty with no arrivals.
func (b Bound) PriorityRates() map[int]float64 {
	prios := make(map[int]float64, len(b.Priorities))
	for _, p := range b.Priorities {
		prios[p.Priority] = p.Rate()
	}
	return prios
}

// ErrClosedLoop is Oracle's answer for a closed-loop scenario: its arrivals are not the
// scenario's alone (a user sends its next request only when the last one ends), so there is no
// sequence of arrivals to bound the schedule of.
var ErrClosedLoop = errors.New("no oracle bound in a closed loop: the arrivals depend on the schedule")

// ErrControlled is Oracle's answer for a scenario with a timeline of controls ([[control]], a
// recorded demo): they inject faults and move classes and strategies at run time, which the
// bound, computed from the scenario's own faults and classes, does not know of.
var ErrControlled = errors.New("no oracle bound for a scenario with controls: they change the faults and classes the bound is computed from")

// oracleStep is the shortest step of the oracle: finer ticks are summed into steps of at least
// 100 ms, and only a timeout's worth of ticks is held at once, which keeps its memory small for
// a run of an hour at 1 ms ticks; it loosens the bound by at most a step of each original's
// reach.
const oracleStep = 100 * time.Millisecond

// Oracle returns the oracle's upper bound on the success of a run of scn from seed, whatever
// the strategy (see the comment above, and docs/simulator.md). It costs a replay of the
// service's state tick by tick and a draw of the run's arrivals: a few milliseconds for a
// built-in scenario, less than any strategy's run. Zero fields of scn get the defaults, as in
// New; an invalid scenario is New's error, a closed loop ErrClosedLoop, one with controls
// ErrControlled.
func Oracle(scn scenarios.Scenario, seed int64) (Bound, error) {
	if len(scn.Controls) > 0 {
		return Bound{}, ErrControlled
	}
	s, err := New(scn, "none", seed) // the strategy plays no part: no traffic is sent
	if err != nil {
		return Bound{}, err
	}
	if s.scn.Loop.Closed {
		return Bound{}, ErrClosedLoop
	}
	o := newOracleRun(s)
	o.replay(s, seed)
	return o.bound(), nil
}

// oracleRun holds the steps of one oracle computation.
type oracleRun struct {
	steps      int // of the run
	perStep    int // ticks per step
	stepSec    float64
	reach      int   // steps an original can wait: ceil(deadline / step)
	prios      []int // the distinct priorities, highest first
	prioOf     []int // class -> index in prios
	attempts   []float64
	success    []float64 // per attempt, g (weighted over the step's ticks)
	throttle   []float64 // the throttle's rate in the step (0: none)
	burst      []bool    // a throttle starts in the step: its bucket is full
	restricted []int     // only originals of steps <= this one may use the step (early blackhole); math.MinInt: any
	refused    []float64 // the smallest bad_requests fraction of the step
	arrived    [][]float64
	without    Knowledge     // the knowledge removed (OracleWithout)
	share      float64       // of each step's capacity this schedule may use (0: all)
	arrivedBy  [][][]float64 // NoCoordination: client -> priority -> step
}

func newOracleRun(s *Sim) *oracleRun {
	scn := s.scn
	per := max(1, int((oracleStep+scn.Tick-1)/scn.Tick))
	step := time.Duration(per) * scn.Tick
	n := int((scn.Duration + scn.Drain + step - 1) / step)
	o := &oracleRun{steps: n, perStep: per, stepSec: step.Seconds(), reach: int((scn.Deadline + step - 1) / step)}
	for _, c := range scn.Classes {
		if !slices.Contains(o.prios, c.Priority) {
			o.prios = append(o.prios, c.Priority)
		}
	}
	slices.SortFunc(o.prios, func(a, b int) int { return b - a })
	for _, c := range scn.Classes {
		o.prioOf = append(o.prioOf, slices.Index(o.prios, c.Priority))
	}
	o.attempts, o.success, o.throttle = make([]float64, n), make([]float64, n), make([]float64, n)
	o.burst, o.restricted, o.refused = make([]bool, n), make([]int, n), make([]float64, n)
	o.arrived = make([][]float64, len(o.prios))
	for i := range o.arrived {
		o.arrived[i] = make([]float64, n)
	}
	return o
}

// replay steps the service of s without traffic through the whole run, tick by tick, as the
// simulator does (beginTick: the fault timeline, restarts and warm-up), noting each step's
// capacity, and draws the run's arrivals from seed as the simulator does.
func (o *oracleRun) replay(s *Sim, seed int64) {
	scn := s.scn
	tick := int64(scn.Tick)
	dt := scn.Tick.Seconds()
	timeout := scn.Timeout.Seconds()
	sigma := scn.Service.Sigma
	cv2 := math.Expm1(sigma * sigma)        // the lognormal's squared coefficient of variation
	within := func(meanS float64) float64 { // P(service time <= timeout)
		if sigma == 0 {
			return b2f(meanS <= timeout)
		}
		z := (math.Log(timeout/meanS) + sigma*sigma/2) / sigma // ln d ~ N(ln S - sigma^2/2, sigma^2)
		return 0.5 * math.Erfc(-z/math.Sqrt2)
	}
	ticks := int((s.total + tick - 1) / tick)
	const open = math.MinInt // a step any original in reach may use
	for k := range o.restricted {
		o.restricted[k] = -2 // not seen yet
	}
	prevUsable := 0.0
	// add counts tick i, with the least errors fraction errMin in its attempts' reach, into its
	// step; the ticks come in order.
	add := func(i int, st oracleTick, errMin float64) {
		k := i / o.perStep
		starts := st.usable * dt / st.meanS
		if fresh := st.usable - prevUsable; fresh > 0 {
			starts += (1 + cv2) * fresh // each worker that becomes usable starts afresh
		}
		prevUsable = st.usable
		o.attempts[k] += starts
		if o.without&NoFaultEnd != 0 {
			errMin = st.errs // the fraction in force when it is sent
		}
		o.success[k] += starts * within(st.meanS) * (1 - errMin)
		o.throttle[k] = max(o.throttle[k], st.throttle)
		switch {
		case st.bhFrom == -2:
			o.restricted[k] = open // a step with a tick outside a blackhole is open to all
		case o.restricted[k] != open:
			o.restricted[k] = max(o.restricted[k], st.bhFrom)
		}
	}
	// The errors fault acts when an attempt ends, within a timeout of its start: the least
	// fraction over the next w ticks bounds its success. The ticks wait in a ring of w until
	// that is known (a sliding minimum, with a deque of increasing fractions), so the memory
	// is a timeout's worth of ticks, not the run's.
	w := int((int64(scn.Timeout)+tick-1)/tick) + 1
	ring := make([]oracleTick, w)
	var dq []int // ticks in the window whose fraction no later tick undercuts, increasing
	settle := func(i int) {
		for dq[0] < i {
			dq = dq[1:]
		}
		add(i, ring[i%w], ring[dq[0]%w].errs)
	}
	bhStart := int64(-1) // start of the blackhole in effect
	prevThrottle := 0.0
	for i := range ticks {
		t := int64(i) * tick
		s.beginTick(t)
		s.events = s.events[:0]
		st := oracleTick{usable: float64(s.svc.Eff), meanS: s.svc.MeanS, bhFrom: -2}
		if v := s.fx.Errors; v > 0 {
			st.errs = v
		}
		if v := s.fx.Throttle; v > 0 {
			st.throttle = v
			if prevThrottle == 0 {
				o.burst[i/o.perStep] = true // the bucket starts full
			}
		}
		prevThrottle = st.throttle
		if v := s.fx.BadRequests; v > 0 {
			o.refused[i/o.perStep] = max(o.refused[i/o.perStep], v)
		}
		if s.fx.Hang {
			if bhStart < 0 {
				bhStart = t
			}
			// No new attempt reaches the service; what was queued before it started is served
			// for one timeout more (by originals that arrived before it: those of the steps
			// before its own, and of its own step if it started within it), then nothing is.
			st.bhFrom = int(bhStart/tick) / o.perStep
			if int(bhStart/tick)%o.perStep == 0 {
				st.bhFrom--
			}
			if t >= bhStart+int64(scn.Timeout) {
				st.usable = 0
			}
		} else {
			bhStart = -1
		}
		ring[i%w] = st
		for len(dq) > 0 && ring[dq[len(dq)-1]%w].errs >= st.errs {
			dq = dq[:len(dq)-1]
		}
		dq = append(dq, i)
		if i >= w-1 {
			settle(i - w + 1)
		}
	}
	for i := max(0, ticks-w+1); i < ticks; i++ {
		settle(i)
	}
	for k := range o.steps {
		if o.attempts[k] > 0 {
			o.success[k] /= o.attempts[k] // per attempt
		}
	}
	// The arrivals, drawn exactly as the simulator draws them (scenarios.Arrivals).
	arr := scenarios.NewArrivals(scn, rand.New(rand.NewPCG(uint64(seed), scenarios.ArrivalStream)), scn.Clients)
	rates := make([]float64, len(scn.Classes))
	for i, c := range scn.Classes {
		rates[i] = c.Rate
	}
	if o.without&NoCoordination != 0 {
		o.arrivedBy = make([][][]float64, max(1, scn.Clients))
		for c := range o.arrivedBy {
			o.arrivedBy[c] = make([][]float64, len(o.prios))
			for p := range o.arrivedBy[c] {
				o.arrivedBy[c][p] = make([]float64, o.steps)
			}
		}
	}
	var buf []scenarios.Arrival
	for t := int64(0); t < s.duration; t += tick {
		buf = arr.Draw(buf[:0], time.Duration(t), time.Duration(min(t+tick, s.duration)), time.Duration(t+tick/2), rates, 0)
		k := int(t/tick) / o.perStep
		for _, a := range buf {
			o.arrived[o.prioOf[a.Class]][k]++
			if o.arrivedBy != nil {
				o.arrivedBy[a.Client%len(o.arrivedBy)][o.prioOf[a.Class]][k]++
			}
		}
	}
}

// oracleTick is the service during one tick, as the oracle reads it.
type oracleTick struct {
	usable   float64 // workers that can take an attempt sent then
	meanS    float64 // mean service time, s
	throttle float64 // the throttle's rate, 0 without one
	errs     float64 // the errors fraction
	bhFrom   int     // in a blackhole: the last step whose arrivals may use the tick; -2 otherwise
}

// slidingMin returns, for each i, the least of xs[i:i+w] (w >= 1), with a monotonic deque.
func slidingMin(xs []float64, w int) []float64 {
	out := make([]float64, len(xs))
	var dq []int // indexes of increasing values
	for i := len(xs) - 1; i >= 0; i-- {
		for len(dq) > 0 && xs[dq[len(dq)-1]] >= xs[i] {
			dq = dq[:len(dq)-1]
		}
		dq = append(dq, i)
		for dq[0] >= i+w {
			dq = dq[1:]
		}
		out[i] = xs[dq[0]]
	}
	return out
}

// b2f is 1 for true and 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// bound serves the steps' capacity to the arrivals, the highest priorities first.
func (o *oracleRun) bound() Bound {
	// An original counts at most 1 minus the smallest bad_requests fraction in its reach.
	worth := slidingMin(o.refused, o.reach+1)
	if o.without&NoFaultEnd != 0 {
		worth = slices.Clone(o.refused) // the fraction of its arrival step
	}
	for k := range worth {
		worth[k] = 1 - worth[k]
	}
	var b Bound
	pending := make([]float64, o.steps)
	prev := 0.0
	for p := range o.prios {
		// The originals of priorities 0..p (the highest p+1), weighted by their worth.
		for k := range pending {
			pending[k] = 0
			for q := 0; q <= p; q++ {
				pending[k] += o.arrived[q][k]
			}
			pending[k] *= worth[k]
		}
		served := o.serve(pending)
		arrived := 0.0
		for _, n := range o.arrived[p] {
			arrived += n
		}
		if arrived == 0 {
			prev = served
			continue
		}
		b.Priorities = append(b.Priorities, PriorityBound{Priority: o.prios[p], Arrived: int(arrived),
			Success: min(arrived, max(0, served-prev)), AtLeast: served})
		b.Arrived += int(arrived)
		prev = served
	}
	b.Success = min(float64(b.Arrived), prev)
	return b
}

// serve is Glover's greedy for the most originals served: each step's capacity goes to the
// oldest originals still pending within their reach (pending[a]: the originals that arrived
// in step a, weighted by their worth; it is consumed).
func (o *oracleRun) serve(pending []float64) float64 {
	served, oldest, tokens := 0.0, 0, 0.0
	for k := range o.steps {
		oldest = max(oldest, k-o.reach) // arrivals before it are past their deadline
		capacity := o.attempts[k]       // attempts
		rate := o.throttle[k]
		burst := max(1, rate)
		if o.share > 0 {
			capacity, rate, burst = capacity*o.share, rate*o.share, burst*o.share
		}
		if o.burst[k] {
			tokens = burst
		}
		if rate > 0 {
			tokens += rate * o.stepSec // refilled through the step
			capacity = min(capacity, tokens)
		}
		last := k // the newest arrivals that may use the step
		if r := o.restricted[k]; r != math.MinInt {
			last = min(k, r)
		}
		used, g := 0.0, o.success[k]
		for a := oldest; a <= last && g > 0 && capacity-used > 1e-9; a++ {
			if pending[a] <= 0 {
				if a == oldest {
					oldest++
				}
				continue
			}
			take := min(pending[a], (capacity-used)*g)
			pending[a] -= take
			used += take / g
			served += take
		}
		if rate > 0 {
			tokens = min(burst, tokens-used)
		}
	}
	return served
}
