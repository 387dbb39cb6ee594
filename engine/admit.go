package engine

import "time"

// Reasons of AdmitRequest's answers (Admit's too). A shed request gets Action Reject and
// ReasonShedLowPriority; a retry the bucket can no longer pay when it is sent, Reject and
// ReasonBudgetExhausted.
const (
	ReasonAdmitted = "ADMITTED" // Action Retry, Delay 0: send it now
	ReasonHeld     = "HELD"     // Action Retry, Delay > 0: send nothing now, ask again after Delay
)

// Ask says how an attempt comes to ask AdmitRequest (Request.Ask).
type Ask uint8

// The ways an attempt asks.
const (
	AskNew     Ask = iota // the first time: a new request, or a retry Decide has just decided
	AskAgain              // again, after a hold's Delay ended
	AskWoken              // again, released by Wake from the parked attempts: its slot is reserved
	AskExpired            // again, parked, its Delay ended before Wake released it: it leaves the parked ones
)

// admission is the state of Admit (Config.AdmitOriginals): once per window slice (step) the
// engine reads whether the service queues, and the pacer (pacer) releases the attempts at the
// rate the service completes while it does. Not safe for concurrent use: the engine's mutex
// guards it.
type admission struct {
	okN    float64       // successes in the current slice
	okMin  time.Duration // the fastest of them
	lastOK time.Duration // the latest success's latency (0 before any)

	engaged bool    // the pacer is on
	share   float64 // share of the attempts of the last slice that found no send slot at once
	floor   int     // the lowest priority granted a slot in the last slice while others waited

	sig Signals // the signals as the last slice closed, which Admit's answers carry
	cps float64 // their score

	admitted, shed uint64 // Admit's answers to new requests since New or Reset

	c AdmitConfig // Config.Admit, its zero fields set to the defaults (AdmitConfig.resolved)
}

// recordOK counts a success of latency for admission.
func (a *admission) recordOK(latency time.Duration) {
	if a.okN == 0 || latency < a.okMin {
		a.okMin = latency
	}
	a.okN++
	a.lastOK = latency
}

// stepAdmission closes a window slice at t: it reads the score as of now, and whether even the
// fastest success of the slice queued, for the pacer.
func (e *Engine) stepAdmission(t time.Duration) {
	a := &e.adm
	fastest := a.lastOK
	if a.okN > 0 {
		fastest = a.okMin
	}
	slow := e.bl.slowdown(fastest) >= a.c.Slow
	a.okN = 0
	e.fillSignals(t, &a.sig)
	a.cps = e.w.dot(&a.sig)
	if !(a.cps >= 0) { // NaN from a broken signal: the unified decision falls back on it, admission reads 0
		a.cps = 0
	}
	a.cps = clamp01(a.cps)
	e.stepPace(t, slow, fastest)
}

// Admit decides whether a new request (an original, not a retry) of the given priority (0..10,
// clamped) may be sent now. With Config.AdmitOriginals (the default) the engine paces what it
// sends while the service cannot take it: once per window slice it turns the pacer on when the
// service answers nothing, refuses (5% of the slice's outcomes RecordRefused) or queues (even
// the fastest success took 2.5 times the baseline, with refusals, 25% failures or a CRITICAL
// score); then every attempt, new requests and retries alike, takes a send slot, the slots
// coming at the rate the service completed (a tenth faster once even the fastest successes
// are no longer slow; one a second while it is down; ramping up by one per round trip once
// successes are fast again). An attempt with no slot free
// reserves the next one if it is near enough (within (p+1)/11 of 2 s for priority p: higher
// priorities wait longer and so come first), or is held to ask again after the held work of
// its priority and above may have gone, or, when its deadline cannot wait that long, is shed.
// A caller that wakes what it holds (Request.Park) gets no timer to poll on: the held attempt
// is parked (Decision.Parked) until Wake releases it when its slot comes, highest priority
// first, except that an attempt within Pace.Urgent (2 s) of its deadline's edge goes before
// higher priorities that can still wait for it; it is shed only at that edge (its deadline
// leaves no time for an attempt), never on a forecast of its wait. While work is parked the
// pace is capped at Pace.Release (1.5) times the arrivals of new requests, and so is each
// slice's count of attempts (those still to come counted at the smoothed rate), so that the
// work held through an outage is released over time, not at once.
// The pacer turns off once the successes are fast and nothing waits. A slowness that lasts a
// short span at the paced rate without easing is the service's own (a slow dependency), not a
// queue: it stops counting as one.
//
// The answer is Action Retry with Reason ADMITTED (send it), Action Retry with Reason HELD and
// Delay > 0 (send nothing now, ask again after Delay: AdmitRequest with the same request), or
// Action Reject with Reason SHED_LOW_PRIORITY (fail it locally, as a 503 would: it was never
// sent). Floor is the admission floor (the lowest priority given a slot in the last slice while
// others waited), CPS, State and Signals the score as the last window slice closed. Without
// AdmitOriginals (ArticleConfig) every request is admitted. Every answer to a new request is
// counted (Snapshot.OriginalsAdmitted, OriginalsShed). Safe for concurrent use; it never panics
// and allocates nothing.
func (e *Engine) Admit(priority int) (d Decision) {
	e.AdmitTo(&d, priority)
	return d
}

// AdmitTo is Admit writing its decision into *d (see ShouldRetryTo). A nil d is allowed: the
// decision is then made and counted, and dropped.
func (e *Engine) AdmitTo(d *Decision, priority int) { e.AdmitRequestTo(d, Request{Priority: priority}) }

// AdmitRequest decides whether an attempt about to be sent may go now: a new request
// (r.Retry 0) as Admit says, or a retry Decide has decided. A retry decided with Failure.Hold
// (and asked about with Request.Hold) takes its tokens now (BUDGET_EXHAUSTED if the bucket can
// no longer pay), and with Config.HoldForProbe (the default) it is held (Action Retry, Reason
// HELD, Delay > 0: "ask again after Delay") while the service has not been probed:
//
//   - circuit OPEN: until the cooldown ends (the next probe), plus a draw of up to a quarter of
//     the cooldown so that the held retries do not all come back at once;
//   - circuit HALF_OPEN with every probe slot taken: for up to two attempts' time (the latest
//     successes' latency), then ask again; a retry sent in HALF_OPEN takes a probe slot;
//   - during the recovery ramp, a priority outside the ramp's share: until the ramp reaches it.
//
// A retry whose deadline (r.Remaining) leaves no time to wait and still be answered goes now.
// A retry decided without Hold has paid and goes. Safe for concurrent use; allocates nothing.
func (e *Engine) AdmitRequest(r Request) (d Decision) {
	e.AdmitRequestTo(&d, r)
	return d
}

// AdmitRequestTo is AdmitRequest writing its decision into *d. A nil d is allowed.
func (e *Engine) AdmitRequestTo(d *Decision, r Request) {
	if d == nil {
		var drop Decision
		d = &drop
	}
	r.Priority = min(MaxPriority, max(MinPriority, r.Priority))
	r.Retry = max(0, r.Retry)
	e.admit(d, r)
}

// admit is AdmitRequest into *d for a clamped request. A parked attempt's decision carries
// NextWake's answer (Decision.Wake).
func (e *Engine) admit(d *Decision, r Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	e.admitAt(t, d, r)
	if d.Parked {
		d.Wake, _ = e.pace.nextWake(t)
	}
}

// admitAt is admit at t, under the engine's lock, once advanced to t.
func (e *Engine) admitAt(t time.Duration, d *Decision, r Request) {
	a := &e.adm
	// Every field, one by one: a composite literal was built on the stack from a template and
	// then copied into *d with 16-byte moves (a fifth of an admission's instructions), whose
	// loads wait on the narrower stores just made. TestAdmitToWritesEveryField holds it to a
	// Decision written whole.
	d.Action, d.Delay, d.CPS = Retry, 0, a.cps
	d.State = StateFor(a.cps, e.hot.EmergencyThreshold)
	d.Priority, d.Floor, d.Reason = r.Priority, a.floor, ReasonAdmitted
	d.Fallback, d.Parked, d.Wake = false, false, 0
	d.Signals = a.sig
	if r.Ask == AskExpired {
		e.pace.unpark(r.Priority)
	}
	if r.Hold && e.hot.HoldForProbe && r.Retry > 0 && e.hold(t, r, d) {
		return
	}
	paced := e.hot.AdmitOriginals && e.pace.on
	if r.Retry > 0 {
		if paced && !e.paceAdmit(t, r, d) {
			return
		}
		// A retry decided while the circuit was OPEN pays now, unless paced: then the pace is
		// what bounds it.
		if r.Hold && e.owed > 0 {
			e.owed--
			if !paced && !e.tb.takeAt(t, e.retryCost(false), &e.prices[r.Priority]) {
				d.Action, d.Reason = Reject, ReasonBudgetExhausted
				return
			}
		}
		e.br.probeSent(t) // a held retry sent in HALF_OPEN is a probe (a no-op otherwise)
		return
	}
	if r.Ask == AskNew {
		e.pace.arrived++
	}
	if paced && !e.paceAdmit(t, r, d) {
		if d.Action != Retry {
			a.shed++
		}
		return
	}
	a.admitted++
}

// Wake releases the attempts parked (Request.Park, Decision.Parked) whose send slots have come,
// highest priority first and, within a priority, in the order they parked: it adds to n[p] how
// many of priority p the caller asks about again now (Request.Ask AskWoken: each finds its slot
// reserved), its oldest parked ones of that priority. While the pacer is off every parked
// attempt is released. It returns how long from now to call it again (NextWake), false when
// nothing is left parked. A held attempt then waits for an event, a slot freed by the pace or
// the pace raised by a recovery, instead of asking again on a timer: the caller reads when from
// each attempt it parks (Decision.Wake, NextWake's answer as it parked) and asks NextWake after
// each outcome it records, and calls Wake when they say. Safe for concurrent use; allocates
// nothing.
func (e *Engine) Wake(n *[MaxPriority + 1]int) (after time.Duration, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	return e.pace.wake(t, n, e.hot.AdmitOriginals)
}

// NextWake returns how long from now until Wake may release a parked attempt, false when none
// is parked. Safe for concurrent use; allocates nothing.
func (e *Engine) NextWake() (after time.Duration, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	return e.pace.nextWake(t)
}

// Unpark takes a parked attempt of the given priority (clamped) off the parked ones: its
// caller abandoned it (a context ended) before Wake released it or its Delay ended. Safe for
// concurrent use; allocates nothing.
func (e *Engine) Unpark(priority int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pace.unpark(min(MaxPriority, max(MinPriority, priority)))
}

// hold writes into d, and reports true, the hold of a retry the service has not been probed for
// (HoldForProbe); false when the retry goes.
func (e *Engine) hold(t time.Duration, r Request, d *Decision) bool {
	var wait time.Duration
	switch {
	case e.br.state == Open:
		wait = max(0, e.br.openedAt+e.br.cooldown-t) + e.draw(float64(e.br.cooldown)/4)
	case e.br.probesBusy():
		wait = max(time.Millisecond, e.draw(2*float64(e.attemptTime())))
	case !rampAdmits(r.Priority, e.rampShare(t)):
		// The ramp admits priority p from share 1 - p/10 on, which it reaches at
		// rampFrom + RecoveryRamp x ((1 - p/10) - start) / (1 - start).
		need := (1 - float64(r.Priority)/MaxPriority - rampStartShare) / (1 - rampStartShare)
		wait = max(0, e.rampFrom+time.Duration(need*float64(e.hot.RecoveryRamp))-t) + e.draw(float64(time.Second))
	default:
		return false
	}
	if r.Remaining > 0 && wait+e.attemptTime() >= r.Remaining {
		return false // no time to wait: it goes now
	}
	d.Reason, d.Delay = ReasonHeld, max(wait, time.Millisecond)
	return true
}

// paysAtSend reports whether a retry decided with Hold while the circuit is OPEN pays its
// tokens when it is sent (AdmitRequest) rather than when it is decided: with HoldForProbe, on
// the engine's own bucket (a fleet's lease is taken when the retry is decided, as the lease's
// sync expects).
func (e *Engine) paysAtSend(t time.Duration) bool {
	return e.hot.HoldForProbe && !(e.fleetOn && e.fleet.fresh(t))
}
