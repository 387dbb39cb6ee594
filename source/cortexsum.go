package source

import "github.com/cortex-tui/cortex-tui/engine"

// CortexSum sums a fleet's engine snapshots into the CortexView of a tick, for every source
// (the simulator and live mode build their snapshots with it): Add one snapshot per CORTEX
// engine and AddCircuit the breaker state of each client without one, then read Circuits and
// View. The zero value is empty; Reset empties it for the next tick. Not safe for concurrent use.
type CortexSum struct {
	v        CortexView
	n        int    // engines added
	circuits [3]int // clients per circuit state (CLOSED, OPEN, HALF_OPEN)
}

// Reset empties the sum.
func (c *CortexSum) Reset() { *c = CortexSum{} }

// Add adds one engine's snapshot: its signals, CPS and tokens to the means, minima and maxima,
// its circuit to the counts, its admission (shedding, floor, share) to the admission's; the first
// engine's weights and adaptive flag are the view's (every client shares the controls).
func (c *CortexSum) Add(e *engine.Snapshot) {
	v := &c.v
	if c.n == 0 {
		*v = CortexView{Weights: e.Weights, Adaptive: e.Adaptive, SigMin: e.Signals, SigMax: e.Signals,
			CPSMin: e.CPS, CPSMax: e.CPS}
	}
	c.n++
	addSignals(&v.Signals, &e.Signals)
	minSignals(&v.SigMin, &e.Signals)
	maxSignals(&v.SigMax, &e.Signals)
	v.CPS += e.CPS
	v.CPSMin = min(v.CPSMin, e.CPS)
	v.CPSMax = max(v.CPSMax, e.CPS)
	v.Tokens += e.Tokens
	v.ShedShare += e.ShedShare
	if e.Shedding {
		v.Shedding++
		v.AdmitFloor = max(v.AdmitFloor, e.AdmitFloor)
	}
	c.AddCircuit(e.Circuit)
}

// AddCircuit counts one client's breaker in state s (a state out of range is not counted).
func (c *CortexSum) AddCircuit(s engine.CircuitState) {
	if i := int(s); i >= 0 && i < len(c.circuits) {
		c.circuits[i]++
	}
}

// Circuits returns how many clients' breakers are OPEN and HALF_OPEN.
func (c *CortexSum) Circuits() (open, halfOpen int) {
	return c.circuits[engine.Open], c.circuits[engine.HalfOpen]
}

// View returns the tick's CortexView: the engines' means, the band and floor of the mean CPS
// (emergency is the CPS where EMERGENCY starts), the most common circuit state and the OPEN
// count; nil when no engine was added. Fleet is left to the caller.
func (c *CortexSum) View(emergency float64) *CortexView {
	if c.n == 0 {
		return nil
	}
	v := c.v
	v.Open = c.circuits[engine.Open]
	f := float64(c.n)
	v.Signals = engine.Signals{F: v.Signals.F / f, L: v.Signals.L / f, Q: v.Signals.Q / f, B: v.Signals.B / f, C: v.Signals.C / f}
	v.CPS /= f
	v.Tokens /= f
	v.ShedShare /= f
	v.Floor = engine.FloorFor(v.CPS)
	v.State = engine.StateFor(v.CPS, emergency)
	best := 0
	for s := range c.circuits {
		if c.circuits[s] > c.circuits[best] {
			best = s
		}
	}
	v.Circuit = engine.CircuitState(best)
	return &v
}

// addSignals adds b to *a, signal by signal. It and minSignals and maxSignals update *a in
// place, field by field: a Signals (five floats) returned by value was spilled and copied with
// 16-byte loads that stall on those stores (amd64), about half of the simulator's fleet view's
// own time (perf).
func addSignals(a, b *engine.Signals) {
	a.F, a.L, a.Q, a.B, a.C = a.F+b.F, a.L+b.L, a.Q+b.Q, a.B+b.B, a.C+b.C
}

// minSignals and maxSignals set *a to the signal-wise min and max of *a and b (the built-ins,
// which treat NaN and signed zeros as math.Min and math.Max do, inlined instead of called
// through a func value).
func minSignals(a, b *engine.Signals) {
	a.F, a.L, a.Q, a.B, a.C = min(a.F, b.F), min(a.L, b.L), min(a.Q, b.Q), min(a.B, b.B), min(a.C, b.C)
}

func maxSignals(a, b *engine.Signals) {
	a.F, a.L, a.Q, a.B, a.C = max(a.F, b.F), max(a.L, b.L), max(a.Q, b.Q), max(a.B, b.B), max(a.C, b.C)
}
