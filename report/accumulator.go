package report

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/cortex-tui/cortex-tui/source"
)

// Second is one simulated second of a run as its ticks summed it: the counters summed, the
// gauges as sums over the ticks (divide by Ticks, or by CortexTicks for the CORTEX figures), the
// states as at the second's last tick. Nothing is rounded: Row rounds it for the timeline, the
// dashboard's charts keep it as is.
type Second struct {
	T           int                 // the second's index: its start, in whole seconds from the start of the run
	Ticks       int                 // ticks summed (each in the second in which it starts)
	Dt          time.Duration       // the virtual time those ticks cover (1 s, except the last second of a run)
	Counts      source.Counts       // summed over the ticks
	Service     source.ServiceState // the service's state at the last tick
	Capacity    float64             // requests/s, summed over the ticks
	Queue       float64             // queue length, summed over the ticks
	CortexTicks int                 // ticks with a CORTEX view (the strategy was cortex)
	CPS         float64             // summed over the CORTEX ticks
	Signals     Signals             // summed over the CORTEX ticks
	State       string              // CORTEX band at the last CORTEX tick
	Circuit     string              // circuit state at the last CORTEX tick
}

// Row is the second as a timeline row: counts as summed, gauges averaged and rounded (capacity
// and queue to 2 decimals, CPS and signals to 4), the CORTEX fields nil when no tick had them.
func (s Second) Row() Row {
	c := s.Counts
	row := Row{T: s.T, Originals: c.Originals, Attempts: c.Attempts, Retries: c.Retries,
		Successes: c.Successes, Failures: c.Failures, Shed: c.Shed, Service: s.Service}
	if s.Ticks > 0 {
		row.Capacity = round(s.Capacity/float64(s.Ticks), 2)
		row.Queue = round(s.Queue/float64(s.Ticks), 2)
	}
	if s.CortexTicks > 0 {
		n := float64(s.CortexTicks)
		cps := round(s.CPS/n, 4)
		st, ci := s.State, s.Circuit
		row.CPS, row.State, row.Circuit = &cps, &st, &ci
		row.Signals = &Signals{F: round(s.Signals.F/n, 4), L: round(s.Signals.L/n, 4), Q: round(s.Signals.Q/n, 4),
			B: round(s.Signals.B/n, 4), C: round(s.Signals.C/n, 4)}
	}
	return row
}

// Totals are a run's counters summed over every tick so far.
type Totals struct {
	source.Counts
}

// SuccessRate is the originals completed within their deadline over the originals arrived (0
// before any arrived), unrounded.
func (t Totals) SuccessRate() float64 {
	if t.Originals == 0 {
		return 0
	}
	return float64(t.Completed) / float64(t.Originals)
}

// Amplification is the attempts over the originals (0 before any arrived), unrounded.
func (t Totals) Amplification() float64 {
	if t.Originals == 0 {
		return 0
	}
	return float64(t.Attempts) / float64(t.Originals)
}

// Accumulator sums a run's ticks into seconds and totals: the one sum behind the timeline and
// the summary (Recorder) and the dashboard's charts and figures, so they cannot disagree. A tick
// belongs to the second in which it starts. It keeps the second in progress, the totals and what
// the peak amplification needs (see peaks: usually a handful of seconds, at most one per count of
// originals), not the seconds themselves: Recorder keeps the rows, the dashboard a bounded ring.
// Totals and Current are O(1), PeakAmplification O(log n). The zero value is ready to use; it is
// not safe for concurrent use.
type Accumulator struct {
	cur    Second
	open   bool // cur holds at least one tick
	totals Totals
	peaks  peaks
}

// Add takes one tick in; ticks must come in time order. When the tick starts a new second, Add
// closes the second before it and returns it, with ok set.
func (a *Accumulator) Add(s source.Snapshot) (closed Second, ok bool) {
	sec := int(max(s.T-s.Dt, 0) / time.Second)
	if a.open && sec != a.cur.T {
		closed, ok = a.cur, true
		a.peaks.add(closed.Counts.Originals, closed.Counts.Attempts)
		a.open = false
	}
	if !a.open {
		a.cur = Second{T: sec}
		a.open = true
	}
	c := &a.cur
	c.Ticks++
	c.Dt += s.Dt
	addCounts(&c.Counts, s.Counts)
	c.Service = s.Service.State
	c.Capacity += s.Service.Capacity
	c.Queue += float64(s.Service.Queue)
	if v := s.Cortex; v != nil {
		c.CortexTicks++
		c.CPS += v.CPS
		c.Signals.F += v.Signals.F
		c.Signals.L += v.Signals.L
		c.Signals.Q += v.Signals.Q
		c.Signals.B += v.Signals.B
		c.Signals.C += v.Signals.C
		c.State = v.State.String()
		c.Circuit = v.Circuit.String()
	}
	addCounts(&a.totals.Counts, s.Counts)
	return closed, ok
}

// Current returns the second in progress (its ticks so far), false before the first tick.
func (a *Accumulator) Current() (Second, bool) { return a.cur, a.open }

// Totals returns the counters summed over every tick so far.
func (a *Accumulator) Totals() Totals { return a.totals }

// PeakAmplification is the summary's peak_amplification as of now, unrounded: the largest
// attempts/originals of a second, among the seconds (the one in progress included) whose
// originals are at least a tenth of the mean over the seconds with any (so a near-empty second,
// e.g. at the end of a ramp, cannot produce a spurious peak); 0 before any original.
func (a *Accumulator) PeakAmplification() float64 {
	total, n := a.peaks.total, a.peaks.n
	o := 0
	if a.open {
		o = a.cur.Counts.Originals
	}
	if o > 0 {
		total += o
		n++
	}
	if n == 0 {
		return 0
	}
	floor := math.Max(1, 0.1*float64(total)/float64(n))
	peak := a.peaks.max(floor)
	if o > 0 && float64(o) >= floor {
		peak = math.Max(peak, float64(a.cur.Counts.Attempts)/float64(o))
	}
	return peak
}

// peaks keeps what the peak amplification needs of the closed seconds: the sum and count of
// their originals (for the floor) and, of the seconds with originals, those that no other second
// beats on both originals and attempts/originals. Whatever the floor, the peak is the ratio of
// one of those (a second beaten on both qualifies whenever the one it is beaten by does, with a
// ratio no higher), and sorted by originals their ratios fall, so the peak above a floor is the
// ratio of the first of them at or above it. They are few: each has fewer originals and a higher
// ratio than the next.
type peaks struct {
	total, n int         // originals of the closed seconds with any, and how many seconds
	front    []peakPoint // by originals ascending, ratio strictly descending
}

// peakPoint is a second of the front: its originals and attempts/originals.
type peakPoint struct {
	originals int
	ratio     float64
}

// add takes a closed second in.
func (p *peaks) add(originals, attempts int) {
	if originals <= 0 {
		return
	}
	p.total += originals
	p.n++
	r := float64(attempts) / float64(originals)
	i := sort.Search(len(p.front), func(i int) bool { return p.front[i].originals >= originals })
	if i < len(p.front) && p.front[i].ratio >= r {
		return // beaten by front[i]: as many originals or more, a ratio as high or higher
	}
	j := i // front[i:j] and front[k:i] are beaten by the new second, and leave the front
	if j < len(p.front) && p.front[j].originals == originals {
		j++
	}
	k := i
	for k > 0 && p.front[k-1].ratio <= r {
		k--
	}
	p.front = slices.Replace(p.front, k, j, peakPoint{originals: originals, ratio: r})
}

// max is the largest ratio among the closed seconds with at least floor originals (0 if none).
func (p *peaks) max(floor float64) float64 {
	i := sort.Search(len(p.front), func(i int) bool { return float64(p.front[i].originals) >= floor })
	if i == len(p.front) {
		return 0
	}
	return p.front[i].ratio
}

// addCounts adds c to dst, every counter (TestAddCountsSumsEveryField keeps it so when
// source.Counts gains one).
func addCounts(dst *source.Counts, c source.Counts) {
	dst.Originals += c.Originals
	dst.Attempts += c.Attempts
	dst.Retries += c.Retries
	dst.Successes += c.Successes
	dst.Failures += c.Failures
	dst.Timeouts += c.Timeouts
	dst.FastFails += c.FastFails
	dst.ServerErrors += c.ServerErrors
	dst.Throttled += c.Throttled
	dst.BadRequests += c.BadRequests
	dst.LocalRejects += c.LocalRejects
	dst.InFlightCapRefused += c.InFlightCapRefused
	dst.Completed += c.Completed
	dst.Abandoned += c.Abandoned
	for i, d := range c.Decisions {
		dst.Decisions[i] += d
	}
	dst.Shed += c.Shed
	dst.BudgetRejected += c.BudgetRejected
	dst.RetryFailures += c.RetryFailures
	dst.Crashes += c.Crashes
	for i, n := range c.Reasons {
		dst.Reasons[i] += n
	}
	dst.TierRetries += c.TierRetries
	dst.RetryLate += c.RetryLate
	dst.RetryExpired += c.RetryExpired
	dst.RetryRefused += c.RetryRefused
	dst.RetryCapped += c.RetryCapped
	for i, n := range c.Refusals {
		dst.Refusals[i] += n
	}
	for i, n := range c.FailureCauses {
		dst.FailureCauses[i] += n
	}
	dst.Held += c.Held
	dst.HeldExpired += c.HeldExpired
}
