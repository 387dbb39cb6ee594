package engine

import "time"

// PaceConfig holds the constants of the pacer (Config.AdmitOriginals) that a service would
// calibrate: how much more than the service completes it sends, how far ahead a priority may
// reserve a send slot, how fast it releases parked work, and so on. A zero field takes its
// default (DefaultPace), so a Config written without it paces as before. docs/engine.md gives
// the measurements behind each default.
type PaceConfig struct {
	// Min is the slowest pace, attempts per second: while the service answers nothing (an
	// outage) the pacer still sends this many a second, which probes the recovery (default 1).
	Min float64
	// Margin is how much more than the service completed the pacer sends while it queues: a
	// tenth more keeps the service fed, and the pace climbs by a tenth a slice as fast as the
	// service completes more (default 0.1).
	Margin float64
	// Horizon is how far ahead the highest priority may reserve a send slot; priority p may
	// reserve (p+1)/11 of it (0.18 s for priority 0, 2 s for 10 by default). An attempt whose
	// slot is further away is held and asks again, or is shed when its deadline cannot wait
	// that long (default 2s).
	Horizon time.Duration
	// Burst is the idle credit the pacer keeps: the slots of the last Burst not taken may
	// still be taken at once (default 100ms).
	Burst time.Duration
	// SlowShare is the share of slow successes (beyond the healthy tail) above which the
	// service still queues: the pacer stays at the completion rate instead of ramping up
	// (default 0.05).
	SlowShare float64
	// StartFactor bounds the ramp after the queue drained: each fast success adds one attempt
	// a second per its latency in seconds (one more per round trip, as slow start does), up to
	// StartFactor times the rate the service completes (default 2).
	StartFactor float64
	// MaxPoll is the longest a held attempt waits before it asks again, unless the service
	// queues (then it waits for the queue ahead of it) or is down (default 1s).
	MaxPoll time.Duration
	// Release caps the pace at this many times the arrival rate of new requests while parked
	// work waits, and each window slice's attempts at this many times the new requests that
	// asked in it (plus two): the work held through an outage is released over time, not at
	// once, so that a slice carries about Release times its own arrivals at most; once the new
	// requests have all but stopped, only the pace bounds the release (default 1.5).
	Release float64
	// Easing is how far the fastest success of a slice must fall below the lowest of a short
	// span of pacing (FailureHorizon's slices) for the slowness to count as a queue the pacing
	// drains: a low under Easing times the span's restarts the span; a span without one is a
	// slowness of the service's own (a slow dependency), not a queue (default 0.9).
	Easing float64
	// Intrinsic is how much slower than the highest slice low of such a span a success may be,
	// once its slowness is found to be the service's own, and still count as fast (default 1.25).
	Intrinsic float64
	// RateTau is the time constant of the moving rate of successes that bounds the ramp after a
	// queue drained (StartFactor times it) (default 500ms).
	RateTau time.Duration
	// ArrSlices is the time constant, in window slices, of the smoothed arrivals of new
	// requests that cap the release of parked work (Release): each slice weighs 1/ArrSlices
	// (all of it at 1 or less; default 5: a client's own arrivals are few a slice, and noisy).
	ArrSlices float64
	// RefSlices is the time constant, in window slices, of the arrivals before the pressure,
	// smoothed over the slices with the pacer off and frozen while it is on: the other
	// arrival rate the release may use, the higher of the two (default 30).
	RefSlices float64
	// Urgent is how near the end of its wait (its deadline less an attempt's time) a parked
	// attempt may take the next slot before parked attempts of higher priorities, as long as
	// they can wait for it: the oldest goes first, as the oracle schedules, instead of expiring
	// while newer work of a higher priority that would still be served in time goes (default 2s).
	Urgent time.Duration
}

// DefaultPace returns the pacer's defaults.
func DefaultPace() PaceConfig {
	return PaceConfig{
		Min:         1,
		Margin:      0.1,
		Horizon:     2 * time.Second,
		Burst:       100 * time.Millisecond,
		SlowShare:   0.05,
		StartFactor: 2,
		MaxPoll:     time.Second,
		Release:     1.5,
		Easing:      0.9,
		Intrinsic:   1.25,
		RateTau:     500 * time.Millisecond,
		ArrSlices:   5,
		RefSlices:   30,
		Urgent:      2 * time.Second,
	}
}

// resolved returns c with each zero field set to its default.
func (c PaceConfig) resolved() PaceConfig {
	d := DefaultPace()
	set := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	setD := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	set(&c.Min, d.Min)
	set(&c.Margin, d.Margin)
	setD(&c.Horizon, d.Horizon)
	setD(&c.Burst, d.Burst)
	set(&c.SlowShare, d.SlowShare)
	set(&c.StartFactor, d.StartFactor)
	setD(&c.MaxPoll, d.MaxPoll)
	set(&c.Release, d.Release)
	set(&c.Easing, d.Easing)
	set(&c.Intrinsic, d.Intrinsic)
	setD(&c.RateTau, d.RateTau)
	set(&c.ArrSlices, d.ArrSlices)
	set(&c.RefSlices, d.RefSlices)
	setD(&c.Urgent, d.Urgent)
	return c
}

// validate adds an error for each invalid field of c: every field a finite number (or
// duration) >= 0, SlowShare and Easing within [0, 1].
func (c PaceConfig) validate(errs *ConfigError) {
	errs.finite("Pace.Min", c.Min)
	errs.finite("Pace.Margin", c.Margin)
	errs.duration("Pace.Horizon", c.Horizon)
	errs.duration("Pace.Burst", c.Burst)
	errs.share("Pace.SlowShare", c.SlowShare)
	errs.finite("Pace.StartFactor", c.StartFactor)
	errs.duration("Pace.MaxPoll", c.MaxPoll)
	errs.finite("Pace.Release", c.Release)
	errs.share("Pace.Easing", c.Easing)
	errs.finite("Pace.Intrinsic", c.Intrinsic)
	errs.duration("Pace.RateTau", c.RateTau)
	errs.finite("Pace.ArrSlices", c.ArrSlices)
	errs.finite("Pace.RefSlices", c.RefSlices)
	errs.duration("Pace.Urgent", c.Urgent)
}

// weight returns the weight of each step in a moving average over a time constant of n steps:
// 1/n, all of it for n <= 1.
func weight(n float64) float64 { return min(1, 1/n) }
