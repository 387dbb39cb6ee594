package engine

import "time"

// Reasons of AdmitRequest's answers (Admit's too). A shed request gets Action Reject and
// ReasonShedLowPriority; a retry the bucket can no longer pay when it is sent, Reject and
// ReasonBudgetExhausted.
const (
	ReasonAdmitted = "ADMITTED" // Action Retry, Delay 0: send it now
	ReasonHeld     = "HELD"     // Action Retry, Delay > 0: send nothing now, ask again after Delay
)

// The constants of admission (Config.AdmitOriginals); docs/engine.md gives the measurements
// behind each.
const (
	// admitSlow is the slowdown at or above which a success says the service queues: a latency
	// of at least 2.5 times the baseline (S >= 0.5). Admission reads the fastest success of the
	// last window slice, so it takes every success of the slice to have queued.
	admitSlow = 0.5
	// admitRefused and admitFailed are the shares of the short span's outcomes, answered
	// refusals (503, 429) and failures of any kind, above which slow successes engage the
	// shedding: slow successes alone may be a slow dependency rather than a queue.
	admitRefused = 0.05
	admitFailed  = 0.25
	// admitMargin is how much more than the service completed the engine admits while it sheds:
	// a tenth more, so that the queue stays fed and the admitted rate climbs as fast as the
	// service recovers (by a tenth a slice).
	admitMargin = 0.1
	// admitSmooth is the weight of each slice in the smoothed counts of completed and asked.
	admitSmooth = 0.5
	// mixDecay is how much of the priority mix each window slice keeps (a memory of about five
	// slices): the shed share is taken from the lowest priorities of recent traffic.
	mixDecay = 0.8
	// mixPresent is the decayed count above which a priority counts as present in the mix.
	mixPresent = 0.5
	// topShare is the most of the highest priority present that admission may shed: the rest
	// keeps the signals learning, and keeps the class the engine protects most flowing.
	topShare = 0.5
)

// admission is the state of Admit (Config.AdmitOriginals). Once per window slice (step) the
// engine compares what the service completed with what was asked of it: while the service
// queues, it sheds the share of new requests it cannot complete, lowest priorities first.
// Not safe for concurrent use: the engine's mutex guards it.
type admission struct {
	mix    [MaxPriority + 1]float64 // originals asked, by priority, decayed by mixDecay per slice
	asked  float64                  // originals asked in the current slice
	okN    float64                  // successes in the current slice
	okMin  time.Duration            // the fastest of them
	lastOK time.Duration            // the latest success's latency (0 before any)

	askedS, doneS float64 // asked and completed per slice, smoothed (admitSmooth)
	engaged       bool    // the service queues: admission sheds
	share         float64 // share of originals shed, lowest priorities first
	floor         int     // priorities below floor are shed whole
	part          float64 // the share of priority floor shed
	carry         float64 // error diffusion of part: exactly that share of the floor's class is shed

	sig Signals // the signals as the last slice closed, which Admit's answers carry
	cps float64 // their score

	admitted, shed uint64 // Admit's answers since New or Reset
}

// recordOK counts a success of latency for admission.
func (a *admission) recordOK(latency time.Duration) {
	if a.okN == 0 || latency < a.okMin {
		a.okMin = latency
	}
	a.okN++
	a.lastOK = latency
}

// step closes a window slice at t: it decides whether the service queues, sets the shed share
// from what it completed and what was asked, and turns the share into a floor over the recent
// priority mix.
func (e *Engine) stepAdmission(t time.Duration) {
	a := &e.adm
	fastest := a.lastOK
	if a.okN > 0 {
		fastest = a.okMin
	}
	slow := e.bl.slowdown(fastest) >= admitSlow
	a.askedS += admitSmooth * (a.asked - a.askedS)
	a.doneS += admitSmooth * (a.okN - a.doneS)
	a.asked, a.okN = 0, 0
	e.fillSignals(t, &a.sig)
	a.cps = e.w.dot(&a.sig)
	if !(a.cps >= 0) { // NaN from a broken signal: the unified decision falls back on it, admission reads 0
		a.cps = 0
	}
	a.cps = clamp01(a.cps)
	if slow && !a.engaged {
		sp := &e.win.short
		n := float64(sp.outcomes())
		a.engaged = n > 0 && (float64(sp.failures-sp.timeouts) >= admitRefused*n || float64(sp.failures) >= admitFailed*n ||
			a.cps >= CriticalFrom)
	}
	if !slow {
		a.engaged = false
	}
	a.share = 0
	if a.engaged && a.askedS > 0 {
		a.share = clamp01(1 - a.doneS*(1+admitMargin)/a.askedS)
	}
	a.floor, a.part = a.mixFloor(a.share)
	for p := range a.mix {
		a.mix[p] *= mixDecay
	}
}

// mixFloor turns a shed share into a floor over the priority mix: the priorities below floor
// are shed whole and part of priority floor, so that share of recent originals is shed, lowest
// priorities first; at most topShare of the highest priority present.
func (a *admission) mixFloor(share float64) (floor int, part float64) {
	if share <= 0 {
		return 0, 0
	}
	var total float64
	top := -1
	for p, c := range a.mix {
		total += c
		if c > mixPresent {
			top = p
		}
	}
	if top < 0 {
		return 0, 0
	}
	var cum float64
	for p := 0; p < top; p++ {
		s := a.mix[p] / total
		if cum+s > share {
			return p, (share - cum) / s
		}
		cum += s
	}
	return top, min(topShare, (share-cum)/(a.mix[top]/total))
}

// sheds reports whether an original of priority p is shed now, and counts it as asked.
func (a *admission) sheds(p int) bool {
	a.mix[p]++
	a.asked++
	switch {
	case p < a.floor:
		return true
	case p == a.floor && a.part > 0:
		a.carry += a.part
		if a.carry >= 1 {
			a.carry--
			return true
		}
	}
	return false
}

// Admit decides whether a new request (an original, not a retry) of the given priority (0..10,
// clamped) may be sent now. With Config.AdmitOriginals (the default) the engine sheds new
// requests while the service queues: once per window slice, when even the fastest success of
// the slice took 2.5 times the baseline latency or more and the short span shows refusals
// (5% of its outcomes), failures (25%) or a CRITICAL score, it admits a tenth more new requests
// than the service completed in the last slices, and sheds the rest, lowest priorities first
// over the recent mix of priorities (at most half of the highest priority present, which keeps
// the signals learning); it stops shedding as soon as a success comes back fast.
//
// The answer is Action Retry with Reason ADMITTED (send it), or Action Reject with Reason
// SHED_LOW_PRIORITY (fail it locally, as a 503 would: it was never sent). Floor is the
// admission floor (priorities below it are shed whole, and part of the floor's own class), CPS,
// State and Signals the score as the last window slice closed (what admission decided on: it
// reads no signal per request, so that it costs a new request as little as possible). Without AdmitOriginals (ArticleConfig) every request is
// admitted. Every answer is counted (Snapshot.OriginalsAdmitted, OriginalsShed). Safe for
// concurrent use; it never panics and allocates nothing.
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

// admit is AdmitRequest into *d for a clamped request.
func (e *Engine) admit(d *Decision, r Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	a := &e.adm
	*d = Decision{Priority: r.Priority, Action: Retry, Reason: ReasonAdmitted, Floor: a.floor, CPS: a.cps, Signals: a.sig}
	d.State = StateFor(a.cps, e.cfg.EmergencyThreshold)
	if r.Hold && e.cfg.HoldForProbe && r.Retry > 0 && e.hold(t, r, d) {
		return
	}
	if r.Retry > 0 {
		if r.Hold && e.owed > 0 {
			e.owed-- // a retry decided while the circuit was OPEN pays now
			if !e.tb.take(t, e.retryCost(false), e.reserve(r.Priority)) {
				d.Action, d.Reason = Reject, ReasonBudgetExhausted
				return
			}
		}
		e.br.probeSent(t) // a held retry sent in HALF_OPEN is a probe (a no-op otherwise)
		return
	}
	if e.cfg.AdmitOriginals && a.sheds(r.Priority) {
		a.shed++
		d.Action, d.Reason = Reject, ReasonShedLowPriority
		return
	}
	a.admitted++
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
		wait = max(0, e.rampFrom+time.Duration(need*float64(e.cfg.RecoveryRamp))-t) + e.draw(float64(time.Second))
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
	return e.cfg.HoldForProbe && !(e.fleetOn && e.fleet.fresh(t))
}
