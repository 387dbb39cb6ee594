package sim

import (
	"math"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// parkEntry is a parked attempt in its client's queue: request idx while its generation is gen
// and its park count is park (a request woken or asking again since is stale here).
type parkEntry struct {
	idx  int32
	gen  uint32
	park uint16
}

// parkQueue is a client's parked attempts of one priority, oldest first (stale ones are skipped
// when met at the front).
type parkQueue struct {
	q    []parkEntry
	head int
}

// push adds e at the back. A full slice whose front half or more has been taken moves what is
// left to its start instead of growing: a queue that never empties (parks coming while wakes
// take the oldest, through a whole outage) used to grow by the entries it had already
// released, some 8 MB a storm run of cortex.
func (p *parkQueue) push(e parkEntry) {
	switch {
	case p.head > 0 && p.head == len(p.q):
		p.q, p.head = p.q[:0], 0
	case p.head > 0 && len(p.q) == cap(p.q) && p.head >= len(p.q)/2:
		p.q, p.head = p.q[:copy(p.q, p.q[p.head:])], 0
	}
	p.q = append(p.q, e)
}

// noWake is a client's wakeAt while no wake timer is due.
const noWake = math.MaxInt64

// park parks request ri's attempt number retry at t (Admission.Parked): it waits in its
// client's queue of its priority until the strategy's Wake releases it (timerWake), or at most
// wait (timerHold, then it asks again with engine.AskExpired), unless that would end at or
// after the request's deadline: it is then abandoned, as a hold would be. wake is the
// Admission's Wake: the client's wake timer is due by then (what scheduleWake would ask the
// strategy's NextWake, answered by the Admit that parked it).
func (s *Sim) park(ri int32, retry int, wait, wake time.Duration, t int64) {
	at, ok := s.holdUntil(ri, retry, wait, t)
	if !ok {
		return
	}
	r := &s.reqs[ri]
	c := &s.clients[r.client]
	r.park++ // odd: parked
	c.parkQ[r.prio].push(parkEntry{idx: ri, gen: r.gen, park: r.park})
	c.parked++
	s.timers.seq++ // the park's timer is sequenced with the timers heap's (parkHeap)
	s.parks.push(timed{at: at, seq: s.timers.seq<<kindBits | uint64(timerHold), idx: ri, gen: r.gen})
	if c.waker != nil {
		s.wakeAt(r.client, t+int64(max(wake, 0)))
	}
}

// unpark takes request ri, parked, out of its client's parked attempts and drops its hold
// timer (a stale queue entry stays until met).
func (s *Sim) unpark(ri int32) {
	s.parks.remove(ri)
	r := &s.reqs[ri]
	c := &s.clients[r.client]
	r.park++ // even: no longer parked
	c.parked--
	if r.retry > 0 {
		c.pending--
	} else {
		c.held--
	}
}

// scheduleWake makes sure client cl's wake timer is due by the time its strategy's NextWake
// says, if it has parked attempts.
func (s *Sim) scheduleWake(cl int32, t int64) {
	c := &s.clients[cl]
	if c.parked == 0 || c.waker == nil {
		return
	}
	after, ok := c.waker.NextWake(s.setClock(t, c))
	if !ok {
		after = 0 // the strategy knows of none: the client releases its own (wake)
	}
	s.wakeAt(cl, t+int64(max(after, 0)))
}

// wakeAt sets client cl's wake timer at at unless one is due by then.
func (s *Sim) wakeAt(cl int32, at int64) {
	c := &s.clients[cl]
	if c.wakeAt <= at {
		return
	}
	c.wakeAt = at
	c.wakeGen++
	s.timers.push(timer(at, timerWake, cl, c.wakeGen))
}

// wake is client cl's wake timer at t: its strategy's Wake says how many of its oldest parked
// attempts of each priority to ask about again now (engine.AskWoken), highest priority first.
// Parked attempts the strategy does not know of (a strategy switched, or without Wake) are all
// asked about again (engine.AskAgain).
func (s *Sim) wake(cl int32, gen uint32, t int64) {
	c := &s.clients[cl]
	if gen != c.wakeGen {
		return
	}
	c.wakeAt = noWake
	if c.parked == 0 {
		return
	}
	n := &s.wakeN // not a local: through the interface it would escape, an allocation a wake
	*n = [engine.MaxPriority + 1]int{}
	after, ok := time.Duration(0), false
	if c.waker != nil {
		after, ok = c.waker.Wake(s.setClock(t, c), n)
	}
	s.release(cl, n, engine.AskWoken, t)
	if !ok && c.parked > 0 { // the strategy holds none: what the client still has parked goes too
		for q := range n {
			n[q] = math.MaxInt
		}
		s.release(cl, n, engine.AskAgain, t)
	}
	if ok {
		s.wakeAt(cl, t+int64(max(after, 0)))
	}
}

// release asks client cl's strategy again, as ask, about its n[p] oldest parked attempts of
// each priority p, highest priority first.
func (s *Sim) release(cl int32, n *[engine.MaxPriority + 1]int, ask engine.Ask, t int64) {
	c := &s.clients[cl]
	batch := s.wakeBuf[:0]
	for q := engine.MaxPriority; q >= 0; q-- {
		pq := &c.parkQ[q]
		for k := n[q]; k > 0 && pq.head < len(pq.q); {
			e := pq.q[pq.head]
			pq.head++
			if r := &s.reqs[e.idx]; r.gen != e.gen || r.park != e.park {
				continue // woken or asked again since
			}
			batch = append(batch, e.idx)
			k--
		}
	}
	for _, ri := range batch {
		s.unpark(ri)
		r := &s.reqs[ri]
		s.clientAsk(ri, int(r.retry), ask, t)
	}
	s.wakeBuf = batch[:0]
}
