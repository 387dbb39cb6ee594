package engine

// Snapshot returns a copy of the engine's state now; it shares no memory with the engine and
// allocates nothing.
func (e *Engine) Snapshot() (s Snapshot) {
	e.SnapshotTo(&s)
	return s
}

// SnapshotTo is Snapshot written into *s, every field of it, for callers that read many engines
// often (the simulator reads every client's engine every tick): a Snapshot is 45 words, and
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
	a := &e.adm
	s.Shedding, s.ShedShare, s.AdmitFloor = a.engaged, a.share, a.floor
	s.OriginalsAdmitted, s.OriginalsShed = a.admitted, a.shed
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
