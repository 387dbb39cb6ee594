package sim

import (
	"math"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Step advances the run by one tick dt and returns its snapshot, which shares no memory with
// s. After the run is over it returns a zero Snapshot with Done set.
//
// Within a tick, events are processed in time order (ties: worker completions, then
// attempt timeouts, then client timeouts, then timers, then arrivals): every attempt is
// simulated individually, with its own send, service and answer times.
func (s *Sim) Step() source.Snapshot {
	if s.done {
		return source.Snapshot{T: time.Duration(s.now), Dt: time.Duration(s.tick), Done: true}
	}
	start := s.now
	end := start + s.tick
	for _, c := range s.sch.Due(time.Duration(start)) {
		// As if the dashboard's key had applied it between the last tick and this one: a
		// recorded demo replays byte for byte. A scenario's controls are valid (Validate), so
		// none is refused; a run's own refusal would be logged by it as for a key.
		_ = s.Control(c)
	}
	s.beginTick(start)
	s.runEvents(start, end)
	util, over := s.endOfTick(end)
	s.now = end
	if s.now >= s.total {
		s.done = true
	}
	return s.snapshot(util, over)
}

// beginTick applies what changes at tick boundaries: the fault timeline, the service's
// restart and warm-up, the caption, and each client's pending-retry count (SetPending).
func (s *Sim) beginTick(t int64) {
	s.tl.Begin(time.Duration(t))
	s.updateService(t)
	s.tl.Captions(time.Duration(t), s.strategy)
	if s.fleet != nil && t >= s.fleet.next {
		s.syncFleet(t)
	}
	for i := range s.clients {
		c := &s.clients[i]
		if c.pending != c.lastPending {
			c.strat.SetPending(c.pending)
			c.lastPending = c.pending
		}
	}
}

// Event sources, in tie-breaking order.
const (
	srcNone = iota
	srcFinish
	srcTimeout
	srcClientTimeout
	srcTimer
	srcPark // a parked attempt's hold timer: a timer too, ordered with them by (at, seq)
	srcArrival
)

// runEvents processes every event in [start, end) in time order.
func (s *Sim) runEvents(start, end int64) {
	// Open-loop arrivals, drawn for the whole tick first (scenarios.Arrivals: a Poisson process
	// of the classes' rates at the middle of the tick, restarted at each tick boundary), then
	// taken in time order among the other events. No arrivals after the arrival phase.
	s.arrivals = s.arrivals[:0]
	if !s.scn.Loop.Closed && start < s.duration {
		s.classRates = s.classRates[:0]
		for _, c := range s.ctl.Classes {
			s.classRates = append(s.classRates, c.Rate*c.Share)
		}
		s.arrivals = s.arr.Draw(s.arrivals, time.Duration(start), time.Duration(min(end, s.duration)),
			time.Duration(start+s.tick/2), s.classRates, 0)
	}
	next, nextArr := int64(math.MaxInt64), 0
	if len(s.arrivals) > 0 {
		next = int64(s.arrivals[0].At)
	}
	for {
		t, src := end, srcNone
		if s.svc.running.len() > 0 && s.svc.running.min().at < t {
			t, src = s.svc.running.min().at, srcFinish
		}
		if s.svcTimeouts.Len() > 0 && s.svcTimeouts.Front().at < t {
			if at, ok := s.timeoutBefore(t); ok {
				t, src = at, srcTimeout
			}
		}
		if s.cliTimeouts.Len() > 0 && s.cliTimeouts.Front().at < t {
			t, src = s.cliTimeouts.Front().at, srcClientTimeout
		}
		if s.timers.len() > 0 && s.timers.min().at < t {
			t, src = s.timers.min().at, srcTimer
		}
		if s.parks.len() > 0 {
			if p := s.parks.min(); p.at < t || p.at == t && src == srcTimer && p.seq < s.timers.min().seq {
				t, src = p.at, srcPark
			}
		}
		if next < t {
			t, src = next, srcArrival
		}
		switch src {
		case srcNone:
			return
		case srcFinish:
			// The heaps' entries are read in place and their pop results dropped: a popped
			// entry (five fields, not kept in registers) was stored to the stack and copied
			// with 16-byte loads that stall on those stores (amd64).
			idx := s.svc.running.min().idx
			s.svc.running.pop()
			s.finish(idx, t)
		case srcTimeout:
			e := s.svcTimeouts.Pop() // still due: timeoutBefore checked it
			s.answer(e.idx, strategy.Timeout, e.at)
		case srcClientTimeout:
			e := s.cliTimeouts.Pop()
			s.clientOutcome(e.idx, e.gen, e.epoch, strategy.Timeout, e.at)
		case srcTimer:
			e := s.timers.min()
			kind, idx, gen := e.kind(), e.idx, e.gen
			s.timers.pop()
			s.fireTimer(kind, idx, gen, t)
		case srcPark:
			e := s.parks.min()
			idx, gen := e.idx, e.gen
			s.parks.pop()
			s.fireTimer(timerHold, idx, gen, t)
		case srcArrival:
			a := s.arrivals[nextArr]
			if nextArr++; nextArr < len(s.arrivals) {
				next = int64(s.arrivals[nextArr].At)
			} else {
				next = math.MaxInt64
			}
			s.newRequest(a.Class, a.Client, -1, t)
		}
	}
}

// timeoutBefore returns the time of the earliest per-attempt timeout still due if it is before
// t. Every attempt queues a timeout, and most are answered before it: the entries of answered
// (or freed) attempts met at the front are dropped here instead of each being popped as an
// event that does nothing (a third of a storm run's events). An entry that is stale stays
// stale (a slot's generation only grows), so dropping it early changes nothing else.
func (s *Sim) timeoutBefore(t int64) (int64, bool) {
	q := &s.svcTimeouts
	for q.Len() > 0 && q.Front().at < t {
		e := q.Front()
		if a := &s.atts[e.idx]; a.gen == e.gen && !a.answered {
			return e.at, true
		}
		q.Pop()
	}
	return 0, false
}

// fireTimer handles the timer (kind, idx, gen) due at at: a retry wake-up, the end of a held
// attempt's wait, or the end of a user's think time.
func (s *Sim) fireTimer(kind uint8, idx int32, gen uint32, at int64) {
	switch kind {
	case timerRetry:
		r := &s.reqs[idx]
		if r.gen != gen {
			return
		}
		s.clients[r.client].pending--
		if at > r.deadline {
			s.counts.RetryExpired++
			s.endRequest(idx, false, at)
			return
		}
		s.clientSend(idx, int(r.retry), at)
	case timerHold:
		r := &s.reqs[idx]
		if r.gen != gen || r.waiting || r.sentAt != at {
			return // a park's, whose attempt was woken since
		}
		if r.park&1 == 1 { // parked, not woken by its Wait's end
			s.unpark(idx)
			s.clientAsk(idx, int(r.retry), engine.AskExpired, at)
			return
		}
		if c := &s.clients[r.client]; r.retry > 0 {
			c.pending--
		} else {
			c.held--
		}
		s.clientAsk(idx, int(r.retry), engine.AskAgain, at)
	case timerWake:
		s.wake(idx, gen, at)
	case timerThink:
		if at >= s.duration {
			return // the arrival phase is over: the user stops
		}
		u := s.users[idx]
		// The load profile scales the active population: user i is active while
		// i < Users x load(t) x share of its class x its class's own load factor; an idle
		// user checks again after a think time.
		active := float64(s.scn.Loop.Users) * s.load(at) * s.ctl.Classes[u.class].Share * s.scn.ClassLoadAt(u.class, time.Duration(at))
		if float64(idx) >= active {
			s.think(idx, at+max(int64(s.scn.Loop.Think), int64(time.Second))-minThink)
			return
		}
		s.newRequest(u.class, u.client, idx, at)
	}
}

// load is the load profile at t (ns): piecewise linear between the points, constant before
// the first and after the last, 1 without points (scenarios.Scenario.LoadAt).
func (s *Sim) load(t int64) float64 { return s.scn.LoadAt(time.Duration(t)) }

// emit appends event e of the tick, at t.
func (s *Sim) emit(t int64, e source.Event) {
	e.T = time.Duration(t)
	s.events = append(s.events, e)
}

// circuitReader is implemented by strategies with a circuit breaker of their own.
type circuitReader interface{ Circuit() engine.CircuitState }

// snapshot builds the tick's Snapshot and resets the per-tick counters; util and over are
// endOfTick's results.
func (s *Sim) snapshot(util float64, over int64) source.Snapshot {
	snap := source.Snapshot{
		T:       time.Duration(s.now),
		Dt:      time.Duration(s.tick),
		Done:    s.done,
		Counts:  s.counts,
		Classes: make([]source.ClassTick, len(s.classTicks)),
		Service: source.Service{
			State:       s.svc.State,
			Capacity:    s.svc.Capacity,
			Queue:       s.svc.queue.Len(),
			QueueLimit:  s.scn.Service.QueueLimit,
			Utilisation: util,
			Overload:    time.Duration(over),
		},
	}
	for i := range s.clients {
		snap.Pending += s.clients[i].pending
		snap.HeldOriginals += s.clients[i].held
	}
	for i := range s.classTicks {
		s.classTicks[i].Priority = s.ctl.Classes[i].Priority
	}
	copy(snap.Classes, s.classTicks)
	snap.Note = s.tl.Note(s.strategy)
	snap.Cortex = s.fleetView()
	snap.Faults = s.tl.Faults(nil, time.Duration(s.now))
	if len(s.events) > 0 {
		snap.Events = append([]source.Event(nil), s.events...)
	}
	s.events = s.events[:0]
	s.counts = source.Counts{}
	clear(s.classTicks)
	return snap
}

// fleetView reads every client's strategy once: it emits at most one event per tick, when the
// number of clients with an OPEN or a HALF_OPEN circuit changed (for cortex and breaker), and for cortex returns the CORTEX state averaged over
// the clients with the spread (nil otherwise).
func (s *Sim) fleetView() *source.CortexView {
	sum := &s.cortexSum
	sum.Reset()
	for i := range s.clients {
		c := &s.clients[i]
		if c.holder == nil {
			if r, ok := c.strat.(circuitReader); ok {
				sum.AddCircuit(r.Circuit())
			}
			continue
		}
		e := &s.engSnap // filled in place: a Snapshot returned by value is copied whole
		c.holder.Engine().SnapshotTo(e)
		sum.Add(e)
	}
	open, halfOpen := sum.Circuits()
	if seen := [2]int{halfOpen, open}; seen != s.lastCircuits {
		s.emit(s.now, source.Event{Kind: source.EventCircuit, Circuit: source.CircuitEvent{Open: open,
			HalfOpen: halfOpen, Clients: len(s.clients)}})
		s.lastCircuits = seen
	}
	v := sum.View(s.emergency)
	if v != nil && s.fleet != nil {
		v.Fleet = s.fleet.health()
	}
	return v
}
