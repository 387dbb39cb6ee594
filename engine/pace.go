package engine

import (
	"math"
	"time"
)

// The fixed constants of the pacer (Config.AdmitOriginals); those a service calibrates are
// Config.Pace (PaceConfig) and Config.Admit (AdmitConfig). paceTolerance, paceRing, the edge
// buckets and paceMaxPark stay fixed: they bound the pacer's own bookkeeping, not a reading of
// the service, and no service measures them; paceYield and paceBudgetSlack are shares of the
// pacer's own slots (their measurements beside them).
const (
	// paceTolerance is how late a reserved slot may be claimed (the attempt asks again a little
	// late: timers, a loaded caller); a slot older than that is dropped. It is the caller's
	// timer slack, and a parked attempt (the simulator's, the driver's) never claims a
	// reserved slot: it is woken into one.
	paceTolerance = 50 * time.Millisecond
	// paceRing is the most reserved slots the pacer keeps: the size of a fixed array, so that
	// an engine allocates nothing per decision.
	paceRing = 512
	// paceEdgeW and paceEdgeN are the buckets of the parked attempts' deadline edges (the end
	// of their Delay): paceEdgeN buckets of paceEdgeW each, 64 s ahead (a later edge counts as
	// the last bucket's).
	paceEdgeW = 250 * time.Millisecond
	paceEdgeN = 256
	// paceMaxPark is the longest an attempt without a deadline stays parked (Request.Park)
	// before it asks again (AskExpired) if Wake has not released it: a safety net for a caller
	// that lost a wake, not a pace.
	paceMaxPark = 30 * time.Second
	// paceYield is how far a higher priority's oldest parked attempt must be from the end of
	// its wait, in slots of its backlog and the work above it at today's pace, for an urgent
	// lower one to go first (pacer.urgent): 0.3 kept every top class within 5 points of its
	// oracle bound over the built-in scenarios (1 protected them more and lost 1.3 points of
	// black-friday's success, 0 let upi-salary-day's payments fall to 94.5%).
	paceYield = 0.3
	// paceBudgetSlack is how many attempts a slice may send beyond its budget (pacer.budget),
	// so that a client with a few new requests a slice is not held to a fraction of one: 1
	// held spotty-network's billing (30 clients of 4 requests a second) to 94.9%, 2 to 95.1%.
	paceBudgetSlack = 2
)

// The pacer's modes.
const (
	paceDown      = iota + 1 // the service answers nothing: PaceConfig.Min, which probes
	paceRecover              // the queue drained: the pace ramps up on fast successes
	paceCongested            // the service queues or refuses: a tenth more than it completes
)

// reservation is a send slot reserved at at for an attempt of priority prio (-1 once claimed).
type reservation struct {
	at   time.Duration
	prio int8
}

// pacer is the engine's release of attempts while the service cannot take what is asked of it:
// instead of a share of new requests shed, every attempt (new requests and retries) takes a
// send slot, and the slots come at the rate the service completes. An attempt that finds no
// slot free reserves one (within its priority's horizon, so that higher priorities wait
// longer and come first), is held and asks again once the work of its priority and above ahead
// of it may have gone, or is shed when its deadline cannot wait that long; one its caller can
// wake is parked until its slot comes or its deadline's edge (park, urgent). Not safe for
// concurrent use: the engine's mutex guards it.
type pacer struct {
	on   bool
	mode uint8
	rate float64       // slots per second
	gap  time.Duration // 1/rate
	next time.Duration // the next free slot

	ring    [paceRing]reservation // reserved slots, oldest first
	head, n int

	waitSum [MaxPriority + 1]float64 // held time asked for in the current slice, by priority, ns
	pop     [MaxPriority + 1]float64 // held attempts by priority as of the last slice (waitSum/s)

	heldUntil time.Duration // when the last attempt held asks again: the pacer stays on until then

	floor int // the lowest priority granted a slot in the last slice while some were refused one
	low   int // the lowest priority granted in the current slice

	ok, refused, failed float64 // outcomes of the current slice
	timedOut            float64 // timeouts of the current slice (in failed): attempts that held a worker to the timeout
	starved, granted    float64 // attempts refused a slot and granted one in the current slice
	slowN               float64 // successes of the current slice beyond the healthy tail
	doneS               float64 // successes per slice, smoothed (AdmitConfig.Smooth)
	okRate              float64 // the moving rate of successes, per second, as of okAt
	okAt                time.Duration

	parked     [MaxPriority + 1]int32 // attempts parked (Request.Park) by priority, not yet released by Wake
	nParked    int32                  // their sum
	woken      [MaxPriority + 1]int32 // attempts Wake released at wokenAt whose slots are not yet claimed
	wokenAt    time.Duration
	edges      [MaxPriority + 1][paceEdgeN]int32 // parked attempts with a deadline by the bucket of their edge (its number mod paceEdgeN), by priority
	edgeLo     [MaxPriority + 1]int64            // the earliest bucket number that may hold one, by priority
	dated      [MaxPriority + 1]int32            // parked attempts with a deadline (in edges), by priority
	parkedThen int32                             // nParked as the last slice closed
	sent       float64                           // attempts given a slot in the current slice (pacer.budget)
	lastArr    float64                           // new requests that asked in the last slice
	sliceFrom  time.Duration                     // the start of the current slice
	arrived    float64                           // new requests that asked in the current slice (AskNew originals)
	arrS       float64                           // new requests per slice, smoothed (PaceConfig.ArrSlices): the arrival rate the pace is capped by
	sliceS     float64                           // a window slice in seconds
	arrRef     float64                           // new requests per slice, smoothed over the slices with the pacer off (PaceConfig.RefSlices): the load before the pressure

	congFor int           // slices congested without refusals (Engine.settled)
	latRef  time.Duration // the lowest slice low (fastest success) of that run
	latTop  time.Duration // the highest slice low of that run
	slowOK  time.Duration // a latency found to be the service's own: successes up to it count as fast (0: none)

	c          PaceConfig // Config.Pace, its zero fields set to the defaults (PaceConfig.resolved)
	arrW, refW float64    // the weights of a slice in arrS and arrRef (c.ArrSlices, c.RefSlices)
}

// setRate sets the pace to r slots per second (at least paceMin); a faster pace brings the
// next free slot nearer in proportion.
func (p *pacer) setRate(t time.Duration, r float64) {
	if a := max(p.arrS, p.arrRef); p.nParked > 0 && p.sliceS > 0 && a > 0 {
		r = min(r, p.c.Release*a/p.sliceS)
	}
	r = max(p.c.Min, r)
	if p.rate > 0 && r > p.rate && p.next > t {
		p.next = t + time.Duration(float64(p.next-t)*p.rate/r)
	}
	p.rate = r
	p.gap = time.Duration(float64(time.Second) / p.rate)
}

// reset forgets the reserved slots (the pace changed under them).
func (p *pacer) reset() { p.head, p.n, p.next = 0, 0, 0 }

// horizon is how far ahead priority prio may reserve a slot.
func (p *pacer) horizon(prio int) time.Duration {
	return time.Duration(float64(p.c.Horizon) * float64(prio+1) / float64(MaxPriority+1))
}

// fastOK reports whether a success of latency shows no queueing: within the learned healthy
// tail (the baseline's 2.5 times before it forms), or within a slowness found intrinsic.
func (e *Engine) fastOK(latency time.Duration) bool {
	if e.pace.slowOK > 0 && latency <= e.pace.slowOK {
		return true
	}
	if e.bl.tail > 0 {
		return latency <= e.bl.tail
	}
	return e.bl.slowdown(latency) < e.adm.c.Slow
}

// okRateAt returns the moving rate of successes at t, per second.
func (p *pacer) okRateAt(t time.Duration) float64 {
	return p.okRate * math.Exp(-float64(t-p.okAt)/float64(p.c.RateTau))
}

// recordPace counts an outcome o at t for the pacer, the slice's whole outcome accounting;
// refused is an answer that says the service has no room for the attempt (RecordRefused), and
// a timeout is also counted apart, as an attempt that held a worker to the end.
func (e *Engine) recordPace(t time.Duration, o outcome, refused bool, latency time.Duration) {
	p := &e.pace
	if o != succeeded {
		p.failed++
		if refused {
			p.refused++
		}
		if o == timedOut {
			p.timedOut++
		}
		return
	}
	p.ok++
	if !p.on { // off, only the slice's counts are read (stepPace)
		return
	}
	p.okRate = p.okRateAt(t) + float64(time.Second)/float64(p.c.RateTau)
	p.okAt = t
	fast := e.fastOK(latency)
	if !fast {
		p.slowN++
	}
	if p.mode == paceDown && fast { // the service answers again: ramp from now, not the slice's end
		p.mode = paceRecover
	}
	if p.mode != paceRecover {
		return
	}
	if fast { // one more slot a second per round trip, at most twice the rate of successes
		r := p.rate + float64(time.Second)/float64(max(latency, 10*time.Millisecond))
		p.setRate(t, min(r, p.c.StartFactor*p.okRate))
		return
	}
	// A slow success while ramping: the queue is back, halve the pace, not below what completes:
	// the moving rate of successes as well as the slices' smoothed completions, which lag a ramp
	// (after an outage they are near 0 while the service already completes tens a second, and
	// halving fell to half of that: in closed-loop, seed 1, one client's pace was 1.7-5.5 a second at
	// 72-77 s against its share of the capacity, 8-11).
	p.mode = paceCongested
	p.setRate(t, max(p.doneS, p.rate/2, p.okRateAt(t)))
	p.reset()
}

// stepPace closes a window slice at t for the pacer: slow says the fastest success of the
// slice (fastest) was slow (AdmitConfig.Slow: 2.5 times the baseline or more by default). The
// pacer turns on when the service is down (no success and failures), refuses
// (AdmitConfig.Refused of the outcomes) or queues (slow, with AdmitConfig.Failed of failures,
// refusals or a CRITICAL score), sets the pace from what the service completed, and turns off
// once the successes are fast again and no attempt waits for a slot.
func (e *Engine) stepPace(t time.Duration, slow bool, fastest time.Duration) {
	p := &e.pace
	a := &e.adm
	if !slow {
		p.slowOK = 0
	}
	n := p.ok + p.failed
	// A timed-out attempt held a worker to the timeout: it is capacity used, counted with the
	// completions, or a slow dependency's pace (11% timeouts at 1.6 s against a 2 s timeout)
	// undercounts what the service takes and parks work to its deadline (held-out
	// slow-dependency, seeds 11-30: 98.9% -> 99.4%).
	p.doneS += a.c.Smooth * (p.ok + p.timedOut - p.doneS)
	p.arrS += p.arrW * (p.arrived - p.arrS)
	if !p.on {
		p.arrRef += p.refW * (p.arrived - p.arrRef)
	}
	p.lastArr, p.arrived, p.sent = p.arrived, 0, 0
	p.parkedThen = p.nParked
	p.sliceS = e.win.width.Seconds()
	p.sliceFrom = e.win.nextEdge - e.win.width
	down := p.ok == 0 && (p.failed >= 2 || p.on && p.failed >= 1)
	refusing := n > 0 && p.refused >= a.c.Refused*n
	queueing := slow && n > 0 && (refusing || p.failed >= a.c.Failed*n || a.cps >= CriticalFrom)
	congested := refusing || p.slowN > p.c.SlowShare*p.ok
	switch {
	case !p.on:
		if down || refusing || queueing {
			p.on, p.mode = true, paceCongested
			if down {
				p.mode = paceDown
			}
			p.setRate(t, (1+p.c.Margin)*p.ok)
			p.reset()
			p.next = t
			p.okRate, p.okAt = p.ok*float64(time.Second)/float64(e.win.width), t // the slice's rate of successes
		}
	case down:
		if p.mode != paceDown {
			p.reset()
		}
		p.mode = paceDown
		p.setRate(t, p.c.Min)
	case !congested:
		if p.mode != paceRecover {
			p.mode = paceRecover
			p.setRate(t, max(p.rate, p.doneS))
		}
		if p.starved == 0 && t >= p.heldUntil && p.nParked == 0 {
			p.on = false
			p.reset()
		}
	case !refusing && e.settled(fastest):
		p.mode = paceRecover
		p.setRate(t, max(p.rate, p.doneS))
	default:
		p.mode = paceCongested
		switch {
		case slow:
			p.setRate(t, p.doneS)
		case !refusing && p.failed == 0:
			// Even the fastest success was fast and nothing failed: the service completed what
			// the pace sent without a standing queue, so the completions measure the pace, not
			// the capacity; a tenth more than the pace itself, not than those completions, keeps
			// probing for more (a warming service gains capacity every second: closed-loop's
			// pace, a tenth above what it completed, stayed at half of what the service could
			// take, 114 attempts a second against a capacity of 167, its queue empty).
			p.setRate(t, (1+p.c.Margin)*max(p.doneS, p.rate))
		default:
			p.setRate(t, (1+p.c.Margin)*p.doneS)
		}
	}
	p.floor = 0
	if p.on && p.starved > 0 && p.low <= MaxPriority {
		p.floor = p.low
	}
	p.low = MaxPriority + 1
	for q := range p.pop {
		p.pop[q] = p.waitSum[q] / float64(time.Second)
		p.waitSum[q] = 0
	}
	a.share = 0
	if asked := p.granted + p.starved; p.on && asked > 0 {
		a.share = p.starved / asked
	}
	p.ok, p.refused, p.failed, p.granted, p.starved, p.slowN, p.timedOut = 0, 0, 0, 0, 0, 0, 0
	a.floor, a.engaged = p.floor, p.on
}

// settled reports whether a slowness of the successes has lasted a short span of congested
// slices without refusals and without easing: a queue the pacing drains sets ever lower lows
// (the fastest success of a slice below PaceConfig.Easing of the lowest of the span so far),
// while a client's few successes a slice around a latency that is the service's own (a slow
// dependency) set few. Then successes up to PaceConfig.Intrinsic times the highest of the
// span's slice lows count as fast from then on. The lows, not one slice's, since each is the fastest
// of a handful of samples.
func (e *Engine) settled(fastest time.Duration) bool {
	p := &e.pace
	p.congFor++
	switch {
	case p.congFor == 1:
		p.latRef, p.latTop = fastest, fastest
		return false
	case float64(fastest) < p.c.Easing*float64(p.latRef):
		p.congFor = 0
		return false
	}
	p.latRef, p.latTop = min(p.latRef, fastest), max(p.latTop, fastest)
	if p.congFor < int(e.win.recent) {
		return false
	}
	p.congFor = 0
	p.slowOK = time.Duration(p.c.Intrinsic * float64(p.latTop))
	return true
}

// claim consumes a slot reserved for prio due by t (claimed at most paceTolerance late),
// dropping the expired ones; it reports whether it found one.
func (p *pacer) claim(t time.Duration, prio int) bool {
	for p.n > 0 && (p.ring[p.head].prio < 0 || p.ring[p.head].at < t-paceTolerance) {
		p.head = (p.head + 1) % paceRing
		p.n--
	}
	for i := 0; i < p.n; i++ {
		r := &p.ring[(p.head+i)%paceRing]
		if r.at > t {
			return false
		}
		if int(r.prio) == prio && r.at >= t-paceTolerance {
			r.prio = -1
			return true
		}
	}
	return false
}

// paceAdmit decides the attempt r at t against the pacer: true when it may go now, false when d
// has been written (held, Reason HELD, or shed, Reject with SHED_LOW_PRIORITY). An attempt the
// caller can wake (Request.Park) is parked rather than told to ask again on a timer, and takes
// no free slot while an attempt of its priority or above is parked, or a lower one is urgent
// (pacer.urgent): those come first.
func (e *Engine) paceAdmit(t time.Duration, r Request, d *Decision) bool {
	p := &e.pace
	prio := r.Priority
	if r.Ask == AskWoken && p.woken[prio] > 0 && t <= p.wokenAt+paceTolerance {
		p.woken[prio]--
		p.granted++
		p.low = min(p.low, prio)
		return true
	}
	if (r.Ask != AskNew || !r.Park) && p.claim(t, prio) {
		p.sent++
		p.granted++
		p.low = min(p.low, prio)
		return true
	}
	var ahead int32 // parked attempts of prio and above
	if p.nParked > 0 {
		for q := prio; q <= MaxPriority; q++ {
			ahead += p.parked[q]
		}
	}
	p.next = max(p.next, t-p.c.Burst)
	if ahead == 0 && p.next <= t && (p.nParked == 0 || p.urgent(t) < 0) {
		p.next += p.gap
		p.sent++
		p.granted++
		p.low = min(p.low, prio)
		return true
	}
	p.starved++
	wait := p.next - t
	left := r.Remaining
	at := e.attemptTime()
	if r.Park {
		return e.park(t, r, d)
	}
	if wait <= p.horizon(prio) && p.n < paceRing && (left == 0 || wait+at < left) {
		p.ring[(p.head+p.n)%paceRing] = reservation{at: p.next, prio: int8(prio)}
		p.n++
		p.next += p.gap
		p.heldUntil = max(p.heldUntil, t+wait)
		d.Reason, d.Delay = ReasonHeld, wait
		return false
	}
	// Beyond its horizon: ask again once the held work of its priority and above may have gone.
	var held float64
	for q := prio; q <= MaxPriority; q++ {
		held += p.pop[q]
	}
	// Congested, it is shed unless its deadline can wait for that work (expect); otherwise it
	// asks again within its deadline.
	expect := max(0, wait-p.horizon(prio)) + time.Duration(held*float64(p.gap))
	switch p.mode {
	case paceDown:
		wait = time.Duration(float64(time.Second)/p.c.Min/2) + e.draw(float64(time.Second)/p.c.Min)
	case paceCongested:
		wait = max(0, wait-p.horizon(prio)) + e.draw(held*float64(p.gap))
	default:
		wait = min(max(0, wait-p.horizon(prio))+e.draw(held*float64(p.gap)), p.c.MaxPoll)
	}
	if left > 0 {
		wait = min(wait, (left-at)/2)
	}
	if p.mode != paceCongested {
		expect = wait
	}
	if left == 0 || expect+at < left && wait+at < left {
		wait = max(wait, time.Millisecond)
		p.waitSum[prio] += float64(wait)
		p.heldUntil = max(p.heldUntil, t+wait)
		d.Reason, d.Delay = ReasonHeld, wait
		return false
	}
	d.Action, d.Reason = Reject, ReasonShedLowPriority
	return false
}
