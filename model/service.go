package model

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Service is the downstream service's physics, written once: the simulator's service and live
// mode's embedded one (live/upstream) are each a Service with a queue of their own, advanced by
// their own clock (times are run time, since t = 0). It is a plain value, not safe for
// concurrent use: its owner guards it.
//
//   - Service time of a request: S_eff × exp(σZ − σ²/2), Z ~ N(0, 1), a lognormal whose mean is
//     S_eff = service_time + the latency fault (σ = 0: constant).
//   - Effective workers: max(1, round(workers × warm fraction × the capacity fault)) while
//     serving, 0 when DOWN or CRASHED; capacity = effective workers / S_eff requests/s, and at
//     most the throttle fault's rate.
//   - Warm fraction after a restart or an outage ends at t0: warm_start + (1 − warm_start) ×
//     min(1, (t − t0) / warmup).
//   - Offered work: 1 for a request served or queued, refusal_cost for one answered without
//     being served (503 queue full, 429, 4xx).
//   - Utilisation = offered / what capacity could serve, over the last second (a window of
//     samples, one a tick); above crash_factor without a break for crash_after, it crashes and
//     restarts after restart_delay.
type Service struct {
	cfg scenarios.Service

	State    source.ServiceState
	Eff      int     // effective workers
	Busy     int     // workers holding a request
	MeanS    float64 // mean service time in effect, seconds
	Capacity float64 // requests/s in effect
	Warm     float64 // the warm-up's fraction of capacity (1 when warm, 0 when not serving)
	Offered  float64 // work offered since the last sample

	overload  time.Duration // how long the utilisation has stayed above crash_factor
	warmFrom  time.Duration // the start of the warm-up
	restartAt time.Duration // CRASHED: when it restarts
	win       []sample      // the last second of samples
	winPos    int
}

// sample is one tick's offered work and what capacity could serve meanwhile.
type sample struct{ offered, able float64 }

// Crash is an overload crash: the utilisation over the last second that set it off and how
// long it had stayed above crash_factor.
type Crash struct {
	Utilisation float64
	Overloaded  time.Duration
}

// NewService returns the service cfg describes, UP and warm, whose utilisation window holds
// the samples of one second of ticks of tick (at least one).
func NewService(cfg scenarios.Service, tick time.Duration) Service {
	return Service{cfg: cfg, State: source.ServiceUp, Warm: 1, win: make([]sample, max(1, int(time.Second/tick)))}
}

// Config is the service's configuration.
func (s *Service) Config() scenarios.Service { return s.cfg }

// Resize computes the effective workers, the mean service time and the capacity in effect
// from the warm-up and the faults' fx.
func (s *Service) Resize(fx scenarios.Effects) {
	s.MeanS = s.cfg.ServiceTime.Seconds() + fx.Latency
	s.Eff = 0
	if s.State.Serving() {
		w := float64(s.cfg.Workers) * s.Warm
		w *= fx.Capacity
		s.Eff = max(1, int(math.Round(w)))
	}
	s.Capacity = float64(s.Eff) / s.MeanS
	if fx.Throttle > 0 {
		s.Capacity = math.Min(s.Capacity, fx.Throttle)
	}
}

// Draw draws one service time from r (at least 1 ns).
func (s *Service) Draw(r *rand.Rand) time.Duration {
	mean := s.MeanS
	if sg := s.cfg.Sigma; sg > 0 {
		mean *= math.Exp(sg*r.NormFloat64() - sg*sg/2)
	}
	return max(1, time.Duration(mean*float64(time.Second)))
}

// Admission is what becomes of a request that reaches a serving service.
type Admission uint8

// The admissions.
const (
	Serve  Admission = iota // a worker takes it now
	Queue                   // it waits in the queue
	Refuse                  // every worker is busy and the queue full: 503 at once
)

// Admit decides what becomes of a request reaching the serving service while queued requests
// wait, and counts its offered work. The caller takes the worker (Busy) or the queue's place.
func (s *Service) Admit(queued int) Admission {
	switch {
	case s.Busy < s.Eff:
		s.Offered++
		return Serve
	case queued < s.cfg.QueueLimit:
		s.Offered++
		return Queue
	}
	s.Offered += s.cfg.RefusalCost
	return Refuse
}

// Refused counts the offered work of a request answered without being served (a 429, a 4xx, a
// body too large).
func (s *Service) Refused() { s.Offered += s.cfg.RefusalCost }

// Down takes the service down in state (CRASHED or DOWN): no worker, no capacity, the crash
// clock and the utilisation window reset (a restarted process remembers nothing of the load
// that killed it). The owner loses its queue and the requests in service, and sets Busy to 0
// once it has counted them.
func (s *Service) Down(state source.ServiceState) {
	s.State, s.Eff, s.Capacity, s.Warm = state, 0, 0, 0
	s.overload = 0
	clear(s.win)
}

// StartWarming begins the warm-up at now, after a restart or the end of an outage: WARMING at
// warm_start, and true; or UP at full capacity at once without a warm-up, and false.
func (s *Service) StartWarming(now time.Duration) bool {
	s.warmFrom = now
	if s.cfg.Warmup <= 0 {
		s.State, s.Warm = source.ServiceUp, 1
		return false
	}
	s.State, s.Warm = source.ServiceWarming, s.cfg.WarmStart
	return true
}

// Warmed advances the warm-up to now and reports whether it ended now (UP at full capacity).
func (s *Service) Warmed(now time.Duration) bool {
	if s.State != source.ServiceWarming {
		return false
	}
	frac := s.cfg.WarmStart + (1-s.cfg.WarmStart)*float64(now-s.warmFrom)/float64(s.cfg.Warmup)
	if frac >= 1 {
		s.State, s.Warm = source.ServiceUp, 1
		return true
	}
	s.Warm = frac
	return false
}

// RestartDue reports whether a crashed service's restart delay is over at now (an outage in
// effect keeps it down).
func (s *Service) RestartDue(now time.Duration, outage bool) bool {
	return s.State == source.ServiceCrashed && now >= s.restartAt && !outage
}

// RestartIn is the time left at now before a crashed service restarts (0 once it is due, or
// when it is not crashed).
func (s *Service) RestartIn(now time.Duration) time.Duration {
	if s.State != source.ServiceCrashed {
		return 0
	}
	return max(0, s.restartAt-now)
}

// Sample closes the sample of the elapsed time ending at now, in which capacity could serve
// able requests: it returns the sample's own utilisation (0 without capacity), the utilisation
// over the last second (the window the crash rule reads; +Inf for work with no capacity), the
// clock of the crash rule (how long that has stayed above crash_factor: the value that
// crashed it on a crash), and crash when the service crashed now: DOWN as Down does,
// restarting restart_delay later.
func (s *Service) Sample(now, elapsed time.Duration, able float64) (util, window float64, over time.Duration, crash *Crash) {
	if able > 0 {
		util = s.Offered / able
	}
	s.win[s.winPos] = sample{offered: s.Offered, able: able}
	s.winPos = (s.winPos + 1) % len(s.win)
	s.Offered = 0
	var offered, capable float64
	for _, w := range s.win {
		offered += w.offered
		capable += w.able
	}
	if capable > 0 {
		window = offered / capable
	} else if offered > 0 {
		window = math.Inf(1)
	}
	cf := s.cfg.CrashFactor
	if !(cf > 0 && s.State.Serving() && window > cf) {
		s.overload = 0
		return util, window, 0, nil
	}
	s.overload += elapsed
	over = s.overload
	if s.overload >= s.cfg.CrashAfter {
		s.Down(source.ServiceCrashed)
		s.restartAt = now + s.cfg.RestartDelay
		return util, window, over, &Crash{Utilisation: window, Overloaded: over}
	}
	return util, window, over, nil
}

// Overload is the crash rule's clock: how long the utilisation over the last second has
// stayed above crash_factor without a break (0 when it is not, or without a crash_factor).
func (s *Service) Overload() time.Duration { return s.overload }

// Bucket is the throttle fault's token bucket: its rate R requests/s refills it, R (one
// second's worth, at least 1) fills it. The zero value is empty; Reset fills it.
type Bucket struct {
	tokens float64
	at     time.Duration // the time tokens was refilled to
}

// Reset fills the bucket of a throttle of rate starting at now.
func (b *Bucket) Reset(rate float64, now time.Duration) { b.tokens, b.at = math.Max(1, rate), now }

// Take refills the bucket to now at rate and takes a token: false (the request is answered
// 429) when there is none.
func (b *Bucket) Take(rate float64, now time.Duration) bool {
	b.tokens = math.Min(math.Max(1, rate), b.tokens+rate*float64(now-b.at)/float64(time.Second))
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// Wait is the time until the bucket of a throttle of rate has a token again, in seconds.
func (b *Bucket) Wait(rate float64) float64 { return (1 - b.tokens) / rate }
