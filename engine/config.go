package engine

import "time"

// Config configures an Engine. DefaultConfig returns the documented defaults; New validates.
// Zero is valid for counts and capacities where it has a clear meaning (no success bonus, no
// queue signal); Window, cooldowns and thresholds must be positive.
type Config struct {
	Window             time.Duration // sliding window for F and L (default 60s)
	Weights            Weights       // w1..w5 for F L Q B C, >= 0 with a positive sum; stored normalised (default 0.30/0.20/0.15/0.15/0.20)
	AdaptiveWeights    bool          // self-tuning weights (default false)
	EmergencyThreshold float64       // CPS at or above which the circuit is forced OPEN, in (0,1] (default 0.75)
	MaxRetryAttempts   int           // attempt (0-based retry index) >= this is MAX_RETRIES_EXCEEDED (default 3)

	TokenBucketCapacity int     // retry budget in tokens (default 500)
	TokenRefillRate     float64 // tokens per second (default 100)
	TokenSuccessBonus   int     // tokens returned per success, capped at capacity (default 5)

	CircuitFailureThreshold  float64       // failure rate that trips the circuit, in (0,1] (default 0.60)
	CircuitSustainedDuration time.Duration // ... when sustained this long (default 10s)
	CircuitMinRequests       int           // no trip below this many outcomes in the window (default 20)
	CircuitCooldown          time.Duration // OPEN -> HALF_OPEN after this (default 15s)
	HalfOpenProbes           int           // successes in HALF_OPEN needed to close (default 5)

	BackoffBaseDelay time.Duration // base of the backoff (default 500ms)
	BackoffMaxDelay  time.Duration // cap on any delay (default 30s)

	QueueCapacity   int           // Q = depth / capacity; 0 disables the Q signal (default 1000)
	BaselineLatency time.Duration // 0 = learn the baseline P50; > 0 = fixed baseline (default 0)
	RecoveryRamp    time.Duration // gradual re-admission after the circuit closes; 0 = none (default 30s)

	Deterministic bool  // every random draw returns the midpoint of its range (default false)
	Seed          int64 // seeds the engine's own random source; 0 = time-based (default 0)
	Clock         Clock // injected time source; nil = wall clock
}

// DefaultConfig returns the defaults of the spec (and of the Java original).
func DefaultConfig() Config {
	return Config{
		Window:                   60 * time.Second,
		Weights:                  DefaultWeights(),
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
		RecoveryRamp:             30 * time.Second,
	}
}
