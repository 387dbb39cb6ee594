package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestArticleConfig asserts that ArticleConfig is the spec's table (spec/engine.md, "Config
// fields and defaults") field by field, the mechanisms added since switched off as the field
// docs say the article has them: no failure horizon (F, P99 and the trip over the one window),
// flat refill, no retry pricing, no reserve, no learned tail, timeouts tripping the breaker.
// The values are typed here on purpose: they are the spec.
func TestArticleConfig(t *testing.T) {
	want := Config{
		Window:                   60 * time.Second,
		Weights:                  Weights{F: 0.30, L: 0.20, Q: 0.15, B: 0.15, C: 0.20},
		AdaptiveWeights:          false,
		EmergencyThreshold:       0.75,
		MaxRetryAttempts:         3,
		TokenBucketCapacity:      500,
		TokenRefillRate:          100,
		TokenSuccessBonus:        5,
		CircuitFailureThreshold:  0.60,
		CircuitSustainedDuration: 10 * time.Second,
		CircuitMinRequests:       20,
		CircuitCooldown:          15 * time.Second,
		HalfOpenProbes:           5,
		BackoffBaseDelay:         500 * time.Millisecond,
		BackoffMaxDelay:          30 * time.Second,
		QueueCapacity:            1000,
		BaselineLatency:          0,
		RecoveryRamp:             30 * time.Second,
		Deterministic:            false,
		Seed:                     0,
		Clock:                    nil,

		FailureHorizon:        0,
		TokenRefillPerSuccess: 0,
		SlowdownCost:          0,
		BudgetReserve:         0,
		LearnTail:             false,
		TripOnTimeouts:        true,
		Admit:                 DefaultAdmit(),
		Pace:                  DefaultPace(),
	}
	got := ArticleConfig()
	assert.Equal(t, want, got)
	assert.Equal(t, DefaultWeights(), got.Weights)
	require.NoError(t, got.Validate())
}

// TestDefaultConfig asserts that the tuned defaults are valid and build an engine, and that
// they stay within the article's model: the same window, weights, thresholds, attempts,
// capacity, ceiling rate, backoff and queue as ArticleConfig, with each mechanism added since
// switched on.
func TestDefaultConfig(t *testing.T) {
	d := DefaultConfig()
	require.NoError(t, d.Validate())
	e, err := New(d)
	require.NoError(t, err)
	require.NotNil(t, e)

	a := ArticleConfig()
	assert.Equal(t, a.Window, d.Window)
	assert.Equal(t, a.Weights, d.Weights)
	assert.Equal(t, a.EmergencyThreshold, d.EmergencyThreshold)
	assert.Equal(t, a.MaxRetryAttempts, d.MaxRetryAttempts)
	assert.Equal(t, a.TokenBucketCapacity, d.TokenBucketCapacity)
	assert.Equal(t, a.TokenRefillRate, d.TokenRefillRate)
	assert.Equal(t, a.CircuitFailureThreshold, d.CircuitFailureThreshold)
	assert.Equal(t, a.CircuitMinRequests, d.CircuitMinRequests)
	assert.Equal(t, a.HalfOpenProbes, d.HalfOpenProbes)
	assert.Equal(t, a.BackoffBaseDelay, d.BackoffBaseDelay)
	assert.Equal(t, a.BackoffMaxDelay, d.BackoffMaxDelay)
	assert.Equal(t, a.QueueCapacity, d.QueueCapacity)

	assert.Positive(t, d.FailureHorizon)
	assert.Less(t, d.FailureHorizon, d.Window)
	assert.Positive(t, d.TokenRefillPerSuccess)
	assert.Positive(t, d.SlowdownCost)
	assert.Positive(t, d.BudgetReserve)
	assert.True(t, d.LearnTail)
	assert.False(t, d.TripOnTimeouts)
}

// TestConfigSplit asserts Config.Split(n): the retry budget, the refill rate and the queue
// capacity are divided by n (capacities rounded to the nearest whole, at least one, and 0, a
// disabled budget or Q signal, stays 0); every other field, the per-success and per-retry
// quantities among them, is kept; n < 2 returns the config unchanged; a split config is valid.
func TestConfigSplit(t *testing.T) {
	tests := []struct {
		name                    string
		capacity, queue         int
		rate                    float64
		n                       int
		wantCapacity, wantQueue int
		wantRate                float64
	}{
		{"halves", 500, 1000, 100, 2, 250, 500, 50},
		{"thirds round to the nearest", 500, 1000, 100, 3, 167, 333, 100.0 / 3},
		{"rounding up from a half", 5, 7, 1, 2, 3, 4, 0.5},
		{"at least one token and one slot", 500, 1000, 100, 3000, 1, 1, 100.0 / 3000},
		{"a disabled budget and Q stay disabled", 0, 0, 0, 4, 0, 0, 0},
		{"n = 1 unchanged", 500, 1000, 100, 1, 500, 1000, 100},
		{"n = 0 unchanged", 500, 1000, 100, 0, 500, 1000, 100},
		{"negative n unchanged", 500, 1000, 100, -3, 500, 1000, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, base := range []Config{DefaultConfig(), ArticleConfig()} {
				c := base
				c.TokenBucketCapacity, c.QueueCapacity, c.TokenRefillRate = tc.capacity, tc.queue, tc.rate
				got := c.Split(tc.n)
				assert.Equal(t, tc.wantCapacity, got.TokenBucketCapacity, "TokenBucketCapacity")
				assert.Equal(t, tc.wantQueue, got.QueueCapacity, "QueueCapacity")
				assert.InDelta(t, tc.wantRate, got.TokenRefillRate, 1e-12, "TokenRefillRate")
				kept := got
				kept.TokenBucketCapacity, kept.QueueCapacity, kept.TokenRefillRate = c.TokenBucketCapacity, c.QueueCapacity, c.TokenRefillRate
				assert.Equal(t, c, kept, "every other field is kept")
				assert.NoError(t, got.Validate())
			}
		})
	}
	t.Run("the per-success and per-retry quantities are kept", func(t *testing.T) {
		c := ArticleConfig()
		c.TokenSuccessBonus, c.TokenRefillPerSuccess, c.SlowdownCost = 7, 2.5, 11
		got := c.Split(10)
		assert.Equal(t, 7, got.TokenSuccessBonus)
		assert.Equal(t, 2.5, got.TokenRefillPerSuccess)
		assert.Equal(t, 11.0, got.SlowdownCost)
	})
}

// TestConfigSplitFleet asserts what Split is for: n engines built from c.Split(n), each drained,
// hold together no more retry tokens than one engine built from c.
func TestConfigSplitFleet(t *testing.T) {
	for _, n := range []int{2, 3, 7, 10} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c := DefaultConfig()
			c.Clock, c.Deterministic, c.Seed = NewManualClock(epoch), true, 1
			one, err := New(c)
			require.NoError(t, err)
			total := 0
			for range n {
				e, err := New(c.Split(n))
				require.NoError(t, err)
				for e.ShouldRetry(MaxPriority, 0, true).Action == Retry {
					total++
				}
			}
			single := 0
			for one.ShouldRetry(MaxPriority, 0, true).Action == Retry {
				single++
			}
			assert.LessOrEqual(t, total, single+n/2, "rounding to the nearest gives at most n/2 tokens more")
			assert.GreaterOrEqual(t, total, single-n/2)
		})
	}
}
