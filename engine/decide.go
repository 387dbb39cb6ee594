package engine

import (
	"math"
	"time"
)

// rampShare returns the share of retries the recovery ramp admits at t (1 outside a ramp).
func (e *Engine) rampShare(t time.Duration) float64 {
	if !e.ramping || e.br.state != Closed || e.hot.RecoveryRamp == 0 {
		return 1
	}
	el := t - e.rampFrom
	if el >= e.hot.RecoveryRamp {
		e.ramping = false
		return 1
	}
	return rampStartShare + (1-rampStartShare)*float64(el)/float64(e.hot.RecoveryRamp)
}

// rampAdmits reports whether the ramp admits a retry of priority p when it admits share of
// retries: p/10 >= 1 - share, so priority 10 and 9 first, priority 0 only at the end.
func rampAdmits(p int, share float64) bool {
	return float64(p) >= float64(MaxPriority)*(1-share)-floorEpsilon
}

// ShouldRetry decides whether a failed request of the given priority (0..10, clamped) should be
// retried, attempt being the 0-based retry index (negative counts as 0) and retryable whether
// the error may be retried at all. It runs the five checks in order: retryable, attempt limit,
// CPS emergency and circuit, priority floor / recovery ramp / token budget, and backoff. A
// Retry takes its price in tokens (Config.SlowdownCost) and a probe slot in HALF_OPEN. If the
// unified decision panics or its CPS is not finite, the answer comes from the fallback path
// (Decision.Fallback). It never panics. Decide is the same with more to say about the failure
// (a timeout).
func (e *Engine) ShouldRetry(priority, attempt int, retryable bool) (d Decision) {
	e.decide(&d, Failure{Priority: priority, Attempt: attempt, NotRetryable: !retryable})
	return d
}

// ShouldRetryTo is ShouldRetry writing its decision into *d, every field of it, for callers on
// a hot path: a Decision is 14 words, and receiving one by value makes the caller copy it whole,
// which on amd64 stalls behind the stores that just wrote it. A nil d is allowed: the decision
// is then made and counted, and dropped.
func (e *Engine) ShouldRetryTo(d *Decision, priority, attempt int, retryable bool) {
	e.DecideTo(d, Failure{Priority: priority, Attempt: attempt, NotRetryable: !retryable})
}

// Decide is ShouldRetry for a failure described by f: the same five checks, and a retry after a
// timeout costs 1 + 2*SlowdownCost*S tokens instead of 1 + SlowdownCost*S (Snapshot.Slowdown).
func (e *Engine) Decide(f Failure) (d Decision) {
	e.decide(&d, f)
	return d
}

// DecideTo is Decide writing its decision into *d (see ShouldRetryTo). A nil d is allowed.
func (e *Engine) DecideTo(d *Decision, f Failure) {
	if d == nil {
		var drop Decision
		d = &drop
	}
	e.decide(d, f)
}

// decide is Decide into *d. One deferred function guards the whole decision: a panic inside
// the unified decision (stage unifying) is answered by the fallback path, as a CPS that is not
// finite is; a panic anywhere else, or in the fallback itself, by an INTERNAL_ERROR rejection.
// (A second deferred recover in unified cost every decision a call into the runtime.)
func (e *Engine) decide(d *Decision, f Failure) {
	priority := min(MaxPriority, max(MinPriority, f.Priority))
	attempt := max(0, f.Attempt)
	var t time.Duration
	stage := stageOther
	e.mu.Lock()
	defer e.mu.Unlock()
	defer func() {
		if stage != stageDone {
			e.recoverDecision(recover(), stage, t, priority, attempt, d)
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
		*d = Decision{Action: NotRetryable, Priority: priority, Reason: ReasonNotRetryable}
	case attempt >= e.hot.MaxRetryAttempts:
		*d = Decision{Action: MaxRetriesExceeded, Priority: priority, Reason: ReasonMaxRetries}
	default:
		t = e.now()
		e.advance(t)
		stage = stageUnifying
		ok := e.unified(t, priority, attempt, f, d)
		stage = stageOther
		if !ok {
			e.fallback(t, priority, attempt, d)
		}
	}
	stage = stageDone
}

// The stages of a decision that decide's deferred function tells apart.
const (
	stageOther    = iota // outside the unified decision: a panic is an INTERNAL_ERROR
	stageUnifying        // in unified: a panic falls back
	stageDone            // returned normally: nothing to recover
)

// recoverDecision answers into *d for a decision left by the panic r (nil: none) in stage:
// from the fallback path after a panic in the unified decision, with an INTERNAL_ERROR
// rejection after any other panic or one in the fallback itself.
func (e *Engine) recoverDecision(r any, stage int, t time.Duration, priority, attempt int, d *Decision) {
	if r == nil {
		return
	}
	if stage == stageUnifying && e.fallbackSafe(t, priority, attempt, d) {
		return
	}
	*d = Decision{Action: Reject, Priority: priority, Reason: ReasonInternalError, Fallback: true}
}

// fallbackSafe is fallback, reporting false if it panicked.
func (e *Engine) fallbackSafe(t time.Duration, priority, attempt int, d *Decision) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	e.fallback(t, priority, attempt, d)
	return true
}

// unified runs checks 3 to 5 on the CPS and writes the decision into *d (in place: a Decision
// is 14 words, and this is the hot path). It returns false when the CPS is not finite; *d is
// then undefined and the caller falls back, as decide does when unified panics.
func (e *Engine) unified(t time.Duration, priority, attempt int, f Failure, d *Decision) bool {
	*d = Decision{Priority: priority}
	e.fillSignals(t, &d.Signals)
	if e.signalHook != nil {
		d.Signals = e.signalHook(d.Signals)
	}
	cps := e.w.dot(&d.Signals)
	if math.IsNaN(cps) || math.IsInf(cps, 0) {
		return false
	}
	cps = clamp01(cps)
	d.CPS, d.State, d.Floor = cps, StateFor(cps, e.hot.EmergencyThreshold), FloorFor(cps)

	switch {
	case cps >= e.hot.EmergencyThreshold && !(f.Hold && e.hot.HoldForProbe && priority >= d.Floor && priority >= e.adm.floor):
		// check 3: emergency, then the circuit
		e.br.open(t, TransitionEmergency)
		d.Action, d.Reason = CircuitOpen, ReasonEmergency
	case f.Hold && e.hot.HoldForProbe && (e.br.state == Open || cps >= e.hot.EmergencyThreshold) && priority >= d.Floor && priority >= e.adm.floor:
		// check 3, held: a retry of a priority the floors protect is not refused by the open
		// circuit (nor by an emergency, which opens it: "reject all non-critical retries"); it
		// is decided as below, and AdmitRequest holds it until the circuit probes.
		e.br.open(t, TransitionEmergency) // a no-op unless an emergency opens it now
		e.spend(t, attempt, e.retryCost(f.Timeout), priority, 1+cps*10, f, d)
	case e.circuitRefuses(d):
	case priority < d.Floor || priority < e.adm.floor: // check 4: priority floor, recovery ramp, then the budget
		d.Action, d.Reason = Reject, ReasonShedLowPriority
	case !rampAdmits(priority, e.rampShare(t)):
		d.Action, d.Reason = Reject, ReasonRecoveryRamp
	default: // check 5: CPS-modulated backoff
		e.spend(t, attempt, e.retryCost(f.Timeout), priority, 1+cps*10, f, d)
	}
	return true
}

// fallback answers into *d from the independent checks: circuit breaker, then token bucket,
// then plain exponential backoff with full jitter, Random(0, min(BackoffMaxDelay,
// base*2^attempt)). They are the unified decision's checks without the CPS: no emergency,
// floor or ramp, and a backoff factor of 1.
func (e *Engine) fallback(t time.Duration, priority, attempt int, d *Decision) {
	*d = Decision{Priority: priority, Fallback: true}
	if !e.circuitRefuses(d) {
		e.spend(t, attempt, 1, MaxPriority, 1, Failure{}, d) // priority 10: no reserve
	}
}

// circuitRefuses writes CIRCUIT_OPEN into d and reports true when the circuit is OPEN, or
// HALF_OPEN with every probe slot taken (reason HALF_OPEN_PROBES_BUSY).
func (e *Engine) circuitRefuses(d *Decision) bool {
	switch {
	case e.br.state == Open:
		d.Action, d.Reason = CircuitOpen, ReasonCircuitOpen
	case e.br.probesBusy():
		d.Action, d.Reason = CircuitOpen, ReasonHalfOpenProbesBusy
	default:
		return false
	}
	return true
}

// spend takes cost retry tokens for a retry of priority prio (which leaves its priority's
// reserve in the bucket) and writes the retry into d: RETRY after a draw below
// base*2^attempt*factor (a probe slot taken in HALF_OPEN), BUDGET_EXHAUSTED when the tokens are
// not there, DEADLINE_EXCEEDED (no token taken) when remaining (> 0) leaves no time to send the
// retry and have it answered: the delay is cut to remaining less the time an attempt takes
// (attemptTime), and none is left.
func (e *Engine) spend(t time.Duration, attempt int, cost float64, prio int, factor float64, f Failure, d *Decision) {
	remaining := f.Remaining
	delay := e.draw(float64(e.hot.BackoffBaseDelay) * pow2(attempt) * factor)
	if remaining > 0 && e.hot.DeadlineAware {
		latest := remaining - e.attemptTime()
		if latest <= 0 {
			d.Action, d.Reason = Reject, ReasonDeadline
			return
		}
		delay = min(delay, latest)
	}
	var ok bool
	switch {
	case f.Hold && e.hot.AdmitOriginals && e.pace.on && !(e.paysAtSend(t) && e.br.state == Open):
		// Paced (AdmitRequest gives it a send slot): the pace bounds it, not the bucket.
		ok = true
	case f.Hold && e.paysAtSend(t) && e.br.state == Open:
		// Held until the circuit probes: it pays when it is sent (AdmitRequest), at the price
		// of that moment; until then it only counts as owed.
		ok = true
		e.owed++
	case e.fleetOn && e.fleet.fresh(t):
		ok = e.fleet.take(cost, e.reserve(prio))
	default:
		ok = e.tb.takeAt(t, cost, &e.prices[prio])
	}
	if !ok {
		d.Action, d.Reason = Reject, ReasonBudgetExhausted
		return
	}
	d.Action, d.Reason = Retry, ReasonRetry
	d.Delay = delay
	e.br.probeSent(t)
}

// pow2 is math.Ldexp(1, min(n, 64)), 2^min(n, 64), without Ldexp's general path for 0 <= n <
// 64: the power of two itself, exactly what Ldexp returns (TestPow2).
func pow2(n int) float64 {
	if n >= 0 && n < 64 {
		return float64(uint64(1) << n)
	}
	return math.Ldexp(1, min(n, 64))
}

// attemptTime is how long an attempt takes to be answered when it succeeds, as the engine
// knows it: the moving average of the latest successes' latency, or the baseline before any,
// at least a millisecond.
func (e *Engine) attemptTime() time.Duration {
	return max(time.Millisecond, time.Duration(e.recentOK), e.bl.value)
}

// draw returns Random(0, ceiling) nanoseconds (its midpoint in deterministic mode), capped at
// BackoffMaxDelay.
func (e *Engine) draw(ceiling float64) time.Duration {
	v := ceiling / 2
	if !e.hot.Deterministic {
		v = ceiling * e.rng.Float64()
	}
	if !(v < float64(e.hot.BackoffMaxDelay)) {
		return e.hot.BackoffMaxDelay
	}
	return time.Duration(v)
}
