// Package report turns a stream of source.Snapshots into the per-second timeline and the run
// summary defined in the simulation spec, and prints them (JSON, CSV, tables, markdown). The
// headless run command, bench and the dashboard's export and end-of-run summary all compute
// their numbers here, so they always agree. The package imports no UI library.
package report

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/source"
)

// Signals are the five CORTEX signals of a timeline row, averaged over the second.
type Signals struct {
	F float64 `json:"F"`
	L float64 `json:"L"`
	Q float64 `json:"Q"`
	B float64 `json:"B"`
	C float64 `json:"C"`
}

// Row is one simulated second of the timeline: counts are summed over the second's ticks,
// gauges (capacity, queue, CPS, signals) averaged, and the strings (service, state, circuit)
// are the values at the end of the second. CPS, State, Circuit and Signals are nil unless the
// strategy was cortex during the second. The JSON and CSV columns are the spec's.
type Row struct {
	T         int                 `json:"t"` // start of the second, in seconds from the start of the run
	Originals int                 `json:"originals"`
	Attempts  int                 `json:"attempts"`
	Retries   int                 `json:"retries"`
	Successes int                 `json:"successes"`
	Failures  int                 `json:"failures"`
	Shed      int                 `json:"shed"`
	Service   source.ServiceState `json:"service"`  // UP, DOWN, CRASHED or WARMING, at the end of the second
	Capacity  float64             `json:"capacity"` // requests/s
	Queue     float64             `json:"queue"`    // mean queue length
	CPS       *float64            `json:"cps"`
	State     *string             `json:"state"`
	Circuit   *string             `json:"circuit"`
	Signals   *Signals            `json:"signals"`
}

// Summary is the result of one run: exactly one element of bench's "runs". RecoverySeconds is
// nil when the service never recovered (printed as null / "never"). PrioritySuccess maps a
// priority (as a decimal string) to the success rate of the originals of that priority; a
// priority with no arrivals is absent. Rates are in [0,1], rounded to 4 decimals; Goodput is
// in requests/s, rounded to 2 decimals.
type Summary struct {
	Scenario      string  `json:"scenario"`
	Strategy      string  `json:"strategy"`
	Engine        string  `json:"engine,omitempty"` // the cortex strategy's engine configuration, when not the defaults (source.Meta.Engine)
	Seed          int64   `json:"seed"`
	SuccessRate   float64 `json:"success_rate"`
	Goodput       float64 `json:"goodput"`        // completed originals per second of the arrival phase
	Originals     int     `json:"originals"`      // the original requests that arrived
	OriginalsShed int     `json:"originals_shed"` // new requests shed by priority before they were sent (SHED_LOW_PRIORITY)
	LocalRefusals int     `json:"local_refusals"` // attempts the strategy refused to send, any reason, new requests and retries
	// InFlightCapRefused counts the originals a live run refused because --max-inflight
	// requests were alive (in LocalRefusals too); absent when none (every simulated run).
	InFlightCapRefused int                `json:"inflight_cap_refused,omitempty"`
	PeakAmplification  float64            `json:"peak_amplification"`
	Amplification      float64            `json:"amplification"`
	Retries            int                `json:"retries"`
	WastedRetries      int                `json:"wasted_retries"`
	RecoverySeconds    *float64           `json:"recovery_seconds"`
	Crashes            int                `json:"crashes"`
	PrioritySuccess    map[string]float64 `json:"priority_success"`
	// Oracle is the oracle's bound on this run's success (null where none is computed: a
	// closed loop, a run with controls, a live run, a dashboard's run not finished). bench,
	// run --headless and the dashboard's export of a finished simulated run fill it.
	Oracle *Oracle `json:"oracle"`
	// FailureCauses counts the failed attempts by cause (source.FailureCause's words: "timeout",
	// "oversize headers", ...); live runs only, absent when empty (every simulated run).
	FailureCauses map[string]int `json:"failure_causes,omitempty"`
}

// Recorder accumulates snapshots into timeline rows (one per simulated second, so a 24 h run
// holds 86,400 rows) and the totals of the summary, with an Accumulator. The zero value is not
// usable: call NewRecorder. A Recorder is not safe for concurrent use.
type Recorder struct {
	meta source.Meta

	acc  Accumulator
	rows []Row // the closed seconds

	byPriority map[int]*[2]int // priority -> {arrived, succeeded}

	elapsed time.Duration // end of the last tick added

	faultSeen             bool
	firstFault, lastFault time.Duration // start of the first faulty tick, end of the last one
	crashSeen             bool
	firstCrash, lastCrash time.Duration // start of the first crashed tick, end of the last one
}

// NewRecorder returns a Recorder for a run described by meta.
func NewRecorder(meta source.Meta) *Recorder {
	return &Recorder{meta: meta, byPriority: make(map[int]*[2]int)}
}

// SwitchStrategy notes that the run goes on under another strategy from now on: the summary
// then names every strategy the run used, in order, joined by "+", e.g. "cortex+naive", so an
// export never passes a mixed run off as one strategy's. Add calls it for every strategy switch
// a snapshot's events say the source applied (the dashboard's key, a scenario's [[control]]).
func (r *Recorder) SwitchStrategy(name string) {
	if name == "" || strings.HasSuffix("+"+r.meta.Strategy, "+"+name) {
		return
	}
	r.meta.Strategy += "+" + name
}

// Add accounts for one tick. Ticks must come in time order; a tick belongs to the second in
// which it starts. When the tick starts a new second, Add returns the second it closed (as
// Accumulator.Add does), for a caller that keeps seconds of its own (the dashboard's charts).
func (r *Recorder) Add(s source.Snapshot) (closed Second, ok bool) {
	start := s.T - s.Dt
	if start < 0 {
		start = 0
	}
	if closed, ok = r.acc.Add(s); ok {
		r.rows = append(r.rows, closed.Row())
	}
	for _, e := range s.Events {
		if e.Kind == source.EventControl && e.Control.Control == source.ControlStrategy {
			r.SwitchStrategy(e.Control.Strategy)
		}
	}

	r.elapsed = max(r.elapsed, s.T)
	for _, ct := range s.Classes {
		p := r.byPriority[ct.Priority]
		if p == nil {
			p = new([2]int)
			r.byPriority[ct.Priority] = p
		}
		p[0] += ct.Arrived
		p[1] += ct.Succeeded
	}
	if len(s.Faults) > 0 {
		if !r.faultSeen {
			r.faultSeen, r.firstFault = true, start
		}
		r.lastFault = s.T
	}
	if s.Service.State == source.ServiceCrashed {
		if !r.crashSeen {
			r.crashSeen, r.firstCrash = true, start
		}
		r.lastCrash = s.T
	}
	return closed, ok
}

// Current returns the second in progress, false before the first tick.
func (r *Recorder) Current() (Second, bool) { return r.acc.Current() }

// Totals returns the counters summed over every tick so far, in O(1).
func (r *Recorder) Totals() Totals { return r.acc.Totals() }

// PeakAmplification is the summary's peak_amplification as of now, unrounded, in O(log n).
func (r *Recorder) PeakAmplification() float64 { return r.acc.PeakAmplification() }

// Rows returns a copy of the timeline so far, the second in progress included.
func (r *Recorder) Rows() []Row {
	t := r.timeline()
	rows := make([]Row, len(t))
	copy(rows, t)
	return rows
}

// timeline returns the timeline so far, the second in progress included, without copying it:
// the closed seconds are r.rows itself, and the second in progress is written into the slot
// just past their end (which the next flush overwrites). The result is only valid until the
// next Add; Rows copies it for callers.
func (r *Recorder) timeline() []Row {
	cur, open := r.acc.Current()
	if !open {
		return r.rows
	}
	n := len(r.rows)
	r.rows = append(r.rows, cur.Row())
	rows := r.rows
	r.rows = r.rows[:n]
	return rows
}

// Summary returns the summary as of now; once the run is done it is the final one.
//
//   - success_rate = originals completed within their deadline / originals arrived (0 when
//     none arrived); originals still pending at the end count as failed.
//   - goodput = originals completed within their deadline / the arrival phase in seconds
//     (meta.Duration), in requests/s: completions during the drain count, the drain's time does
//     not. Before the arrival phase is over (or without one: a live run), the time elapsed so
//     far replaces it. 0 before any time has elapsed. Unlike success_rate it does not reward
//     holding users on doomed retries: it is the useful work the service delivered per second.
//   - priority_success: the same per priority.
//   - amplification = all attempts reaching the service / all originals.
//   - peak_amplification = the largest attempts/originals over the 1 s windows of the
//     timeline, among seconds with at least a tenth of the mean originals per second (so a
//     near-empty second, e.g. at the end of a ramp, cannot produce a spurious peak).
//   - originals: the original requests that arrived (refused ones included); originals_shed, the
//     new requests shed by priority (SHED_LOW_PRIORITY) before they were sent; local_refusals,
//     every attempt the strategy refused to send; inflight_cap_refused, the originals a live
//     run refused because its bound on requests alive at once was reached (in local_refusals).
//   - retries and wasted_retries (retries that failed).
//   - recovery_seconds: see Recovery.
//   - crashes: overload crashes of the service.
//   - failure_causes: the failed attempts by cause (live runs).
func (r *Recorder) Summary() Summary {
	t := r.acc.Totals()
	s := Summary{
		Scenario:           r.meta.Scenario,
		Strategy:           r.meta.Strategy,
		Engine:             r.meta.Engine,
		Seed:               r.meta.Seed,
		Originals:          t.Originals,
		OriginalsShed:      t.Refusals[source.ReasonShed],
		LocalRefusals:      t.LocalRejects,
		InFlightCapRefused: t.InFlightCapRefused,
		Retries:            t.Retries,
		WastedRetries:      t.RetryFailures,
		Crashes:            t.Crashes,
		PrioritySuccess:    make(map[string]float64, len(r.byPriority)),
	}
	span := r.elapsed
	if d := r.meta.Duration; d > 0 {
		span = min(span, d)
	}
	if span > 0 {
		s.Goodput = round(float64(t.Completed)/span.Seconds(), 2)
	}
	if t.Originals > 0 {
		s.SuccessRate = round(t.SuccessRate(), 4)
		s.Amplification = round(t.Amplification(), 4)
	}
	for p, v := range r.byPriority {
		if v[0] > 0 {
			s.PrioritySuccess[strconv.Itoa(p)] = round(float64(v[1])/float64(v[0]), 4)
		}
	}
	s.FailureCauses = FailureCauses(t.FailureCauses)
	s.PeakAmplification = round(r.acc.PeakAmplification(), 4)
	s.RecoverySeconds = r.recovery(r.timeline())
	return s
}

// Recovery window lengths of the spec.
const (
	ratioWindow = 5  // seconds of the success ratio of attempts
	holdWindow  = 10 // seconds the ratio must hold
	ratioShare  = 0.9
)

// recovery implements the spec's recovery time: from the end of the last fault (scheduled or
// injected) until the service is UP and the 5 s success ratio of attempts has reached 90% of
// its level in the 5 s before the first fault, and both have held for 10 s. The time is
// measured to the end of the first second of that 10 s hold, in seconds (0.1 s resolution).
// nil means never (not before the run ended). A run without any fault uses the service's
// overload crashes as the disturbance (from the first crash to the end of the last one); a
// run with neither has nothing to recover from and returns 0, which a recovery never is (at
// least 0.1 s), so RecoveryText can say "none needed".
func (r *Recorder) recovery(rows []Row) *float64 {
	var first, last time.Duration
	switch {
	case r.faultSeen:
		first, last = r.firstFault, r.lastFault
	case r.crashSeen:
		first, last = r.firstCrash, r.lastCrash
	default:
		zero := 0.0
		return &zero
	}
	firstSec := int(first / time.Second)
	pre := 1.0
	if succ, all := window(rows, firstSec-ratioWindow, firstSec-1); all > 0 {
		pre = float64(succ) / float64(all)
	}
	target := ratioShare * pre
	ok := func(s int) bool {
		if rows[s].Service != source.ServiceUp {
			return false
		}
		succ, all := window(rows, s-ratioWindow+1, s)
		return all > 0 && float64(succ) >= target*float64(all)
	}
	startSec := int(last / time.Second)
	run := 0
	for s := startSec; s < len(rows); s++ {
		if !ok(s) {
			run = 0
			continue
		}
		run++
		if run == holdWindow {
			reached := time.Duration(s-holdWindow+2) * time.Second // end of the first held second
			v := round(math.Max(0.1, (reached-last).Seconds()), 1)
			return &v
		}
	}
	return nil
}

// window sums successes and successes+failures over rows[from..to], clamped to the timeline.
func window(rows []Row, from, to int) (succ, all int) {
	from = max(from, 0)
	to = min(to, len(rows)-1)
	for i := from; i <= to; i++ {
		succ += rows[i].Successes
		all += rows[i].Successes + rows[i].Failures
	}
	return succ, all
}

// round rounds x to n decimals.
func round(x float64, n int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	p := math.Pow10(n)
	return math.Round(x*p) / p
}
