package engine

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Decision reasons: machine-readable values of Decision.Reason.
const (
	ReasonRetry              = "RETRY"                 // Retry: every check passed
	ReasonNotRetryable       = "NOT_RETRYABLE"         // check 1: the error is not retryable
	ReasonMaxRetries         = "MAX_RETRIES_EXCEEDED"  // check 2: attempt >= MaxRetryAttempts
	ReasonEmergency          = "EMERGENCY"             // check 3: CPS >= EmergencyThreshold, circuit forced OPEN
	ReasonCircuitOpen        = "CIRCUIT_OPEN"          // check 3: the circuit is OPEN, fail fast
	ReasonHalfOpenProbesBusy = "HALF_OPEN_PROBES_BUSY" // check 3: HALF_OPEN and every probe slot taken
	ReasonShedLowPriority    = "SHED_LOW_PRIORITY"     // check 4: priority < floor(CPS*10)
	ReasonRecoveryRamp       = "RECOVERY_RAMP"         // check 4: outside the recovery ramp's share
	ReasonBudgetExhausted    = "BUDGET_EXHAUSTED"      // check 4: no retry token left
	ReasonDeadline           = "DEADLINE_EXCEEDED"     // check 5: no retry could be answered before the request's deadline
	ReasonInternalError      = "INTERNAL_ERROR"        // even the fallback failed: reject, never panic
)

// Priority bounds: priorities outside 0..10 are clamped.
const (
	MinPriority = 0
	MaxPriority = 10
)

// healthyFailureRate is the failure rate below which successes teach the baseline.
const healthyFailureRate = 0.10

// rampStartShare is the share of retries the recovery ramp admits when the circuit closes.
const rampStartShare = 0.10

// recentAlpha is the weight of each new success in the moving average of the latest successes'
// latency, from which the slowdown S that prices a retry is computed (Config.SlowdownCost): the
// average follows a change within a handful of successes, and keeps its value while none come.
const recentAlpha = 0.2

// floorEpsilon absorbs floating-point error in floor(CPS*10), so that a CPS meant to be 0.3
// (computed as 0.29999999999999993) gives floor 3.
const floorEpsilon = 1e-9

// Engine is a CORTEX retry engine: it records outcomes (RecordSuccess, RecordFailure), keeps the
// five signals, and answers ShouldRetry. All methods are safe for concurrent use; one mutex
// guards the state. Build it with New.
type Engine struct {
	// Layout: a simulated fleet drives tens of engines in turn, and each record, admission and
	// decision reads some thirty fields; spread over the struct they were as many cache lines,
	// missed on nearly every call. So the fields those calls read are together here, between the
	// breaker (transitions first, its state last) and the baseline (its state first, its arrays
	// last), and the window's fields come before its slices. The rest (controls, snapshots, the
	// fleet) follows.
	br circuitBreaker

	mu       sync.Mutex
	manual   *ManualClock  // clock, when it is a ManualClock: read without time.Time arithmetic
	oframe   *clockFrame   // manual's frame at origin (nil otherwise)
	ons      int64         // manual's offset in oframe at origin, ns
	last     time.Duration // latest elapsed time seen (time never goes backwards inside)
	advanced time.Duration // the time of the last advance (-1 before any): a second one at it is skipped
	origin   time.Time     // the clock's reading at New or Reset: elapsed time 0
	wall     bool          // clock is the WallClock: elapsed time read from the monotonic clock alone
	adaptive bool
	fleetOn  bool          // Config.Fleet.Enabled: read on the hot path here, not from fleet at the end
	ramping  bool          // a recovery ramp may be running
	qSignal  float64       // Q for queue: computed when the depth is set, read by every decision
	recentOK float64       // moving average of the latest successes' latency (ns), 0 before any
	rampFrom time.Duration // when the circuit last closed after an outage
	owed     int           // retries decided with Hold while OPEN and not yet sent: each pays when it is (AdmitRequest)

	successes, failed uint64
	decisions         [5]uint64
	fallbacks         uint64

	// signalHook, when set (tests only), post-processes the signals of the unified decision;
	// a hook that panics or yields NaN exercises the fallback path.
	signalHook func(Signals) Signals

	rng *rand.Rand // draws from pcg
	pcg rand.PCG
	w   Weights // current weights (adaptive weights move them)
	tb  tokenBucket
	adm admission // Admit's state (Config.AdmitOriginals)
	hot hotConfig // what those calls read of cfg
	bl  baseline
	// pace keeps its slots' ring between its state and its counts, which the window's fields
	// then follow.
	pace pacer // the release of attempts while the service cannot take them (Config.AdmitOriginals)
	win  slidingWindow

	cfg   Config
	clock Clock
	queue int
	base  Weights // normalised weights from Config or SetWeights (what Reset restores)
	adapt adaptiveWeights

	// fleet is the engine's side of a fleet (Config.Fleet), off when alone. It comes last, so
	// that the fields the hot path reads keep the offsets (and cache lines) they had without it.
	fleet fleetState

	// prices are the bucket's retry prices by priority (pricesOf), read once a retry is decided:
	// after the rest, for the same reason (inside the bucket they cost the hot lines 176 bytes,
	// measured as 0.8 M more L1 misses a storm run of cortex).
	prices [MaxPriority + 1]retryPrice
}

// hotConfig is the part of Config that records, admissions and decisions read, copied from it
// by init (a Config never changes once the engine has it): 72 bytes in the engine's hot lines,
// where the 312 of Config spread its 13 fields over four. The fields mean what Config's of the
// same name do.
type hotConfig struct {
	EmergencyThreshold float64
	MaxRetryAttempts   int
	SlowdownCost       float64
	BudgetReserve      float64
	BackoffBaseDelay   time.Duration
	BackoffMaxDelay    time.Duration
	RecoveryRamp       time.Duration
	AdmitOriginals     bool
	HoldForProbe       bool
	DeadlineAware      bool
	Deterministic      bool
	TripFast           bool
	TripOnTimeouts     bool
}

// hotOf returns the hot part of c.
func hotOf(c *Config) hotConfig {
	return hotConfig{EmergencyThreshold: c.EmergencyThreshold, MaxRetryAttempts: c.MaxRetryAttempts,
		SlowdownCost: c.SlowdownCost, BudgetReserve: c.BudgetReserve, BackoffBaseDelay: c.BackoffBaseDelay,
		BackoffMaxDelay: c.BackoffMaxDelay, RecoveryRamp: c.RecoveryRamp, AdmitOriginals: c.AdmitOriginals,
		HoldForProbe: c.HoldForProbe, DeadlineAware: c.DeadlineAware, Deterministic: c.Deterministic,
		TripFast: c.TripFast, TripOnTimeouts: c.TripOnTimeouts}
}

// New validates cfg (see Config.Validate) and returns an engine in its initial state: empty
// window, full token bucket, circuit CLOSED, no baseline (unless BaselineLatency is set).
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w, _ := cfg.Weights.Normalized() // valid: checked above
	cfg.Weights = w
	if cfg.Clock == nil {
		cfg.Clock = WallClock{}
	}
	e := &Engine{cfg: cfg, clock: cfg.Clock, base: w, adaptive: cfg.AdaptiveWeights}
	e.manual, _ = cfg.Clock.(*ManualClock)
	_, e.wall = cfg.Clock.(WallClock)
	e.init(e.readOrigin())
	return e, nil
}

// init (re)builds the run-time state with origin as elapsed time 0.
func (e *Engine) init(origin time.Time) {
	c := &e.cfg
	e.hot = hotOf(c)
	e.origin, e.last, e.advanced = origin, 0, -1
	seed := uint64(c.Seed)
	if c.Seed == 0 {
		seed = rand.Uint64()
	}
	e.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	if e.rng == nil {
		e.rng = rand.New(&e.pcg)
	}
	e.w = e.base
	if e.adaptive {
		e.w = bounded(e.w, AdaptiveMinWeight, AdaptiveMaxWeight)
	}
	e.adapt = adaptiveWeights{spikeLevel: c.CircuitFailureThreshold}
	e.queue, e.qSignal = 0, 0
	e.win.init(c.Window, c.FailureHorizon)
	e.tb = newTokenBucket(c)
	e.prices = pricesOf(&e.tb, c.BudgetReserve)
	e.br = newCircuitBreaker(c, origin)
	e.bl = newBaseline(c.BaselineLatency, c.LearnTail)
	e.ramping, e.rampFrom = false, 0
	e.recentOK = 0
	e.fleet = newFleetState(c.Fleet)
	e.fleetOn = c.Fleet.Enabled
	e.successes, e.failed, e.decisions, e.fallbacks = 0, 0, [5]uint64{}, 0
	e.adm = admission{c: c.Admit.resolved()}
	pc := c.Pace.resolved()
	e.pace = pacer{parked: e.pace.parked, nParked: e.pace.nParked, c: pc, // the parked attempts are the caller's: Wake releases them (their deadlines are forgotten: the origin may move)
		arrW: weight(pc.ArrSlices), refW: weight(pc.RefSlices)}
	e.owed = 0
}

// readOrigin reads the clock for a new origin; for a manual clock it also keeps the clock's
// frame and offset, so that now can subtract offsets instead of times.
func (e *Engine) readOrigin() time.Time {
	if e.manual == nil {
		return e.clock.Now()
	}
	f, ns := e.manual.load()
	e.oframe, e.ons = f, ns
	return timeAt(f, ns)
}

// now reads the clock once and returns the elapsed time since origin, never less than the
// previous reading. Callers hold e.mu. On a manual clock still in the frame of the origin,
// the elapsed time is the difference of two int64 offsets (both below 2^62 in magnitude),
// which is exactly what Time.Sub would return.
func (e *Engine) now() time.Duration {
	var t time.Duration
	if m := e.manual; m != nil {
		t = e.manualElapsed(m)
	} else if e.wall {
		// time.Since of a time read from the wall clock reads only the monotonic clock, where
		// Now().Sub reads the wall clock too: the same value, for half the cost (the clock is
		// most of what a decision costs on the wall clock).
		t = time.Since(e.origin)
	} else {
		t = e.clock.Now().Sub(e.origin)
	}
	if t < e.last {
		return e.last
	}
	e.last = t
	return t
}

// manualElapsed is the elapsed time on the manual clock m (e.manual). The common case is read
// first without load's loop: the frame of the origin, current and not being replaced, whose
// offset is then what load would return.
func (e *Engine) manualElapsed(m *ManualClock) time.Duration {
	if f := m.f.Load(); f != nil && f == e.oframe && f.fast {
		if ns := f.ns.Load(); ns != frozenOffset {
			return time.Duration(ns - e.ons)
		}
	}
	f, ns := m.load()
	if f == e.oframe && f != nil && f.fast {
		return time.Duration(ns - e.ons)
	}
	return timeAt(f, ns).Sub(e.origin)
}

// advance brings every time-driven part up to t: window slices expire, the breaker cools down;
// once per new window slice the baseline takes a step and adaptive weights are evaluated.
//
// Advancing twice to the same t changes nothing the second time, whatever was recorded or
// decided in between: the window's next edge is past t, the breaker's cooldown and probes were
// applied at t (an opening or a probe since is at t, with a positive cooldown still to run),
// and no slice closes. So a call at the time of the last one returns at once: a caller that
// records, decides and asks for its next wake at one instant (the simulator does, at every
// outcome) pays for one advance, not three.
func (e *Engine) advance(t time.Duration) {
	if t == e.advanced {
		return
	}
	e.advanced = t
	crossed := e.win.advance(t)
	if e.br.tick(t) {
		e.ramping, e.rampFrom = true, t
	}
	if crossed > 0 {
		// The baseline steps only if the service is still healthy as the slice closes: the
		// successes of a slice in which an incident began teach it nothing.
		if e.healthy() {
			e.bl.step()
			e.bl.stepTail(crossed)
		} else {
			e.bl.discard()
		}
		if e.adaptive {
			e.adapt.step(e.signals(t), &e.w)
		}
		if e.hot.AdmitOriginals {
			e.stepAdmission(t)
		}
	}
}

// healthy reports whether successes may teach the baseline now: circuit CLOSED and F < 0.10
// over the short span (the failures it holds are the ones that can still be going on).
func (e *Engine) healthy() bool {
	p := &e.win.short // F < 0.10 (0 when empty), multiplied out: no division on the recording path
	n := p.successes + p.failures
	return e.br.state == Closed && (n == 0 || float64(p.failures) < healthyFailureRate*float64(n))
}

// failureRate is signal F: the failure rate over the short span (FailureHorizon) or over the
// whole window, whichever is higher: it rises within the horizon when failures start (fast
// attack) and falls only as the window forgets them (slow release).
func (e *Engine) failureRate() float64 {
	return max(e.win.short.failureRate(), e.win.long.failureRate())
}

// p99 is the P99 latency signal L reads: over the short span, so L rises and falls with the
// latency of the last FailureHorizon.
func (e *Engine) p99() time.Duration { return e.win.short.p99() }

// tripRate is the failure rate the breaker trips on, over the last one to two window slices
// with TripFast (the short span otherwise): every failure over every outcome with
// TripOnTimeouts, the share of answers that said no otherwise (tally.answeredFailureRate). Over
// the short span of five seconds, the seconds before an outage diluted its failures: the
// circuits opened 2.6-3.2 s into 3 s outages, as the service came back.
func (e *Engine) tripRate() float64 {
	p := &e.win.short.tally
	var recent tally
	if e.hot.TripFast {
		recent = e.win.recentTally()
		p = &recent
	}
	if e.hot.TripOnTimeouts {
		return p.failureRate()
	}
	return p.answeredFailureRate()
}

// slowdown is S, how much slower than the baseline the latest successes were:
// min(1, max(0, (recent - base) / (3 base))), recent the moving average of their latency; 0
// while recent is within a slowness the pacer found to be the service's own (Engine.settled:
// a slow dependency, not a queue a retry would join).
func (e *Engine) slowdown() float64 {
	recent := time.Duration(e.recentOK)
	if e.pace.slowOK > 0 && recent <= e.pace.slowOK {
		return 0
	}
	return e.bl.slowdown(recent)
}

// retryCost is the tokens a retry costs: 1 + SlowdownCost*S, twice the extra after a timeout.
func (e *Engine) retryCost(timeout bool) float64 {
	extra := e.hot.SlowdownCost * e.slowdown()
	if timeout {
		extra *= 2
	}
	return 1 + extra
}

// reserve is the share of the bucket a retry of priority p must leave: BudgetReserve*(10-p)/10.
func (e *Engine) reserve(p int) float64 { return reserveOf(e.hot.BudgetReserve, p) }

// reserveOf is the share of the bucket a retry of priority p must leave with Config.BudgetReserve
// r: r*(10-p)/10 (0 for priority 10).
func reserveOf(r float64, p int) float64 { return r * float64(MaxPriority-p) / MaxPriority }

// signals computes the five signals at t.
func (e *Engine) signals(t time.Duration) (s Signals) {
	e.fillSignals(t, &s)
	return s
}

// fillSignals computes the five signals at t into *s, field by field: on the decision path
// they are written straight into the Decision, instead of being built as a value and copied
// (a copy of a struct just written is a store-forwarding stall on amd64, measured at about
// a sixth of ShouldRetry).
func (e *Engine) fillSignals(t time.Duration, s *Signals) { e.fillSignalsAt(t, e.p99(), s) }

// fillSignalsAt is fillSignals with the short span's P99 already read.
func (e *Engine) fillSignalsAt(t, p99 time.Duration, s *Signals) {
	s.F = e.failureRate()
	s.L = e.bl.deviation(p99)
	s.Q = e.qSignal
	s.B = e.tb.burn(t)
	s.C = e.br.score()
	if e.fleetOn {
		e.fleetSignals(t, s)
	}
}

// RecordSuccess records a successful request that took latency (negative counts as 0): it
// enters the window, returns TokenSuccessBonus tokens, may teach the baseline (circuit CLOSED
// and F < 0.10) and counts towards closing a HALF_OPEN circuit.
func (e *Engine) RecordSuccess(latency time.Duration) { e.record(succeeded, latency, false) }

// RecordFailure records a failed request that took latency (negative counts as 0): it enters
// the window, may trip the circuit (sustained failure rate) and re-opens a HALF_OPEN one.
func (e *Engine) RecordFailure(latency time.Duration) { e.record(failed, latency, false) }

// RecordTimeout records a request that got no answer within its timeout, latency being the
// time waited (negative counts as 0). It counts as a failure in F and in the latency window,
// but does not by itself trip the circuit: a timeout does not say the service refuses (it may
// be queueing, which L and the retry cost weigh, or the network may be losing packets). A
// HALF_OPEN circuit re-opens on it like on any failure.
func (e *Engine) RecordTimeout(latency time.Duration) { e.record(timedOut, latency, false) }

// RecordRefused records a failed attempt the service refused for want of room (an answered 429
// or 503, a refused connection): a failure as RecordFailure records it, which also tells the
// pacer (Admit) that the service is full rather than failing.
func (e *Engine) RecordRefused(latency time.Duration) { e.record(failed, latency, true) }

// record records an outcome of latency; refused says a failure was a refusal (RecordRefused).
func (e *Engine) record(o outcome, latency time.Duration, refused bool) {
	ok := o == succeeded
	latency = max(0, latency)
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	healthy := e.healthy()
	e.win.record(o, latency)
	if e.hot.AdmitOriginals {
		e.recordPace(t, o, refused, latency)
	}
	if e.fleetOn {
		e.fleet.record(o, binOf(int64(latency)), int64(latency))
	}
	if ok {
		e.successes++
		if e.recentOK == 0 {
			e.recentOK = float64(latency)
		} else {
			e.recentOK += recentAlpha * (float64(latency) - e.recentOK)
		}
		e.adm.recordOK(latency)
		e.tb.credit(t)
		if healthy {
			e.bl.observe(latency)
		}
	} else {
		e.failed++
	}
	var rate float64 // only a CLOSED breaker reads the trip rate
	if e.br.state == Closed {
		rate = e.tripRate()
	}
	if e.br.observe(t, ok, rate, e.win.long.outcomes(), t-latency) {
		e.ramping, e.rampFrom = true, t
	}
}

// StateFor returns the band of cps: HEALTHY [0, 0.25), DEGRADED [0.25, 0.50), CRITICAL
// [0.50, emergencyThreshold), EMERGENCY [emergencyThreshold, 1].
func StateFor(cps, emergencyThreshold float64) State {
	switch {
	case cps >= emergencyThreshold:
		return Emergency
	case cps >= CriticalFrom:
		return Critical
	case cps >= DegradedFrom:
		return Degraded
	}
	return Healthy
}

// FloorFor returns the priority floor of a CPS, floor(cps*10) within 0..10, tolerant of
// floating-point error (a CPS meant to be 0.3, computed as 0.29999999999999993, gives 3): retries
// of a priority below it are shed. Decisions and snapshots carry it; use this for a CPS of your
// own (a fleet's mean, say) so that nobody computes it differently.
func FloorFor(cps float64) int {
	return min(MaxPriority, max(0, int(math.Floor(cps*10+floorEpsilon))))
}

func clamp01(v float64) float64 {
	if v > 1 {
		return 1
	}
	if v > 0 {
		return v
	}
	return 0 // negative and NaN
}
