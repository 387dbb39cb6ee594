package engine

import (
	"math"
	"time"
)

// park parks the attempt r (Request.Park), which found no slot free, at t until Wake releases
// it or, at the latest, until its deadline leaves just the time of an attempt (paceMaxPark
// without a deadline): it is shed only then, at the edge of its deadline, not on a forecast of
// its wait. The forecast (the work ahead at today's pace) was wrong where it mattered: the
// pace climbs as a restarted service warms up, and the oracle serves what arrived during an
// overload later, within its deadline, once capacity is free (docs/engine.md). Within
// Pace.Urgent of that edge it may take a slot before higher priorities (urgent). It returns
// false: d is written.
func (e *Engine) park(t time.Duration, r Request, d *Decision) bool {
	p := &e.pace
	longest := paceMaxPark
	if r.Remaining > 0 {
		longest = r.Remaining - e.attemptTime()
		if longest <= 0 {
			d.Action, d.Reason = Reject, ReasonShedLowPriority
			return false
		}
	}
	p.parked[r.Priority]++
	p.nParked++
	if r.Remaining > 0 {
		p.addEdge(r.Priority, t+longest)
	}
	d.Reason, d.Delay, d.Parked = ReasonHeld, max(longest, time.Millisecond), true
	return false
}

// unpark takes a parked attempt of priority prio off the queue: its Delay ended before Wake
// released it (AskExpired).
func (p *pacer) unpark(prio int) {
	if p.parked[prio] > 0 {
		p.parked[prio]--
		p.nParked--
		p.popEdge(prio)
	}
}

// wake releases at t the parked attempts whose slots have come into n (see Engine.Wake); on
// says the pacer paces at all (Config.AdmitOriginals).
func (p *pacer) wake(t time.Duration, n *[MaxPriority + 1]int, on bool) (time.Duration, bool) {
	if p.nParked == 0 {
		return 0, false
	}
	if !on || !p.on { // nothing paces: every parked attempt goes
		for q := range p.parked {
			n[q] += int(p.parked[q])
			p.parked[q] = 0
		}
		p.nParked = 0
		p.dated = [MaxPriority + 1]int32{}
		p.edges = [MaxPriority + 1][paceEdgeN]int32{}
		return 0, false
	}
	if t > p.wokenAt+paceTolerance {
		p.woken = [MaxPriority + 1]int32{}
	}
	p.wokenAt = t
	p.next = max(p.next, t-p.c.Burst)
	for p.nParked > 0 && p.next <= t && p.sent < p.budget(t) {
		p.sent++
		q := p.urgent(t)
		if q < 0 {
			q = MaxPriority
			for p.parked[q] == 0 {
				q--
			}
		}
		p.next += p.gap
		p.parked[q]--
		p.nParked--
		p.popEdge(q)
		p.woken[q]++
		n[q]++
	}
	return p.nextWake(t)
}

// urgent returns the priority whose oldest parked attempt takes the next slot before the
// parked attempts of higher priorities, -1 for none: the highest one whose oldest is within
// Pace.Urgent of the end of its wait (its deadline less an attempt's time), unless a higher
// priority's oldest is nearer its own end than paceYield times the slots of that priority's
// backlog and the work above it, or the parked work has grown since the last slice closed;
// then strict priority order holds. The oracle serves the oldest first: a request near its
// deadline goes before one that can wait and still be served, so that both are, and the work
// kept through an outage is there for the capacity that comes free after it. While the parked
// work grows the capacity does not cover the arrivals: a slot given to the oldest would only
// move the wait onto a higher priority, left with less time for its retries (prefetch-spike's
// plays fell to 74% during the spike, api-throttling's OTPs to 94.7%, without that rule).
func (p *pacer) urgent(t time.Duration) int {
	if p.nParked > p.parkedThen {
		return -1 // the parked work grows: the capacity does not cover the arrivals
	}
	var ahead int32
	for q := MaxPriority; q >= MinPriority; q-- {
		if p.parked[q] == 0 {
			continue
		}
		end, ok := p.oldestEdge(q)
		if ok && end-t <= p.c.Urgent {
			return q
		}
		ahead += p.parked[q]
		if ok && end-t <= time.Duration(paceYield*float64(ahead+1)*float64(p.gap)) {
			return -1 // a higher priority could not wait for it
		}
	}
	return -1
}

// addEdge counts a parked attempt of priority q whose wait ends at end.
func (p *pacer) addEdge(q int, end time.Duration) {
	b := int64(end / paceEdgeW)
	if p.dated[q] == 0 || b < p.edgeLo[q] {
		p.edgeLo[q] = b
	}
	b = min(b, p.edgeLo[q]+paceEdgeN-1)
	p.edges[q][b%paceEdgeN]++
	p.dated[q]++
}

// oldestEdge returns the start of the earliest bucket holding a parked attempt of priority q
// with a deadline, false when none has one.
func (p *pacer) oldestEdge(q int) (time.Duration, bool) {
	if p.dated[q] == 0 {
		return 0, false
	}
	for p.edges[q][p.edgeLo[q]%paceEdgeN] == 0 {
		p.edgeLo[q]++
	}
	return time.Duration(p.edgeLo[q]) * paceEdgeW, true
}

// popEdge uncounts the oldest parked attempt of priority q with a deadline, if any: the one
// released or expired.
func (p *pacer) popEdge(q int) {
	if _, ok := p.oldestEdge(q); ok {
		p.edges[q][p.edgeLo[q]%paceEdgeN]--
		p.dated[q]--
	}
}

// nextWake returns how long from t until the next slot a parked attempt may take, and false
// when none is parked.
func (p *pacer) nextWake(t time.Duration) (time.Duration, bool) {
	if p.nParked == 0 {
		return 0, false
	}
	if !p.on {
		return 0, true
	}
	if p.sent >= p.budget(t) {
		return max(p.gap, p.next-t), true
	}
	return max(0, p.next-t), true
}

// budget returns how many attempts the current slice may send as of t while work is parked:
// Release times the new requests that asked in it, counting those still to come at the
// smoothed rate, so that a slice with fewer arrivals than usual also releases less of the
// parked work (the Release cap on the pace follows the smoothed arrivals). Unbounded once the
// new requests have all but stopped (the last slice had under a tenth of the arrivals before
// the pressure): what is parked then drains at the pace.
func (p *pacer) budget(t time.Duration) float64 {
	if p.lastArr < 0.1*p.arrRef || p.sliceS <= 0 {
		return math.Inf(1)
	}
	left := 1 - min(1, max(0, (t-p.sliceFrom).Seconds()/p.sliceS))
	return p.c.Release*(p.arrived+left*p.arrS) + paceBudgetSlack
}
