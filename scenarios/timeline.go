package scenarios

import "time"

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
	text := ""
	for _, n := range s.Notes {
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
func (s Scenario) LoadAt(t time.Duration) float64 {
	pts := s.Load
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
