package engine

import "time"

// Transition reasons recorded by the circuit breaker.
const (
	TransitionFailureRate     = "FAILURE_RATE"     // CLOSED -> OPEN: sustained failure rate
	TransitionEmergency       = "EMERGENCY"        // -> OPEN: CPS reached the emergency threshold
	TransitionCooldownElapsed = "COOLDOWN_ELAPSED" // OPEN -> HALF_OPEN (or CLOSED with 0 probes)
	TransitionProbesSucceeded = "PROBES_SUCCEEDED" // HALF_OPEN -> CLOSED
	TransitionProbeFailed     = "PROBE_FAILED"     // HALF_OPEN -> OPEN
	TransitionAnswered        = "ANSWERED"         // OPEN -> HALF_OPEN: an attempt sent after the circuit opened succeeded
	TransitionForced          = "FORCED"           // -> OPEN by Engine.ForceOpen
	TransitionReset           = "RESET"            // -> CLOSED by Engine.Reset
)

// maxTransitions is how many recent transitions the breaker keeps.
const maxTransitions = 32

// circuitBreaker is the three-state breaker. CLOSED -> OPEN when the trip rate the engine passes
// (over the short span: Engine.tripRate) has stayed at or above threshold for sustained with at
// least minRequests outcomes in the whole window (checked on every recorded outcome); OPEN ->
// HALF_OPEN once cooldown has elapsed (checked on every call); HALF_OPEN admits at most probes retries in flight, closes after probes successes
// and re-opens on any failure. Probe slots not answered within cooldown are released, so lost
// probes cannot wedge the breaker in HALF_OPEN. Times are the engine's elapsed time. Not safe
// for concurrent use.
//
// Its transitions come first and its state last, so that the state shares cache lines with the
// engine's fields that follow it (see Engine's layout).
type circuitBreaker struct {
	origin time.Time // elapsed time 0, to stamp transitions
	trans  [maxTransitions]Transition
	count  uint64 // transitions since the breaker was built or reset

	threshold   float64
	sustained   time.Duration
	cooldown    time.Duration
	minRequests uint64
	probes      int
	earlyProbe  bool // Config.ProbeOnSuccess

	state      CircuitState
	above      bool          // the failure rate is at or above threshold
	aboveSince time.Duration // since when
	openedAt   time.Duration
	probeOK    int // successes seen in HALF_OPEN
	inFlight   int // probe retries admitted in HALF_OPEN and not yet answered
	lastProbe  time.Duration
}

func newCircuitBreaker(cfg *Config, origin time.Time) circuitBreaker {
	return circuitBreaker{
		threshold:   cfg.CircuitFailureThreshold,
		sustained:   cfg.CircuitSustainedDuration,
		cooldown:    cfg.CircuitCooldown,
		minRequests: uint64(cfg.CircuitMinRequests),
		probes:      cfg.HalfOpenProbes,
		earlyProbe:  cfg.ProbeOnSuccess,
		origin:      origin,
	}
}

// score returns the C signal: 0 CLOSED, 0.5 HALF_OPEN, 1 OPEN.
func (c *circuitBreaker) score() float64 {
	switch c.state {
	case HalfOpen:
		return 0.5
	case Open:
		return 1
	}
	return 0
}

// to moves the breaker to state s at t, recording the transition.
func (c *circuitBreaker) to(t time.Duration, s CircuitState, reason string) {
	c.trans[c.count%maxTransitions] = Transition{At: c.origin.Add(t), From: c.state, To: s, Reason: reason}
	c.count++
	c.state = s
	c.above = false
	c.probeOK, c.inFlight = 0, 0
	if s == Open {
		c.openedAt = t
	}
}

// tick applies the cooldown at t and reports whether the breaker closed (only possible with
// zero probes).
func (c *circuitBreaker) tick(t time.Duration) (closed bool) {
	if c.state == Open && t-c.openedAt >= c.cooldown {
		if c.probes == 0 {
			c.to(t, Closed, TransitionCooldownElapsed)
			return true
		}
		c.to(t, HalfOpen, TransitionCooldownElapsed)
	}
	if c.state == HalfOpen && c.inFlight > 0 && t-c.lastProbe >= c.cooldown {
		c.inFlight = 0
	}
	return false
}

// observe takes one recorded outcome at t, with the window's failure rate and outcome count
// after it, and reports whether the breaker closed.
func (c *circuitBreaker) observe(t time.Duration, ok bool, rate float64, outcomes uint64, sent time.Duration) (closed bool) {
	switch c.state {
	case Open:
		// An attempt sent after the circuit opened (an original of a class the floor lets
		// through) came back a success: the service answers again, so probing starts now
		// rather than after the rest of the cooldown.
		if ok && c.earlyProbe && sent >= c.openedAt {
			c.to(t, HalfOpen, TransitionAnswered)
			c.probeOK = 1
			if c.probeOK >= c.probes {
				c.to(t, Closed, TransitionProbesSucceeded)
				return true
			}
		}
	case Closed:
		if rate >= c.threshold && outcomes >= c.minRequests {
			if !c.above {
				c.above, c.aboveSince = true, t
			}
			if t-c.aboveSince >= c.sustained {
				c.to(t, Open, TransitionFailureRate)
			}
		} else {
			c.above = false
		}
	case HalfOpen:
		if !ok {
			c.to(t, Open, TransitionProbeFailed)
			return false
		}
		c.probeOK++
		c.inFlight = max(0, c.inFlight-1)
		if c.probeOK >= c.probes {
			c.to(t, Closed, TransitionProbesSucceeded)
			return true
		}
	}
	return false
}

// probesBusy reports whether HALF_OPEN has no probe slot left.
func (c *circuitBreaker) probesBusy() bool { return c.state == HalfOpen && c.inFlight >= c.probes }

// probeSent counts a retry admitted while HALF_OPEN.
func (c *circuitBreaker) probeSent(t time.Duration) {
	if c.state == HalfOpen {
		c.inFlight++
		c.lastProbe = t
	}
}

// open forces the breaker OPEN (no-op when already open).
func (c *circuitBreaker) open(t time.Duration, reason string) {
	if c.state != Open {
		c.to(t, Open, reason)
	}
}

// last returns the latest transition, zero if none.
func (c *circuitBreaker) last() Transition {
	if c.count == 0 {
		return Transition{}
	}
	return c.trans[(c.count-1)%maxTransitions]
}

// history returns the kept transitions, oldest first, in a new slice.
func (c *circuitBreaker) history() []Transition {
	n := min(c.count, maxTransitions)
	out := make([]Transition, 0, n)
	for i := c.count - n; i < c.count; i++ {
		out = append(out, c.trans[i%maxTransitions])
	}
	return out
}
