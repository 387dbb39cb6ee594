package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/ring"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// service is the downstream service: workers serving a bounded FIFO queue.
//
//   - Service time of an attempt: S_eff * exp(sigma*Z - sigma^2/2), Z ~ N(0,1), a lognormal whose
//     mean is S_eff = ServiceTime + latency fault (sigma = 0: constant).
//   - Effective workers: max(1, round(Workers * capacity fault * warm fraction)), 0 when DOWN
//     or CRASHED; capacity = effective workers / S_eff requests/s (and at most the throttle
//     rate while a throttle fault is active).
//   - Warm fraction after a restart or an outage ends at t0:
//     warm_start + (1 - warm_start) * min(1, (t - t0) / warmup).
//   - Offered load of an attempt reaching a running service: 1 if it is served or queued,
//     refusal_cost (a fraction of one service time, default 0.1) if it is answered without being
//     served: 503 (queue full), 429 (throttle fault) or 4xx (bad_requests fault), since refusing
//     costs the server only accepting, parsing and a short reply. With A accepted and R refused
//     attempts in a tick, offered = A + refusal_cost * R.
//   - Utilisation = offered / (capacity * time) over the last second (a sliding window of
//     ticks, so Poisson noise of a single tick neither triggers nor resets a crash); above
//     crash_factor continuously for crash_after, the service crashes.
type service struct {
	state     source.ServiceState
	busy      int // workers serving an attempt
	eff       int // effective workers this tick
	queue     ring.Ring[int32]
	running   eventHeap    // attempts being served, by finish time
	restartAt int64        // crashed: when it restarts
	warmFrom  int64        // warming: start of the warm-up
	warmFrac  float64      // capacity fraction from the warm-up
	overload  int64        // consecutive ns of utilisation above crash_factor
	offered   float64      // load offered this tick: accepted attempts + refusal_cost x refused ones
	win       []utilSample // the last second of ticks, for the utilisation
	winPos    int
	capacity  float64 // requests/s this tick
	meanS     float64 // mean service time this tick, seconds

	tokens   float64 // throttle fault: token bucket
	tokensAt int64
}

// utilSample is one tick's offered attempts and capacity x dt (attempts it could serve).
type utilSample struct{ offered, able float64 }

// numKinds is the number of fault kinds: the rows of the table of fault kinds.
const numKinds = scenarios.NumFaultKinds

// Indexes of the fault kinds in the table (scenarios.FaultSpecs), which index s.faults. A kind
// acts through the code that reads its index below: a new row of the table does nothing until
// code here reads it (TestEveryFaultKindActs fails until then).
var (
	kOutage    = scenarios.FaultOutage.Index()
	kBlackhole = scenarios.FaultBlackhole.Index()
	kLatency   = scenarios.FaultLatency.Index()
	kErrors    = scenarios.FaultErrors.Index()
	kThrottle  = scenarios.FaultThrottle.Index()
	kCapacity  = scenarios.FaultCapacity.Index()
	kBad       = scenarios.FaultBadRequests.Index()
)

// activeFault is the fault of one kind in effect, if on.
type activeFault struct {
	on       bool
	value    float64
	until    int64 // end time in ns; 0 = until cleared
	injected bool
	sched    int // index in the timeline, -1 if injected
}

// checkFault validates a fault's kind and value with the bounds of the table of fault kinds
// (the ones scenarios.Validate applies).
func checkFault(f scenarios.Fault) error {
	field, problem := f.Kind.Check(f.Value)
	switch {
	case problem == "":
		return nil
	case f.Kind.Index() < 0:
		return fmt.Errorf("fault: %s", problem)
	}
	return fmt.Errorf("%s fault: %s %s", f.Kind, field, problem)
}

// startFault puts f in effect at time t (replacing a fault of the same kind).
func (s *Sim) startFault(f scenarios.Fault, t int64, sched int) {
	k := f.Kind.Index()
	af := activeFault{on: true, value: f.Value, injected: sched < 0, sched: sched}
	if f.Duration > 0 {
		af.until = t + int64(f.Duration)
	}
	was := s.faults[k].on
	s.faults[k] = af
	s.emit(t, source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultStarted, Kind: f.Kind,
		Value: f.Value, Duration: max(f.Duration, 0), Injected: sched < 0}})
	if k == kOutage && !was {
		s.goDown(t, source.ServiceDown)
	}
	if k == kThrottle {
		s.svc.tokens, s.svc.tokensAt = math.Max(1, f.Value), t
	}
}

// endFault ends the fault of kind index k at time t, if on; change is FaultEnded or FaultCleared.
func (s *Sim) endFault(k int, t int64, change source.FaultChange) {
	if !s.faults[k].on {
		return
	}
	s.faults[k] = activeFault{}
	s.emit(t, source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: change, Kind: scenarios.FaultKinds[k]}})
	if k == kOutage && s.svc.state == source.ServiceDown {
		s.startWarming(t)
	}
}

// goDown takes the service down at t (crash or outage): the queue is lost and every attempt
// it holds fails fast now.
func (s *Sim) goDown(t int64, state source.ServiceState) {
	s.svc.state = state
	s.svc.eff = 0
	s.svc.capacity = 0 // a tick that ends DOWN or CRASHED reports no capacity left
	s.svc.overload = 0
	for s.svc.queue.Len() > 0 {
		s.releaseFailed(s.svc.queue.Pop(), t)
	}
	for s.svc.running.len() > 0 {
		s.releaseFailed(s.svc.running.pop().idx, t)
	}
	s.svc.busy = 0
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
	s.svc.warmFrom = t
	if s.scn.Service.Warmup <= 0 {
		s.svc.state, s.svc.warmFrac = source.ServiceUp, 1
		return
	}
	s.svc.state, s.svc.warmFrac = source.ServiceWarming, s.scn.Service.WarmStart
	s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceWarming,
		Cause: source.CauseRestart, WarmStart: s.scn.Service.WarmStart, Warmup: s.scn.Service.Warmup}})
}

// updateService advances restarts and warm-up to time t and computes this tick's effective
// workers and capacity, then starts queued attempts on freed capacity.
func (s *Sim) updateService(t int64) {
	sv := &s.svc
	cfg := s.scn.Service
	if sv.state == source.ServiceCrashed && t >= sv.restartAt && !s.faults[kOutage].on {
		s.startWarming(t)
		if sv.state == source.ServiceUp {
			s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceUp, Cause: source.CauseRestart}})
		}
	}
	if sv.state == source.ServiceWarming {
		frac := cfg.WarmStart + (1-cfg.WarmStart)*float64(t-sv.warmFrom)/float64(cfg.Warmup)
		if frac >= 1 {
			sv.state, sv.warmFrac = source.ServiceUp, 1
			s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceUp, Cause: source.CauseWarmedUp}})
		} else {
			sv.warmFrac = frac
		}
	}
	sv.meanS = cfg.ServiceTime.Seconds()
	if f := s.faults[kLatency]; f.on {
		sv.meanS += f.value
	}
	sv.eff = 0
	if sv.state.Serving() {
		w := float64(cfg.Workers) * sv.warmFrac
		if f := s.faults[kCapacity]; f.on {
			w *= f.value
		}
		sv.eff = max(1, int(math.Round(w)))
	}
	sv.capacity = float64(sv.eff) / sv.meanS
	if f := s.faults[kThrottle]; f.on {
		sv.capacity = math.Min(sv.capacity, f.value)
	}
	s.dispatch(t)
}

// serviceTime draws one service time in ns.
func (s *Sim) serviceTime() int64 {
	mean := s.svc.meanS
	if sg := s.scn.Service.Sigma; sg > 0 {
		mean *= math.Exp(sg*s.svcRand.NormFloat64() - sg*sg/2)
	}
	return max(1, int64(mean*float64(time.Second)))
}

// arrive is attempt ai reaching the service at t.
func (s *Sim) arrive(ai int32, t int64) {
	sv := &s.svc
	if !sv.state.Serving() {
		s.answer(ai, strategy.FastFail, t) // connection refused
		return
	}
	if s.faults[kBlackhole].on {
		return // the name does not resolve: the attempt hangs until its timeout
	}
	refused := s.scn.Service.RefusalCost
	if f := s.faults[kBad]; f.on && s.svcRand.Float64() < f.value {
		sv.offered += refused
		s.answer(ai, strategy.BadRequest, t)
		return
	}
	if f := s.faults[kThrottle]; f.on {
		// token bucket: rate R/s, burst R (one second's worth, at least 1)
		sv.tokens = math.Min(math.Max(1, f.value), sv.tokens+f.value*float64(t-sv.tokensAt)/float64(time.Second))
		sv.tokensAt = t
		if sv.tokens < 1 {
			sv.offered += refused
			s.answer(ai, strategy.Throttled, t)
			return
		}
		sv.tokens--
	}
	switch {
	case sv.busy < sv.eff:
		sv.offered++
		s.startServing(ai, t)
	case sv.queue.Len() < s.scn.Service.QueueLimit:
		sv.offered++
		s.atts[ai].inService = true
		sv.queue.Push(ai)
	default:
		sv.offered += refused
		s.answer(ai, strategy.FastFail, t) // 503: queue full
	}
}

// startServing gives attempt ai a worker at t.
func (s *Sim) startServing(ai int32, t int64) {
	a := &s.atts[ai]
	a.inService = true
	s.svc.busy++
	s.svc.running.push(timed{at: t + s.serviceTime(), idx: ai, gen: a.gen})
}

// finish is a worker completing attempt ai at t. The work is done even if the sender timed
// out long ago (that is the wasted work); its answer goes out only if the sender still waits.
func (s *Sim) finish(ai int32, t int64) {
	s.svc.busy--
	a := &s.atts[ai]
	a.inService = false
	o := strategy.Success
	if f := s.faults[kErrors]; f.on && s.svcRand.Float64() < f.value {
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
	for sv.busy < sv.eff && sv.queue.Len() > 0 {
		ai := sv.queue.Pop()
		if s.scn.Service.DropExpired && s.atts[ai].answered {
			s.atts[ai].inService = false
			s.freeAttempt(ai)
			continue
		}
		s.startServing(ai, t)
	}
}

// endOfTick crashes a service overloaded for crash_after (utilisation over the last second)
// and returns the tick's own utilisation (offered / (capacity x dt), 0 with no capacity) and
// the overload clock reached this tick (ns, the value that crashed it on a crash tick): the
// Utilisation and Overload gauges of source.Service.
func (s *Sim) endOfTick(t int64) (float64, int64) {
	sv := &s.svc
	if len(sv.win) == 0 {
		sv.win = make([]utilSample, max(1, int(time.Second/time.Duration(s.tick))))
	}
	sample := utilSample{offered: sv.offered, able: sv.capacity * float64(s.tick) / float64(time.Second)}
	tickUtil := 0.0
	if sample.able > 0 {
		tickUtil = sample.offered / sample.able
	}
	sv.win[sv.winPos] = sample
	sv.winPos = (sv.winPos + 1) % len(sv.win)
	sv.offered = 0
	var offered, able float64
	for _, w := range sv.win {
		offered += w.offered
		able += w.able
	}
	util := 0.0
	if able > 0 {
		util = offered / able
	} else if offered > 0 {
		util = math.Inf(1)
	}
	cf := s.scn.Service.CrashFactor
	if cf > 0 && sv.state.Serving() && util > cf {
		sv.overload += s.tick
		over := sv.overload
		if sv.overload >= int64(s.scn.Service.CrashAfter) {
			s.counts.Crashes++
			s.goDown(t, source.ServiceCrashed)
			sv.restartAt = t + int64(s.scn.Service.RestartDelay)
			s.emit(t, source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceCrashed,
				Cause: source.CauseOverload, Utilisation: util, Overloaded: s.scn.Service.CrashAfter, RestartIn: s.scn.Service.RestartDelay}})
		}
		return tickUtil, over
	}
	sv.overload = 0
	return tickUtil, 0
}
