package engine

import (
	"time"
)

// Explanation is what one decision saw, check by check: the values behind a Decision, for a
// reader who wants to know why a retry went or not (the dashboard's decision inspector).
// DecideExplained fills it. Values the checks did not reach are left as read before the
// decision (a NOT_RETRYABLE decision reads no signal: they are zero).
type Explanation struct {
	Decision Decision // the decision itself, as Decide returns it
	// Check is the check that decided: 1 retryable, 2 attempt limit, 3 emergency and circuit,
	// 4 priority floor, recovery ramp and budget, 5 backoff (a RETRY); 0 for INTERNAL_ERROR.
	Check int

	// Check 1 and 2.
	Retryable   bool // the error may be retried
	Timeout     bool // the attempt timed out (its retry costs more)
	Attempt     int  // 0-based retry index of the attempt that failed (clamped at 0)
	MaxAttempts int  // Config.MaxRetryAttempts: attempt >= this is MAX_RETRIES_EXCEEDED

	// Check 3: the CPS, as each weight times its signal, against the emergency threshold; the
	// circuit as it was before the decision (an emergency forces it OPEN).
	Weights   Weights      // the weights the CPS was computed with (normalised)
	Signals   Signals      // the five signals of the decision (Decision.Signals)
	CPS       float64      // Weights·Signals, clamped to [0,1] (Decision.CPS)
	Emergency float64      // Config.EmergencyThreshold
	Circuit   CircuitState // before the decision
	InFlight  int          // HALF_OPEN probes admitted and not yet answered, before the decision
	Probes    int          // Config.HalfOpenProbes: probe slots in HALF_OPEN

	// Check 4: the priority against floor(CPS×10), the recovery ramp, the budget.
	Priority  int     // the request's priority, clamped to 0..10
	Floor     int     // floor(CPS×10)
	RampShare float64 // share of retries the recovery ramp admits (1 outside a ramp)
	RampFloor float64 // the ramp admits priorities >= 10×(1 - RampShare)
	Tokens    float64 // retry tokens in the bucket before the decision
	Capacity  int     // Config.TokenBucketCapacity (0: no budget)
	Cost      float64 // tokens this retry costs: 1 + SlowdownCost×S, twice the extra after a timeout, at most capacity - Keep
	Keep      float64 // tokens this priority must leave in the bucket: floor(BudgetReserve×(10-p)/10×capacity), below the capacity

	// Check 5: the delay, Random(0, min(MaxDelay, Base × 2^Attempt × Factor)).
	Base          time.Duration // Config.BackoffBaseDelay
	Factor        float64       // 1 + CPS×10 (1 on the fallback path)
	Ceiling       time.Duration // Base × 2^Attempt × Factor, before the cap
	MaxDelay      time.Duration // Config.BackoffMaxDelay
	Deterministic bool          // the draw is the midpoint of its range

	// Admission of a new request (AdmitExplained; zero for a retry's decision): whether the
	// pacer is on (set once per window slice: the service down, refusing or queueing), its pace
	// from what the service completed, and the send slot the request found. Check is 4 when the
	// request is held or shed, 5 when it goes; Priority, Weights, Signals and CPS are filled as
	// for a retry, Floor is the admission floor.
	Original   bool    // the decision is Admit's, for a new request
	Admission  bool    // Config.AdmitOriginals: off, every new request goes
	Shedding   bool    // the pacer is on: the service is down, refuses or queues
	ShedShare  float64 // share of the attempts of the last slice that found no send slot at once
	Pace       float64 // send slots per second while the pacer is on (0 off)
	Completed  float64 // successes per window slice, smoothed
	Slowdown   float64 // the slowdown of the fastest success of the last slice (the latest success without one)
	SlowFrom   float64 // the slowdown at or above which it says the service queues (Config.Admit.Slow, resolved)
	ShedRetry  bool    // a retry's priority is below the admission floor: shed with the new requests (check 4)
	AdmitFloor int     // the admission floor when the decision was made (retries below it are shed)
}

// DecideExplained is Decide, with what the decision saw written into *x (nil is allowed): the
// same five checks, the same state changes and counters, the same answer. It costs a few reads
// more than Decide and is meant for the decisions a reader will look at, not for every call of a
// hot path. The values of check 4 and 5 are read just before the decision, at the same instant
// on a manual clock.
func (e *Engine) DecideExplained(f Failure, x *Explanation) (d Decision) {
	if x == nil {
		var drop Explanation
		x = &drop
	}
	priority := min(MaxPriority, max(MinPriority, f.Priority))
	attempt := max(0, f.Attempt)
	e.mu.Lock()
	defer e.mu.Unlock()
	c := &e.cfg
	*x = Explanation{Retryable: !f.NotRetryable, Timeout: f.Timeout, Attempt: attempt, MaxAttempts: c.MaxRetryAttempts,
		Emergency: c.EmergencyThreshold, Circuit: e.br.state, InFlight: e.br.inFlight, Probes: c.HalfOpenProbes,
		Priority: priority, RampShare: 1, Capacity: c.TokenBucketCapacity, Base: c.BackoffBaseDelay, MaxDelay: c.BackoffMaxDelay,
		Deterministic: c.Deterministic, Factor: 1}
	defer func() {
		x.Decision = d
		x.Check = checkOf(d.Reason)
		x.Signals, x.CPS, x.Floor = d.Signals, d.CPS, d.Floor
		if d.Fallback { // the fallback's budget check: one token, no reserve
			x.Cost, x.Keep = 1, 0
		} else {
			x.Factor = 1 + d.CPS*10
		}
		x.Ceiling = time.Duration(float64(c.BackoffBaseDelay) * pow2(attempt) * x.Factor)
	}()
	defer func() { // as in decide: never panic, count every answer
		if r := recover(); r != nil {
			d = Decision{Action: Reject, Priority: priority, Reason: ReasonInternalError, Fallback: true}
		}
		if d.Action >= 0 && int(d.Action) < len(e.decisions) {
			e.decisions[d.Action]++
		}
		if d.Fallback {
			e.fallbacks++
		}
	}()
	switch {
	case f.NotRetryable:
		d = Decision{Action: NotRetryable, Priority: priority, Reason: ReasonNotRetryable}
	case attempt >= c.MaxRetryAttempts:
		d = Decision{Action: MaxRetriesExceeded, Priority: priority, Reason: ReasonMaxRetries}
	default:
		t := e.now()
		e.advance(t)
		x.Weights = e.w                                   // after adaptive weights stepped
		x.Circuit, x.InFlight = e.br.state, e.br.inFlight // after the cooldown check
		x.RampShare = e.rampShare(t)
		x.RampFloor = float64(MaxPriority) * (1 - x.RampShare)
		e.tb.refill(t)
		x.Tokens = e.tb.tokens
		x.AdmitFloor = e.adm.floor
		x.ShedRetry = e.cfg.AdmitOriginals && priority < e.adm.floor
		x.Cost, x.Keep = e.retryCost(f.Timeout), 0
		if c.TokenBucketCapacity > 0 {
			x.Cost, x.Keep = priced(x.Cost, e.reserve(priority), float64(c.TokenBucketCapacity))
		}
		if !e.unified(t, priority, attempt, f, &d) {
			e.fallback(t, priority, attempt, &d)
		}
	}
	return d
}

// checkOf returns the check (1..5) that gives a decision's reason, 0 for INTERNAL_ERROR or an
// unknown reason.
func checkOf(reason string) int {
	switch reason {
	case ReasonNotRetryable:
		return 1
	case ReasonMaxRetries:
		return 2
	case ReasonEmergency, ReasonCircuitOpen, ReasonHalfOpenProbesBusy:
		return 3
	case ReasonShedLowPriority, ReasonRecoveryRamp, ReasonBudgetExhausted:
		return 4
	case ReasonRetry, ReasonDeadline:
		return 5
	}
	return 0
}

// Terms returns the CPS's five terms, weight × signal for F, L, Q, B and C: their sum is the
// CPS before clamping.
func (x *Explanation) Terms() [5]float64 {
	w, s := x.Weights, x.Signals
	return [5]float64{w.F * s.F, w.L * s.L, w.Q * s.Q, w.B * s.B, w.C * s.C}
}

// AdmitExplained is Admit, with what the decision saw written into *x (nil is allowed): the
// same answer, the same state changes and counters. Meant for the decisions a reader will look
// at (the dashboard's inspector).
func (e *Engine) AdmitExplained(priority int, x *Explanation) Decision {
	return e.AdmitRequestExplained(Request{Priority: priority}, x)
}

// AdmitRequestExplained is AdmitRequest, with what the decision saw written into *x (nil is
// allowed): for a new request the admission's state (Original), for a retry the circuit and
// the ramp it was held for. The same answer, state changes and counters as AdmitRequest.
func (e *Engine) AdmitRequestExplained(r Request, x *Explanation) (d Decision) {
	if x == nil {
		var drop Explanation
		x = &drop
	}
	r.Priority = min(MaxPriority, max(MinPriority, r.Priority))
	r.Retry = max(0, r.Retry)
	e.mu.Lock()
	t := e.now()
	e.advance(t) // the slice the decision falls in is closed before it is read
	a := &e.adm
	fastest := a.lastOK
	if a.okN > 0 {
		fastest = a.okMin
	}
	*x = Explanation{Original: r.Retry == 0, Admission: e.cfg.AdmitOriginals, Shedding: a.engaged, ShedShare: a.share,
		Completed: e.pace.doneS, Slowdown: e.bl.slowdown(fastest), SlowFrom: a.c.Slow,
		Weights: e.w, Emergency: e.cfg.EmergencyThreshold, Circuit: e.br.state, InFlight: e.br.inFlight,
		Probes: e.cfg.HalfOpenProbes, Priority: r.Priority, Attempt: r.Retry, AdmitFloor: a.floor,
		RampShare: e.rampShare(t), Capacity: e.cfg.TokenBucketCapacity, Tokens: e.tb.tokens}
	x.RampFloor = float64(MaxPriority) * (1 - x.RampShare)
	if a.engaged {
		x.Pace = e.pace.rate
	}
	e.mu.Unlock()
	e.admit(&d, r)
	x.Decision = d
	x.Check = 5
	if d.Action != Retry || d.Delay > 0 {
		x.Check = 4
	}
	x.Signals, x.CPS, x.Floor = d.Signals, d.CPS, d.Floor
	return d
}
