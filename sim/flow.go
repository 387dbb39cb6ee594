package sim

import (
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// retryCap bounds the retry index whatever a strategy answers (every catalog strategy stops at
// 3), so a faulty strategy cannot recurse without end through zero-delay retries.
const retryCap = 100

// allocRequest returns a free request slot.
func (s *Sim) allocRequest() int32 {
	if n := len(s.freeReq); n > 0 {
		ri := s.freeReq[n-1]
		s.freeReq = s.freeReq[:n-1]
		return ri
	}
	s.reqs = append(s.reqs, request{})
	return int32(len(s.reqs) - 1)
}

// allocAttempt returns a free attempt slot.
func (s *Sim) allocAttempt() int32 {
	if n := len(s.freeAtt); n > 0 {
		ai := s.freeAtt[n-1]
		s.freeAtt = s.freeAtt[:n-1]
		return ai
	}
	s.atts = append(s.atts, attempt{})
	return int32(len(s.atts) - 1)
}

// freeAttempt returns attempt ai to the pool; its generation changes so stale references
// (timeouts, finish events) are recognised.
func (s *Sim) freeAttempt(ai int32) {
	a := &s.atts[ai]
	*a = attempt{gen: a.gen + 1}
	s.freeAtt = append(s.freeAtt, ai)
}

// newRequest is an original request of class cls arriving at client cl at t. The client's
// strategy is asked first, so that an original it refuses (open breaker, adaptive throttle:
// most arrivals of a storm) ends without taking a request slot: a refused original leaves
// nothing behind (no attempt, timeout or timer refers to it), so endOriginal is all that
// endRequest would have done.
func (s *Sim) newRequest(cls, cl int, usr int32, t int64) {
	s.counts.Originals++
	s.classTicks[cls].Arrived++
	prio := int8(s.ctl.Classes[cls].Priority)
	c := &s.clients[cl]
	deadline := t + s.deadline
	var adm strategy.Admission
	a := strategy.Attempt{Priority: int(prio), Deadline: strategy.Time(deadline), Park: c.waker != nil}
	if s.kept != nil { // the dashboard keeps its decisions: apart, as in clientOutcome
		adm = s.admitKept(c, cls, cl, a, t)
	} else {
		adm = c.strat.Admit(s.setClock(t, c), a)
	}
	if adm.Action != engine.Retry { // refused
		s.refuse(cls, adm.Reason, false)
		s.endOriginal(cls, usr, false, t)
		return
	}
	ri := s.allocRequest()
	r := &s.reqs[ri]
	// Zeroed, then set field by field: a composite literal is built on the stack and copied
	// with 16-byte moves, whose loads stall on the narrower stores just made (amd64).
	gen := r.gen
	*r = request{}
	r.gen, r.class, r.prio, r.client, r.user, r.deadline = gen, int16(cls), prio, int32(cl), usr, deadline
	if adm.Wait > 0 {
		if adm.Parked {
			s.park(ri, 0, adm.Wait, adm.Wake, t)
			return
		}
		s.hold(ri, 0, adm.Wait, t)
		return
	}
	s.send(ri, 0, t)
}

// clientSend has the request's client send its attempt number retry at t, if its strategy
// admits it: a refused attempt ends the request (the caller gets the local error), a held one
// waits (hold).
func (s *Sim) clientSend(ri int32, retry int, t int64) { s.clientAsk(ri, retry, engine.AskNew, t) }

// clientAsk is clientSend for an attempt that asks as ask (engine.AskNew the first time; again
// after a hold or a park).
func (s *Sim) clientAsk(ri int32, retry int, ask engine.Ask, t int64) {
	r := &s.reqs[ri]
	c := &s.clients[r.client]
	a := s.attemptOf(r, retry)
	a.Ask = ask
	adm := c.strat.Admit(s.setClock(t, c), a)
	if adm.Action != engine.Retry { // refused
		s.refuse(int(r.class), adm.Reason, retry > 0)
		s.endRequest(ri, false, t)
		return
	}
	if adm.Wait > 0 {
		if adm.Parked {
			s.park(ri, retry, adm.Wait, adm.Wake, t)
			return
		}
		s.hold(ri, retry, adm.Wait, t)
		return
	}
	s.send(ri, retry, t)
}

// attemptOf is what a strategy is told about request r's attempt number retry.
func (s *Sim) attemptOf(r *request, retry int) strategy.Attempt {
	return strategy.Attempt{Priority: int(r.prio), Retry: retry, Deadline: strategy.Time(r.deadline), Park: s.clients[r.client].waker != nil}
}

// refuse counts an attempt of class cls that its strategy refused to send, for reason (the
// Admission's): by reason and by class, an original or a retry. Refusals come in runs of one
// constant reason, whose comparison with the last one is a pointer check.
func (s *Sim) refuse(cls int, reason string, retry bool) {
	if reason != s.lastRefusal {
		s.lastRefusal, s.lastRefusalCode = reason, source.ReasonOf(reason)
	}
	s.counts.AddRefusal(s.lastRefusalCode, retry)
	s.classTicks[cls].AddRefusal(s.lastRefusalCode, retry)
}

// minHold is the shortest hold the simulator makes (1 ms): a strategy that holds attempts for
// less is asked again after 1 ms, so that a run stays finite work whatever it answers.
const minHold = int64(time.Millisecond)

// hold holds request ri's attempt number retry at t for wait (at least minHold), after which its
// strategy is asked again (timerHold), unless the wait would end at or after the request's
// deadline: the request is then abandoned. A held retry stays counted in its client's pending
// retries (it is decided, not yet sent); a held original in its client's held originals.
func (s *Sim) hold(ri int32, retry int, wait time.Duration, t int64) {
	if at, ok := s.holdUntil(ri, retry, wait, t); ok {
		s.timers.push(timer(at, timerHold, ri, s.reqs[ri].gen))
	}
}

// holdUntil starts the hold (or park) of request ri's attempt number retry at t for wait: it
// returns when the hold ends, or false when that would be at or after the request's deadline
// and the request has been abandoned. The held attempt is counted in its client's pending
// retries or held originals, and its request's sentAt is the hold's end (a stale hold timer
// is told apart by it).
func (s *Sim) holdUntil(ri int32, retry int, wait time.Duration, t int64) (int64, bool) {
	s.counts.Held++
	r := &s.reqs[ri]
	r.retry = int16(retry)
	at := t + max(int64(wait), minHold)
	if at >= r.deadline {
		s.counts.HeldExpired++
		if retry > 0 {
			s.counts.RetryExpired++
		}
		s.endRequest(ri, false, t)
		return 0, false
	}
	c := &s.clients[r.client]
	if retry > 0 {
		c.pending++
	} else {
		c.held++
	}
	r.sentAt = at
	return at, true
}

// send sends the client attempt number retry of request ri at t, once its strategy admitted it.
func (s *Sim) send(ri int32, retry int, t int64) {
	r := &s.reqs[ri]
	r.epoch++
	r.retry = int16(retry)
	r.sentAt = t
	r.waiting = true
	if s.scn.Layers > 1 {
		s.cliTimeouts.Push(timeoutEntry{at: t + s.timeout, idx: ri, gen: r.gen, epoch: r.epoch})
	}
	s.sendAttempt(ri, r.gen, r.epoch, retry, 0, t)
}

// sendAttempt sends one attempt to the service at t, on behalf of the client or of an
// intermediate tier: tiers holds the retry index of every tier (0 everywhere for the client's
// own attempt).
func (s *Sim) sendAttempt(ri int32, rgen, ep uint32, retry int, tiers uint8, t int64) {
	s.counts.Attempts++
	// Originals and retries interleave at random: counted without a branch (retry >= 0).
	s.counts.Retries += b2i(retry|int(tiers) != 0)
	ai := s.allocAttempt()
	a := &s.atts[ai]
	gen := a.gen
	*a = attempt{} // then field by field, as in newRequest
	a.gen, a.reqGen, a.epoch, a.req, a.retry, a.tiers, a.sentAt = gen, rgen, ep, ri, int16(retry), tiers, t
	s.svcTimeouts.Push(timeoutEntry{at: t + s.timeout, idx: ai, gen: a.gen})
	s.arrive(ai, t)
}

// answer gives attempt ai its outcome o at t: counted, then handed to the tiers or the client.
func (s *Sim) answer(ai int32, o strategy.Outcome, t int64) {
	a := &s.atts[ai]
	a.answered = true
	ri, rgen, ep, retry, tiers := a.req, a.reqGen, a.epoch, int(a.retry), a.tiers
	if !a.inService {
		s.freeAttempt(ai)
	}
	s.counts.AddOutcome(o, retry > 0 || tiers != 0)
	if o != strategy.Success && o.Retryable() {
		// The intermediate tiers retry at once, whether or not the client is still waiting:
		// their retries multiply with the client's.
		if next, ok := nextTiers(tiers, s.scn.Layers-1); ok {
			s.counts.TierRetries++
			s.sendAttempt(ri, rgen, ep, retry, next, t)
			return
		}
	}
	s.clientOutcome(ri, rgen, ep, o, t)
}

// nextTiers is the tiers' next retry after a failure, an odometer over n tiers (tier n-1
// nearest the service): the nearest tier with retries left retries (the tiers between it and
// the service start their own retries afresh); when every tier has used its TierRetries the
// failure goes back to the client (ok false). With every attempt failing, one client attempt
// costs (1 + TierRetries)^n attempts at the service.
func nextTiers(p uint8, n int) (uint8, bool) {
	for l := n - 1; l >= 0; l-- {
		shift := 2 * l
		if int(p>>shift)&3 < TierRetries {
			p += 1 << shift
			return p &^ (0xff << (shift + 2)), true
		}
	}
	return 0, false
}

// clientOutcome delivers outcome o of the client attempt (ri, rgen, ep) at t, if the client
// is still waiting for that attempt: the strategy records it, then decides on a retry.
//
// An original completes when an attempt succeeds by its deadline; it is abandoned when a
// verdict refuses the retry, when the retry would be sent after the deadline, or when the
// success comes too late.
func (s *Sim) clientOutcome(ri int32, rgen, ep uint32, o strategy.Outcome, t int64) {
	r := &s.reqs[ri]
	if r.gen != rgen || r.epoch != ep || !r.waiting {
		return
	}
	r.waiting = false
	c := &s.clients[r.client]
	now := s.setClock(t, c)
	retry := int(r.retry)
	a := s.attemptOf(r, retry)
	c.strat.Record(now, a, o, timeDur(t-r.sentAt))
	if c.parked > 0 { // the outcome may have freed a slot or shown a recovery
		s.scheduleWake(r.client, t)
	}
	if o == strategy.Success {
		s.endRequest(ri, t <= r.deadline, t)
		return
	}
	if s.kept != nil { // the dashboard keeps its decisions: apart, so this path stays as it was
		s.verdict(ri, s.decideKept(c, r, a, o, t), t)
		return
	}
	v := c.strat.Decide(now, a, o)
	s.countVerdict(int(r.class), v)
	if !v.Retry {
		s.endRequest(ri, false, t)
		return
	}
	if retry >= retryCap {
		s.counts.RetryCapped++
		s.endRequest(ri, false, t)
		return
	}
	at := t + int64(max(v.Delay, 0))
	if at >= r.deadline {
		s.counts.RetryLate++
		s.endRequest(ri, false, t)
		return
	}
	if at == t {
		s.clientSend(ri, retry+1, t)
		return
	}
	r.retry = int16(retry + 1)
	c.pending++
	s.timers.push(timer(at, timerRetry, ri, r.gen))
}

// verdict does what clientOutcome does with verdict v on request ri's failed attempt at t, for
// a decision kept by decideKept: the same steps, in a function of their own so that
// clientOutcome's own path, taken when no decision is kept, is not slowed by the branch
// (measured: 4% of a naive run when both paths shared the verdict's variable).
// TestKeepDecisionsChangesNothing holds the two to the same result.
func (s *Sim) verdict(ri int32, v strategy.Verdict, t int64) {
	r := &s.reqs[ri]
	c := &s.clients[r.client]
	retry := int(r.retry)
	s.countVerdict(int(r.class), v)
	if !v.Retry {
		s.endRequest(ri, false, t)
		return
	}
	if retry >= retryCap {
		s.counts.RetryCapped++
		s.endRequest(ri, false, t)
		return
	}
	at := t + int64(max(v.Delay, 0))
	if at >= r.deadline {
		s.counts.RetryLate++
		s.endRequest(ri, false, t)
		return
	}
	if at == t {
		s.clientSend(ri, retry+1, t)
		return
	}
	r.retry = int16(retry + 1)
	c.pending++
	s.timers.push(timer(at, timerRetry, ri, r.gen))
}

// countVerdict adds a retry decision to the counts.
func (s *Sim) countVerdict(cls int, v strategy.Verdict) {
	// The reason, without comparing strings on the common paths (measured: ReasonOf on every
	// verdict cost `none` 5% of its run): RETRY and the checks 1 and 2 follow from the action
	// (model.VerdictReason), and the other reasons come in runs of the same constant string,
	// whose comparison with the last one is a pointer check.
	code := source.ReasonRetry
	switch v.Action {
	case engine.Retry:
	case engine.NotRetryable:
		code = source.ReasonNotRetryable
	case engine.MaxRetriesExceeded:
		code = source.ReasonMaxRetries
	default:
		if v.Reason != s.lastReason {
			s.lastReason, s.lastCode = v.Reason, source.ReasonOf(v.Reason)
		}
		code = s.lastCode
	}
	model.CountVerdict(&s.counts, &s.classTicks[cls], &v, code)
}

// endRequest ends request ri at t, completed or abandoned, and frees its slot.
func (s *Sim) endRequest(ri int32, completed bool, t int64) {
	s.parks.remove(ri) // a park's timer, stale from now on
	r := &s.reqs[ri]
	cls, usr := int(r.class), r.user
	*r = request{gen: r.gen + 1}
	s.freeReq = append(s.freeReq, ri)
	s.endOriginal(cls, usr, completed, t)
}

// endOriginal counts an original request of class cls that ends at t, completed or abandoned;
// a closed-loop user then thinks before its next request. endRequest calls it for a request
// that had a slot, newRequest for an original its strategy refused before it took one.
func (s *Sim) endOriginal(cls int, usr int32, completed bool, t int64) {
	if completed {
		s.counts.Completed++
		s.classTicks[cls].Succeeded++
	} else {
		s.counts.Abandoned++
	}
	if usr >= 0 {
		s.think(usr, t)
	}
}

// think schedules closed-loop user u's next request after an exponential think time.
func (s *Sim) think(u int32, t int64) {
	d := int64(0)
	if th := s.scn.Loop.Think; th > 0 {
		d = int64(s.thinkRand.ExpFloat64() * float64(th))
	}
	s.timers.push(timer(t+max(d, minThink), timerThink, u, 0))
}

// minThink is the least time a closed-loop user waits between two requests (10 ms), so a
// population with no think time against a dead service stays finite work.
const minThink = int64(10 * time.Millisecond)

// b2i is 1 for true and 0 for false; the compiler makes it a SETcc, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// timeDur converts ns to a Duration.
func timeDur(ns int64) time.Duration { return time.Duration(ns) }
