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
	mu sync.Mutex

	cfg    Config
	clock  Clock
	origin time.Time     // the clock's reading at New or Reset: elapsed time 0
	manual *ManualClock  // clock, when it is a ManualClock: read without time.Time arithmetic
	wall   bool          // clock is the WallClock: elapsed time read from the monotonic clock alone
	oframe *clockFrame   // manual's frame at origin (nil otherwise)
	ons    int64         // manual's offset in oframe at origin, ns
	last   time.Duration // latest elapsed time seen (time never goes backwards inside)
	pcg    rand.PCG
	rng    *rand.Rand // draws from pcg

	base     Weights // normalised weights from Config or SetWeights (what Reset restores)
	w        Weights // current weights (adaptive weights move them)
	adaptive bool
	fleetOn  bool // Config.Fleet.Enabled: read on the hot path here (padding after adaptive), not from fleet at the end
	adapt    adaptiveWeights
	queue    int
	qSignal  float64 // Q for queue: computed when the depth is set, read by every decision

	win slidingWindow
	tb  tokenBucket
	br  circuitBreaker
	bl  baseline

	recentOK float64 // moving average of the latest successes' latency (ns), 0 before any

	ramping  bool          // a recovery ramp may be running
	rampFrom time.Duration // when the circuit last closed after an outage

	successes, failed uint64
	decisions         [5]uint64
	fallbacks         uint64

	// signalHook, when set (tests only), post-processes the signals of the unified decision;
	// a hook that panics or yields NaN exercises the fallback path.
	signalHook func(Signals) Signals

	// fleet is the engine's side of a fleet (Config.Fleet), off when alone. It comes last, so
	// that the fields the hot path reads keep the offsets (and cache lines) they had without it.
	fleet fleetState
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
	e.origin, e.last = origin, 0
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
	e.br = newCircuitBreaker(c, origin)
	e.bl = newBaseline(c.BaselineLatency, c.LearnTail)
	e.ramping, e.rampFrom = false, 0
	e.recentOK = 0
	e.fleet = newFleetState(c.Fleet)
	e.fleetOn = c.Fleet.Enabled
	e.successes, e.failed, e.decisions, e.fallbacks = 0, 0, [5]uint64{}, 0
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
	if e.manual != nil {
		f, ns := e.manual.load()
		if f == e.oframe && f != nil && f.fast {
			t = time.Duration(ns - e.ons)
		} else {
			t = timeAt(f, ns).Sub(e.origin)
		}
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

// advance brings every time-driven part up to t: window slices expire, the breaker cools down;
// once per new window slice the baseline takes a step and adaptive weights are evaluated.
func (e *Engine) advance(t time.Duration) {
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
	if e.cfg.TripFast {
		recent = e.win.recentTally()
		p = &recent
	}
	if e.cfg.TripOnTimeouts {
		return p.failureRate()
	}
	return p.answeredFailureRate()
}

// slowdown is S, how much slower than the baseline the latest successes were:
// min(1, max(0, (recent - base) / (3 base))), recent the moving average of their latency.
func (e *Engine) slowdown() float64 { return e.bl.slowdown(time.Duration(e.recentOK)) }

// retryCost is the tokens a retry costs: 1 + SlowdownCost*S, twice the extra after a timeout.
func (e *Engine) retryCost(timeout bool) float64 {
	extra := e.cfg.SlowdownCost * e.slowdown()
	if timeout {
		extra *= 2
	}
	return 1 + extra
}

// reserve is the share of the bucket a retry of priority p must leave: BudgetReserve*(10-p)/10.
func (e *Engine) reserve(p int) float64 {
	return e.cfg.BudgetReserve * float64(MaxPriority-p) / MaxPriority
}

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

// rampShare returns the share of retries the recovery ramp admits at t (1 outside a ramp).
func (e *Engine) rampShare(t time.Duration) float64 {
	if !e.ramping || e.br.state != Closed || e.cfg.RecoveryRamp == 0 {
		return 1
	}
	el := t - e.rampFrom
	if el >= e.cfg.RecoveryRamp {
		e.ramping = false
		return 1
	}
	return rampStartShare + (1-rampStartShare)*float64(el)/float64(e.cfg.RecoveryRamp)
}

// rampAdmits reports whether the ramp admits a retry of priority p when it admits share of
// retries: p/10 >= 1 - share, so priority 10 and 9 first, priority 0 only at the end.
func rampAdmits(p int, share float64) bool {
	return float64(p) >= float64(MaxPriority)*(1-share)-floorEpsilon
}

// ShouldRetry decides whether a failed request of the given priority (0..10, clamped) should be
// retried, attempt being the 0-based retry index (negative counts as 0) and retryable whether
// the error may be retried at all. It runs the five checks in order: retryable, attempt limit,
// CPS emergency and circuit, priority floor / recovery ramp / token budget, and backoff. A
// Retry takes its price in tokens (Config.SlowdownCost) and a probe slot in HALF_OPEN. If the
// unified decision panics or its CPS is not finite, the answer comes from the fallback path
// (Decision.Fallback). It never panics. Decide is the same with more to say about the failure
// (a timeout).
func (e *Engine) ShouldRetry(priority, attempt int, retryable bool) (d Decision) {
	e.decide(&d, Failure{Priority: priority, Attempt: attempt, NotRetryable: !retryable})
	return d
}

// ShouldRetryTo is ShouldRetry writing its decision into *d, every field of it, for callers on
// a hot path: a Decision is 14 words, and receiving one by value makes the caller copy it whole,
// which on amd64 stalls behind the stores that just wrote it. A nil d is allowed: the decision
// is then made and counted, and dropped.
func (e *Engine) ShouldRetryTo(d *Decision, priority, attempt int, retryable bool) {
	e.DecideTo(d, Failure{Priority: priority, Attempt: attempt, NotRetryable: !retryable})
}

// Decide is ShouldRetry for a failure described by f: the same five checks, and a retry after a
// timeout costs 1 + 2*SlowdownCost*S tokens instead of 1 + SlowdownCost*S (Snapshot.Slowdown).
func (e *Engine) Decide(f Failure) (d Decision) {
	e.decide(&d, f)
	return d
}

// DecideTo is Decide writing its decision into *d (see ShouldRetryTo). A nil d is allowed.
func (e *Engine) DecideTo(d *Decision, f Failure) {
	if d == nil {
		var drop Decision
		d = &drop
	}
	e.decide(d, f)
}

// decide is Decide into *d.
func (e *Engine) decide(d *Decision, f Failure) {
	priority := min(MaxPriority, max(MinPriority, f.Priority))
	attempt := max(0, f.Attempt)
	e.mu.Lock()
	defer e.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			*d = Decision{Action: Reject, Priority: priority, Reason: ReasonInternalError, Fallback: true}
		}
		if d.Action >= 0 && int(d.Action) < len(e.decisions) {
			e.decisions[d.Action]++
		}
		if d.Fallback {
			e.fallbacks++
		}
	}()
	switch {
	case f.NotRetryable:
		*d = Decision{Action: NotRetryable, Priority: priority, Reason: ReasonNotRetryable}
	case attempt >= e.cfg.MaxRetryAttempts:
		*d = Decision{Action: MaxRetriesExceeded, Priority: priority, Reason: ReasonMaxRetries}
	default:
		t := e.now()
		e.advance(t)
		if !e.unified(t, priority, attempt, f.Timeout, d) {
			e.fallback(t, priority, attempt, d)
		}
	}
}

// unified runs checks 3 to 5 on the CPS and writes the decision into *d (in place: a Decision
// is 14 words, and this is the hot path). It returns false when the computation panicked or
// the CPS is not finite; *d is then undefined and the caller falls back.
func (e *Engine) unified(t time.Duration, priority, attempt int, timeout bool, d *Decision) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	*d = Decision{Priority: priority}
	e.fillSignals(t, &d.Signals)
	if e.signalHook != nil {
		d.Signals = e.signalHook(d.Signals)
	}
	cps := e.w.dot(&d.Signals)
	if math.IsNaN(cps) || math.IsInf(cps, 0) {
		return false
	}
	cps = clamp01(cps)
	d.CPS, d.State, d.Floor = cps, StateFor(cps, e.cfg.EmergencyThreshold), FloorFor(cps)

	switch {
	case cps >= e.cfg.EmergencyThreshold: // check 3: emergency, then the circuit
		e.br.open(t, TransitionEmergency)
		d.Action, d.Reason = CircuitOpen, ReasonEmergency
	case e.circuitRefuses(d):
	case priority < d.Floor: // check 4: priority floor, recovery ramp, then the budget
		d.Action, d.Reason = Reject, ReasonShedLowPriority
	case !rampAdmits(priority, e.rampShare(t)):
		d.Action, d.Reason = Reject, ReasonRecoveryRamp
	default: // check 5: CPS-modulated backoff
		e.spend(t, attempt, e.retryCost(timeout), e.reserve(priority), 1+cps*10, d)
	}
	return true
}

// fallback answers into *d from the independent checks: circuit breaker, then token bucket,
// then plain exponential backoff with full jitter, Random(0, min(BackoffMaxDelay,
// base*2^attempt)). They are the unified decision's checks without the CPS: no emergency,
// floor or ramp, and a backoff factor of 1.
func (e *Engine) fallback(t time.Duration, priority, attempt int, d *Decision) {
	*d = Decision{Priority: priority, Fallback: true}
	if !e.circuitRefuses(d) {
		e.spend(t, attempt, 1, 0, 1, d)
	}
}

// circuitRefuses writes CIRCUIT_OPEN into d and reports true when the circuit is OPEN, or
// HALF_OPEN with every probe slot taken (reason HALF_OPEN_PROBES_BUSY).
func (e *Engine) circuitRefuses(d *Decision) bool {
	switch {
	case e.br.state == Open:
		d.Action, d.Reason = CircuitOpen, ReasonCircuitOpen
	case e.br.probesBusy():
		d.Action, d.Reason = CircuitOpen, ReasonHalfOpenProbesBusy
	default:
		return false
	}
	return true
}

// spend takes cost retry tokens and writes the retry into d: RETRY after a draw below
// base*2^attempt*factor (a probe slot taken in HALF_OPEN), or BUDGET_EXHAUSTED when the tokens
// are not there.
func (e *Engine) spend(t time.Duration, attempt int, cost, reserve, factor float64, d *Decision) {
	var ok bool
	if e.fleetOn && e.fleet.fresh(t) {
		ok = e.fleet.take(cost, reserve)
	} else {
		ok = e.tb.take(t, cost, reserve)
	}
	if !ok {
		d.Action, d.Reason = Reject, ReasonBudgetExhausted
		return
	}
	d.Action, d.Reason = Retry, ReasonRetry
	d.Delay = e.draw(float64(e.cfg.BackoffBaseDelay) * math.Ldexp(1, min(attempt, 64)) * factor)
	e.br.probeSent(t)
}

// draw returns Random(0, ceiling) nanoseconds (its midpoint in deterministic mode), capped at
// BackoffMaxDelay.
func (e *Engine) draw(ceiling float64) time.Duration {
	v := ceiling / 2
	if !e.cfg.Deterministic {
		v = ceiling * e.rng.Float64()
	}
	if !(v < float64(e.cfg.BackoffMaxDelay)) {
		return e.cfg.BackoffMaxDelay
	}
	return time.Duration(v)
}

// RecordSuccess records a successful request that took latency (negative counts as 0): it
// enters the window, returns TokenSuccessBonus tokens, may teach the baseline (circuit CLOSED
// and F < 0.10) and counts towards closing a HALF_OPEN circuit.
func (e *Engine) RecordSuccess(latency time.Duration) { e.record(succeeded, latency) }

// RecordFailure records a failed request that took latency (negative counts as 0): it enters
// the window, may trip the circuit (sustained failure rate) and re-opens a HALF_OPEN one.
func (e *Engine) RecordFailure(latency time.Duration) { e.record(failed, latency) }

// RecordTimeout records a request that got no answer within its timeout, latency being the
// time waited (negative counts as 0). It counts as a failure in F and in the latency window,
// but does not by itself trip the circuit: a timeout does not say the service refuses (it may
// be queueing, which L and the retry cost weigh, or the network may be losing packets). A
// HALF_OPEN circuit re-opens on it like on any failure.
func (e *Engine) RecordTimeout(latency time.Duration) { e.record(timedOut, latency) }

func (e *Engine) record(o outcome, latency time.Duration) {
	ok := o == succeeded
	latency = max(0, latency)
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	healthy := e.healthy()
	e.win.record(o, latency)
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

// Snapshot returns a copy of the engine's state now; it shares no memory with the engine and
// allocates nothing.
func (e *Engine) Snapshot() (s Snapshot) {
	e.SnapshotTo(&s)
	return s
}

// SnapshotTo is Snapshot written into *s, every field of it, for callers that read many engines
// often (the simulator reads every client's engine every tick): a Snapshot is 27 words, and
// receiving one by value copies it whole behind the stores that just wrote it. The P99 latency
// is read once, for signal L and for s.P99.
func (e *Engine) SnapshotTo(s *Snapshot) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	p99 := e.p99()
	e.fillSignalsAt(t, p99, &s.Signals)
	cps := clamp01(e.w.dot(&s.Signals))
	s.Weights = e.w
	s.Adaptive = e.adaptive
	s.CPS = cps
	s.State = StateFor(cps, e.cfg.EmergencyThreshold)
	s.Floor = FloorFor(cps)
	s.Circuit = e.br.state
	s.Tokens = e.tokens()
	s.TokenCapacity = e.cfg.TokenBucketCapacity
	s.Baseline = e.bl.value
	s.P99 = p99
	s.Tail = e.bl.tail
	s.Slowdown = e.slowdown()
	s.Outcomes = int(e.win.long.outcomes())
	s.Failures = int(e.win.long.failures)
	s.RecoveryShare = e.rampShare(t)
	s.Successes = e.successes
	s.Failed = e.failed
	s.Decisions = e.decisions
	s.Fallbacks = e.fallbacks
	s.TransitionCount = e.br.count
	s.LastTransition = e.br.last()
	s.Fleet = FleetOff
	if e.fleetOn {
		s.Fleet = e.fleet.mode(t)
	}
}

// tokens returns the tokens left (the capacity when the budget is disabled).
func (e *Engine) tokens() float64 { return e.tb.tokens }

// Config returns the engine's configuration, with Weights normalised and Clock filled in.
func (e *Engine) Config() Config {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg
}

// SetQueueDepth sets the current queue depth n (negative counts as 0): Q = n / QueueCapacity,
// clamped to 1.
func (e *Engine) SetQueueDepth(n int) {
	e.mu.Lock()
	e.queue = max(0, n)
	e.qSignal = 0
	if e.cfg.QueueCapacity > 0 {
		e.qSignal = clamp01(float64(e.queue) / float64(e.cfg.QueueCapacity))
	}
	e.mu.Unlock()
}

// SetWeights replaces the weights, normalised to sum 1 (and kept within the adaptive bounds when
// adaptive weights are on). It returns an error naming each bad weight (negative, not finite,
// or all zero) and then changes nothing. Reset keeps the weights set here.
func (e *Engine) SetWeights(w Weights) error {
	n, err := w.Normalized()
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.base, e.w = n, n
	if e.adaptive {
		e.w = bounded(n, AdaptiveMinWeight, AdaptiveMaxWeight)
	}
	return nil
}

// SetAdaptive turns adaptive weights on or off. Turning them on clamps the current weights into
// [AdaptiveMinWeight, AdaptiveMaxWeight] (renormalised) and starts tracking alarms afresh;
// turning them off leaves the weights where adaptation put them.
func (e *Engine) SetAdaptive(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if on && !e.adaptive {
		e.w = bounded(e.w, AdaptiveMinWeight, AdaptiveMaxWeight)
		e.adapt.reset()
	}
	e.adaptive = on
}

// ForceOpen forces the circuit OPEN now (transition reason FORCED), as a trip would: after
// CircuitCooldown it goes HALF_OPEN and probes as usual. A no-op when already OPEN.
func (e *Engine) ForceOpen() {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.now()
	e.advance(t)
	e.br.open(t, TransitionForced)
}

// Reset puts the engine back in its freshly built state, with time starting again at the
// clock's current reading: empty window, full bucket, no baseline, counters and transition
// history cleared, the random source re-seeded. It keeps the configuration, the weights last
// given to SetWeights and the adaptive switch. If the circuit was not CLOSED, the cleared
// history starts with that transition to CLOSED (reason RESET), so a dashboard can show it.
func (e *Engine) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	prev := e.br.state
	e.init(e.readOrigin())
	if prev != Closed {
		e.br.state = prev
		e.br.to(0, Closed, TransitionReset)
	}
}

// Transitions returns a copy of the recent circuit transitions (at most 32), oldest first.
func (e *Engine) Transitions() []Transition {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.br.history()
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
