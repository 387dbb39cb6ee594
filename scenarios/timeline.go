package scenarios

import (
	"slices"
	"time"
)

// Default values that Parse fills in for keys a file leaves out.
const (
	DefaultTick      = 100 * time.Millisecond
	DefaultDrain     = 30 * time.Second
	DefaultSeed      = 1
	DefaultClients   = 20
	DefaultDeadline  = 30 * time.Second
	DefaultTimeout   = 2 * time.Second
	DefaultLayers    = 1
	DefaultSigma     = 0.25
	DefaultWarmStart = 0.3
	// DefaultRefusalCost is the share of one service time that refusing an attempt costs the
	// server (a 503 from a full queue, a 429, a 4xx): accepting the connection, parsing the
	// request and writing a short error, without the query or the business logic that make up
	// most of a real request's work. A tenth is a round figure for that share; the crash rule
	// counts a refused attempt for this much of an attempt (docs/simulator.md).
	DefaultRefusalCost = 0.1
)

// Defaults returns a Scenario with every defaulted field set (tick, drain, seed, clients,
// deadline, timeout, layers, sigma, warm start, refusal cost; open loop, flat load) and nothing else: a
// starting point for scenarios built in code. It does not validate (name, summary, duration,
// classes and the service's workers and service time are still missing).
func Defaults() Scenario {
	return Scenario{
		Drain:    DefaultDrain,
		Tick:     DefaultTick,
		Seed:     DefaultSeed,
		Clients:  DefaultClients,
		Deadline: DefaultDeadline,
		Timeout:  DefaultTimeout,
		Layers:   DefaultLayers,
		Service:  Service{Sigma: DefaultSigma, WarmStart: DefaultWarmStart, RefusalCost: DefaultRefusalCost},
	}
}

// End is the length of the whole run: Duration (arrivals) plus Drain.
func (s Scenario) End() time.Duration { return s.Duration + s.Drain }

// NoteAt returns the caption to show at time t to a run of strategy: the text of the last note
// for that strategy (Note.For) whose At is at or before t, or "" before the first one (and
// when there are none). Notes must be in time order, as Validate requires.
func (s Scenario) NoteAt(t time.Duration, strategy string) string {
	return NoteAt(s.Notes, t, strategy)
}

// NoteAt is Scenario.NoteAt over notes (in time order): the caption at time t for a run of
// strategy, "" before the first note for it.
func NoteAt(notes []Note, t time.Duration, strategy string) string {
	text := ""
	for _, n := range notes {
		if n.At > t {
			break
		}
		if n.For(strategy) {
			text = n.Text
		}
	}
	return text
}

// LoadAt returns the load multiplier at time t: 1 with no load points; otherwise linear
// between neighbouring points and flat (the first or last point's factor) outside them.
// Points must be in strictly increasing time order, as Validate requires.
func (s Scenario) LoadAt(t time.Duration) float64 { return profileAt(s.Load, t) }

// ClassLoadAt returns the multiplier of class i's own load profile at time t (Class.Load),
// read as LoadAt reads the scenario's: 1 when the class has no points. The class's rate at t
// is its base rate times ClassLoadAt(i, t) times LoadAt(t).
func (s Scenario) ClassLoadAt(i int, t time.Duration) float64 { return profileAt(s.Classes[i].Load, t) }

// profileAt is a piecewise-linear profile at t: 1 with no points, linear between neighbouring
// points, flat outside them.
func profileAt(pts []LoadPoint, t time.Duration) float64 {
	if len(pts) == 0 {
		return 1
	}
	if t <= pts[0].At {
		return pts[0].Factor
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if t < b.At {
			frac := float64(t-a.At) / float64(b.At-a.At)
			return a.Factor + frac*(b.Factor-a.Factor)
		}
	}
	return pts[len(pts)-1].Factor
}

// Capacity is the service's full capacity in requests/s: Workers / ServiceTime (0 when
// ServiceTime is not positive).
func (v Service) Capacity() float64 {
	if v.ServiceTime <= 0 {
		return 0
	}
	return float64(v.Workers) / v.ServiceTime.Seconds()
}

// BaseRate is the sum of every class's base rate in requests/s (before the load profile).
func (s Scenario) BaseRate() float64 {
	total := 0.0
	for _, c := range s.Classes {
		total += c.Rate
	}
	return total
}

// PeakLoad is the largest load multiplier during the arrival phase [0, Duration]: 1 with no
// load points. The profile is piecewise linear, so the largest value is at a point or at an
// end of the phase.
func (s Scenario) PeakLoad() float64 {
	peak := max(s.LoadAt(0), s.LoadAt(s.Duration))
	for _, p := range s.Load {
		if p.At > 0 && p.At < s.Duration {
			peak = max(peak, p.Factor)
		}
	}
	return peak
}

// LoadSeconds is the integral of the load multiplier over the arrival phase [0, Duration], in
// seconds: Duration in seconds for a flat 1.0. Open-loop arrivals over the run are BaseRate()
// times it (for every class at share 1). The profile is linear between points and flat
// outside them, so the integral is a sum of trapezoids.
func (s Scenario) LoadSeconds() float64 {
	end := s.Duration
	if end <= 0 {
		return 0
	}
	// The breakpoints inside (0, end), with the ends: the profile is linear between them.
	at := []time.Duration{0}
	for _, p := range s.Load {
		if p.At > 0 && p.At < end {
			at = append(at, p.At)
		}
	}
	at = append(at, end)
	total := 0.0
	for i := 1; i < len(at); i++ {
		a, b := at[i-1], at[i]
		total += (s.LoadAt(a) + s.LoadAt(b)) / 2 * (b - a).Seconds()
	}
	return total
}

// ClassLoads reports whether any class has load points of its own (Class.Load).
func (s Scenario) ClassLoads() bool {
	for _, c := range s.Classes {
		if len(c.Load) > 0 {
			return true
		}
	}
	return false
}

// PeakRate is the largest open-loop arrival rate during the arrival phase [0, Duration], in
// requests/s, every class at share 1: the largest value of sum over classes of
// rate x ClassLoadAt x LoadAt. Without class profiles it is BaseRate() x PeakLoad().
func (s Scenario) PeakRate() float64 {
	peak := 0.0
	s.segments(func(a, b time.Duration, la, lb, ra, rb float64) {
		peak = max(peak, la*ra, lb*rb)
		// On the segment the rate is (la + dl x u)(ra + dr x u) for u in [0, 1]: a parabola,
		// whose top is inside the segment when it opens downwards there.
		dl, dr := lb-la, rb-ra
		if dl*dr < 0 {
			if u := -(la*dr + ra*dl) / (2 * dl * dr); u > 0 && u < 1 {
				peak = max(peak, (la+dl*u)*(ra+dr*u))
			}
		}
	})
	return peak
}

// RateSeconds is the integral of the open-loop arrival rate over the arrival phase, every class
// at share 1: the expected number of originals of a run. Without class profiles it is
// BaseRate() x LoadSeconds().
func (s Scenario) RateSeconds() float64 {
	total := 0.0
	s.segments(func(a, b time.Duration, la, lb, ra, rb float64) {
		// The integral of the product of two linear functions over the segment.
		total += (b - a).Seconds() * (2*la*ra + la*rb + lb*ra + 2*lb*rb) / 6
	})
	return total
}

// segments calls f for every stretch [a, b] of the arrival phase on which the scenario's
// profile and every class's are linear (between two consecutive points of any of them), with
// the scenario's factor at its ends (la, lb) and the sum of the classes' rates times their own
// factors at its ends (ra, rb).
func (s Scenario) segments(f func(a, b time.Duration, la, lb, ra, rb float64)) {
	end := s.Duration
	if end <= 0 {
		return
	}
	at := []time.Duration{0, end}
	add := func(pts []LoadPoint) {
		for _, p := range pts {
			if p.At > 0 && p.At < end {
				at = append(at, p.At)
			}
		}
	}
	add(s.Load)
	for _, c := range s.Classes {
		add(c.Load)
	}
	slices.Sort(at)
	at = slices.Compact(at)
	rates := func(t time.Duration) float64 {
		sum := 0.0
		for i, c := range s.Classes {
			sum += c.Rate * s.ClassLoadAt(i, t)
		}
		return sum
	}
	for i := 1; i < len(at); i++ {
		a, b := at[i-1], at[i]
		f(a, b, s.LoadAt(a), s.LoadAt(b), rates(a), rates(b))
	}
}
