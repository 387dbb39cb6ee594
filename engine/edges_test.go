package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigEdges asserts what the zero and extreme values the spec allows mean: each case
// builds an engine with one such value and checks its documented effect.
func TestConfigEdges(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *Config)
		check  func(t *testing.T, e *Engine, clock *ManualClock)
	}{
		{
			name:   "a 1ns window still works (rounded up to 60 slices of 1ns)",
			mutate: func(c *Config) { c.Window, c.FailureHorizon = time.Nanosecond, 0 },
			check: func(t *testing.T, e *Engine, clock *ManualClock) {
				e.RecordFailure(time.Second)
				assert.Equal(t, 1, e.Snapshot().Outcomes)
				clock.Advance(windowBuckets * time.Nanosecond)
				assert.Zero(t, e.Snapshot().Outcomes)
			},
		},
		{
			name:   "a year-long window keeps everything",
			mutate: func(c *Config) { c.Window = 365 * 24 * time.Hour },
			check: func(t *testing.T, e *Engine, clock *ManualClock) {
				e.RecordFailure(time.Second)
				clock.Advance(100 * 24 * time.Hour)
				e.RecordSuccess(time.Second)
				assert.Equal(t, 2, e.Snapshot().Outcomes)
			},
		},
		{
			name:   "QueueCapacity 0 disables Q",
			mutate: func(c *Config) { c.QueueCapacity = 0 },
			check: func(t *testing.T, e *Engine, _ *ManualClock) {
				e.SetQueueDepth(1_000_000)
				assert.Zero(t, e.Snapshot().Signals.Q)
			},
		},
		{
			name:   "TokenBucketCapacity 0 disables the budget",
			mutate: func(c *Config) { c.TokenBucketCapacity, c.TokenRefillRate = 0, 0 },
			check: func(t *testing.T, e *Engine, _ *ManualClock) {
				for range 1000 {
					require.Equal(t, Retry, e.ShouldRetry(10, 0, true).Action)
				}
				assert.Zero(t, e.Snapshot().Signals.B)
			},
		},
		{
			name:   "MaxRetryAttempts 0 allows no retry",
			mutate: func(c *Config) { c.MaxRetryAttempts = 0 },
			check: func(t *testing.T, e *Engine, _ *ManualClock) {
				assert.Equal(t, MaxRetriesExceeded, e.ShouldRetry(10, 0, true).Action)
			},
		},
		{
			name:   "BackoffMaxDelay 0 retries at once",
			mutate: func(c *Config) { c.BackoffMaxDelay = 0 },
			check: func(t *testing.T, e *Engine, _ *ManualClock) {
				d := e.ShouldRetry(10, 2, true)
				assert.Equal(t, Retry, d.Action)
				assert.Zero(t, d.Delay)
			},
		},
		{
			name:   "HalfOpenProbes 0 closes straight after the cooldown, then ramps",
			mutate: func(c *Config) { c.HalfOpenProbes = 0; queueOnly(c) },
			check: func(t *testing.T, e *Engine, clock *ManualClock) {
				e.ForceOpen()
				clock.Advance(e.Config().CircuitCooldown)
				s := e.Snapshot()
				assert.Equal(t, Closed, s.Circuit)
				assert.Equal(t, TransitionCooldownElapsed, s.LastTransition.Reason)
				assert.InDelta(t, rampStartShare, s.RecoveryShare, 1e-12)
			},
		},
		{
			name:   "RecoveryRamp 0 re-admits everything at once",
			mutate: func(c *Config) { c.RecoveryRamp = 0; queueOnly(c) },
			check: func(t *testing.T, e *Engine, clock *ManualClock) {
				e.ForceOpen()
				closeCircuit(t, e, clock)
				assert.Equal(t, 1.0, e.Snapshot().RecoveryShare)
				assert.Equal(t, Retry, e.ShouldRetry(MinPriority, 0, true).Action)
			},
		},
		{
			name:   "a fixed baseline gives L from the first outcome",
			mutate: func(c *Config) { c.BaselineLatency = 100 * time.Millisecond },
			check: func(t *testing.T, e *Engine, _ *ManualClock) {
				e.RecordSuccess(250 * time.Millisecond)
				assert.InEpsilon(t, (250.0-100)/300, e.Snapshot().Signals.L, 0.25)
			},
		},
		{
			name:   "adaptive weights from the config start within bounds",
			mutate: func(c *Config) { c.AdaptiveWeights = true; c.Weights = Weights{F: 1} },
			check: func(t *testing.T, e *Engine, _ *ManualClock) {
				w := e.Snapshot().Weights
				assert.Equal(t, AdaptiveMaxWeight, w.F)
				assert.InDelta(t, 1, w.sum(), 1e-12)
				assert.Equal(t, Weights{F: 1}, e.Config().Weights, "the configured weights are kept for Reset")
			},
		},
		{
			name: "ForceOpen on an open circuit changes nothing",
			check: func(t *testing.T, e *Engine, clock *ManualClock) {
				e.ForceOpen()
				clock.Advance(time.Second)
				e.ForceOpen()
				s := e.Snapshot()
				assert.Equal(t, uint64(1), s.TransitionCount)
				assert.Equal(t, epoch, s.LastTransition.At, "the cooldown is not restarted")
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, tc.mutate)
			tc.check(t, e, clock)
		})
	}
}
