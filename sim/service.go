package sim

import (
	"time"

	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// service is the downstream service: the physics of model.Service (workers, capacity,
// service times, warm-up, the utilisation window and the crash clock) serving a bounded FIFO
// queue of attempts, with the throttle fault's token bucket. The faults act through the
// Effects of the timeline (Sim.fx), never by kind: a new kind that acts as an existing lever
// acts here with its row alone (TestEveryFaultKindActs).
type service struct {
	model.Service
	queue   ring.Ring[int32]
	running eventHeap // attempts being served, by finish time
	bucket  model.Bucket
}

// sideOf is a Sim as its timeline's model.Effector: the simulator's service, and its events.
type sideOf struct{ s *Sim }

var _ model.Effector = sideOf{}

// Start puts the faults fx in effect, f just started: an outage takes the service down (the
// queue is lost and every attempt it holds fails fast), a throttle starts with its bucket full.
func (e sideOf) Start(t time.Duration, f scenarios.Fault, fx scenarios.Effects) error {
	s, was := e.s, e.s.fx
	s.fx = fx
	if fx.Down && !was.Down {
		s.goDown(int64(t), source.ServiceDown)
	}
	if spec, _ := f.Kind.Spec(); spec.Lever == scenarios.LeverThrottle {
		s.svc.bucket.Reset(f.Value, t)
	}
	return nil
}

// End puts the faults left in effect: the end of an outage starts the warm-up.
func (e sideOf) End(t time.Duration, _ scenarios.FaultKind, fx scenarios.Effects) {
	s, was := e.s, e.s.fx
	s.fx = fx
	if was.Down && !fx.Down && s.svc.State == source.ServiceDown {
		s.startWarming(int64(t))
	}
}

// Emit adds an event of the timeline to the tick's.
func (e sideOf) Emit(ev source.Event) { e.s.events = append(e.s.events, ev) }

// goDown takes the service down at t (crash or outage): the queue is lost and every attempt
// it holds fails fast now.
func (s *Sim) goDown(t int64, state source.ServiceState) {
	s.svc.Down(state)
	for s.svc.queue.Len() > 0 {
		s.releaseFailed(s.svc.queue.Pop(), t)
	}
	for s.svc.running.len() > 0 {
		idx := s.svc.running.min().idx
		s.svc.running.pop()
		s.releaseFailed(idx, t)
	}
	s.svc.Busy = 0
}

// releaseFailed takes attempt ai out of the service and fails it fast at t if its sender
// is still waiting.
func (s *Sim) releaseFailed(ai int32, t int64) {
	a := &s.atts[ai]
	a.inService = false
	if a.answered {
		s.freeAttempt(ai)
		return
	}
	s.answer(ai, strategy.FastFail, t)
}

// startWarming begins a warm-up at t (after a restart or the end of an outage).
func (s *Sim) startWarming(t int64) {
	if s.svc.StartWarming(time.Duration(t)) {
		cfg := s.scn.Service
		s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceWarming,
			Cause: source.CauseRestart, WarmStart: cfg.WarmStart, Warmup: cfg.Warmup}})
	}
}

// updateService advances restarts and warm-up to time t and computes this tick's effective
// workers and capacity, then starts queued attempts on freed capacity.
func (s *Sim) updateService(t int64) {
	sv := &s.svc
	if sv.RestartDue(time.Duration(t), s.fx.Down) {
		s.startWarming(t)
		if sv.State == source.ServiceUp {
			s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceUp, Cause: source.CauseRestart}})
		}
	}
	if sv.Warmed(time.Duration(t)) {
		s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceUp, Cause: source.CauseWarmedUp}})
	}
	sv.Resize(s.fx)
	s.dispatch(t)
}

// arrive is attempt ai reaching the service at t.
func (s *Sim) arrive(ai int32, t int64) {
	sv := &s.svc
	if !sv.State.Serving() {
		s.answer(ai, strategy.FastFail, t) // connection refused
		return
	}
	if s.fx.Hang {
		return // the name does not resolve: the attempt hangs until its timeout
	}
	if v := s.fx.BadRequests; v > 0 && s.svcRand.Float64() < v {
		sv.Refused()
		s.answer(ai, strategy.BadRequest, t)
		return
	}
	if r := s.fx.Throttle; r > 0 && !sv.bucket.Take(r, time.Duration(t)) {
		sv.Refused()
		s.answer(ai, strategy.Throttled, t)
		return
	}
	switch sv.Admit(sv.queue.Len()) {
	case model.Serve:
		s.startServing(ai, t)
	case model.Queue:
		s.atts[ai].inService = true
		sv.queue.Push(ai)
	default:
		s.answer(ai, strategy.FastFail, t) // 503: queue full
	}
}

// startServing gives attempt ai a worker at t.
func (s *Sim) startServing(ai int32, t int64) {
	a := &s.atts[ai]
	a.inService = true
	s.svc.Busy++
	s.svc.running.push(timed{at: t + int64(s.svc.Draw(s.svcRand)), idx: ai, gen: a.gen})
}

// finish is a worker completing attempt ai at t. The work is done even if the sender timed
// out long ago (that is the wasted work); its answer goes out only if the sender still waits.
func (s *Sim) finish(ai int32, t int64) {
	s.svc.Busy--
	a := &s.atts[ai]
	a.inService = false
	o := strategy.Success
	if v := s.fx.Errors; v > 0 && s.svcRand.Float64() < v {
		o = strategy.ServerError
	}
	if a.answered {
		s.freeAttempt(ai)
	} else {
		s.answer(ai, o, t)
	}
	s.dispatch(t)
}

// dispatch starts queued attempts while workers are free. With drop_expired, attempts whose
// sender already timed out are skipped.
func (s *Sim) dispatch(t int64) {
	sv := &s.svc
	for sv.Busy < sv.Eff && sv.queue.Len() > 0 {
		ai := sv.queue.Pop()
		if s.scn.Service.DropExpired && s.atts[ai].answered {
			s.atts[ai].inService = false
			s.freeAttempt(ai)
			continue
		}
		s.startServing(ai, t)
	}
}

// endOfTick closes the tick's sample of the service (model.Service.Sample: the capacity in
// effect could serve capacity x dt attempts), crashes a service overloaded for crash_after and
// returns the tick's own utilisation (0 with no capacity) and the overload clock reached this
// tick (the value that crashed it on a crash tick): the Utilisation and Overload gauges of
// source.Service.
func (s *Sim) endOfTick(t int64) (float64, int64) {
	sv := &s.svc
	able := sv.Capacity * float64(s.tick) / float64(time.Second)
	util, _, over, crash := sv.Sample(time.Duration(t), time.Duration(s.tick), able)
	if crash != nil {
		s.counts.Crashes++
		s.goDown(t, source.ServiceCrashed)
		s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceCrashed,
			Cause: source.CauseOverload, Utilisation: crash.Utilisation, Overloaded: crash.Overloaded, RestartIn: s.scn.Service.RestartDelay}})
	}
	return util, int64(over)
}
