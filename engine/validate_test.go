package engine

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidate asserts that each invalid configuration is rejected by Validate and New with an
// error naming exactly the bad fields (FailureHorizon negative;
// TokenRefillPerSuccess and SlowdownCost negative or not finite; BudgetReserve outside [0, 1]
// among them), and that the edge values the spec allows, ArticleConfig and DefaultConfig are
// accepted.
func TestValidate(t *testing.T) {
	tests := []struct {
		name       string
		mutate     func(c *Config)
		wantFields []string // nil: valid
	}{
		{"defaults", func(*Config) {}, nil},
		{"zero counts and capacities", func(c *Config) {
			c.TokenBucketCapacity, c.TokenRefillRate, c.TokenSuccessBonus = 0, 0, 0
			c.QueueCapacity, c.CircuitMinRequests, c.HalfOpenProbes, c.MaxRetryAttempts = 0, 0, 0, 0
			c.BackoffBaseDelay, c.BackoffMaxDelay, c.RecoveryRamp, c.CircuitSustainedDuration = 0, 0, 0, 0
		}, nil},
		{"thresholds at 1", func(c *Config) { c.EmergencyThreshold, c.CircuitFailureThreshold = 1, 1 }, nil},
		{"zero window", func(c *Config) { c.Window = 0 }, []string{"Window"}},
		{"negative window", func(c *Config) { c.Window = -time.Second }, []string{"Window"}},
		{"negative weight", func(c *Config) { c.Weights.B = -1 }, []string{"Weights.B"}},
		{"NaN weight", func(c *Config) { c.Weights.L = math.NaN() }, []string{"Weights.L"}},
		{"zero weights", func(c *Config) { c.Weights = Weights{} }, []string{"Weights"}},
		{"emergency threshold 0", func(c *Config) { c.EmergencyThreshold = 0 }, []string{"EmergencyThreshold"}},
		{"emergency threshold above 1", func(c *Config) { c.EmergencyThreshold = 1.2 }, []string{"EmergencyThreshold"}},
		{"emergency threshold NaN", func(c *Config) { c.EmergencyThreshold = math.NaN() }, []string{"EmergencyThreshold"}},
		{"negative max attempts", func(c *Config) { c.MaxRetryAttempts = -1 }, []string{"MaxRetryAttempts"}},
		{"negative capacity", func(c *Config) { c.TokenBucketCapacity = -1 }, []string{"TokenBucketCapacity"}},
		{"negative refill", func(c *Config) { c.TokenRefillRate = -1 }, []string{"TokenRefillRate"}},
		{"infinite refill", func(c *Config) { c.TokenRefillRate = math.Inf(1) }, []string{"TokenRefillRate"}},
		{"negative bonus", func(c *Config) { c.TokenSuccessBonus = -5 }, []string{"TokenSuccessBonus"}},
		{"failure threshold 0", func(c *Config) { c.CircuitFailureThreshold = 0 }, []string{"CircuitFailureThreshold"}},
		{"failure threshold NaN", func(c *Config) { c.CircuitFailureThreshold = math.NaN() }, []string{"CircuitFailureThreshold"}},
		{"negative sustained", func(c *Config) { c.CircuitSustainedDuration = -1 }, []string{"CircuitSustainedDuration"}},
		{"negative min requests", func(c *Config) { c.CircuitMinRequests = -1 }, []string{"CircuitMinRequests"}},
		{"zero cooldown", func(c *Config) { c.CircuitCooldown = 0 }, []string{"CircuitCooldown"}},
		{"negative probes", func(c *Config) { c.HalfOpenProbes = -1 }, []string{"HalfOpenProbes"}},
		{"negative base delay", func(c *Config) { c.BackoffBaseDelay = -1 }, []string{"BackoffBaseDelay"}},
		{"negative max delay", func(c *Config) { c.BackoffMaxDelay = -1 }, []string{"BackoffMaxDelay"}},
		{"negative queue capacity", func(c *Config) { c.QueueCapacity = -1 }, []string{"QueueCapacity"}},
		{"negative baseline", func(c *Config) { c.BaselineLatency = -1 }, []string{"BaselineLatency"}},
		{"negative ramp", func(c *Config) { c.RecoveryRamp = -1 }, []string{"RecoveryRamp"}},
		{"article config", func(c *Config) { *c = ArticleConfig() }, nil},
		{"new fields at their edges", func(c *Config) {
			c.FailureHorizon, c.TokenRefillPerSuccess, c.SlowdownCost, c.BudgetReserve = c.Window, 0, 0, 1
		}, nil},
		{"horizon 0 means the window", func(c *Config) { c.FailureHorizon = 0 }, nil},
		{"negative horizon", func(c *Config) { c.FailureHorizon = -time.Second }, []string{"FailureHorizon"}},
		{"a horizon longer than the window means the window", func(c *Config) { c.FailureHorizon = c.Window + 1 }, nil},
		{"a short window with the default horizon", func(c *Config) { c.Window = time.Second }, nil},
		{"a bad window is named alone", func(c *Config) { c.Window, c.FailureHorizon = 0, 5*time.Second }, []string{"Window"}},
		{"negative refill per success", func(c *Config) { c.TokenRefillPerSuccess = -1 }, []string{"TokenRefillPerSuccess"}},
		{"NaN refill per success", func(c *Config) { c.TokenRefillPerSuccess = math.NaN() }, []string{"TokenRefillPerSuccess"}},
		{"infinite refill per success", func(c *Config) { c.TokenRefillPerSuccess = math.Inf(1) }, []string{"TokenRefillPerSuccess"}},
		{"negative slowdown cost", func(c *Config) { c.SlowdownCost = -0.5 }, []string{"SlowdownCost"}},
		{"NaN slowdown cost", func(c *Config) { c.SlowdownCost = math.NaN() }, []string{"SlowdownCost"}},
		{"infinite slowdown cost", func(c *Config) { c.SlowdownCost = math.Inf(1) }, []string{"SlowdownCost"}},
		{"negative reserve", func(c *Config) { c.BudgetReserve = -0.1 }, []string{"BudgetReserve"}},
		{"reserve above 1", func(c *Config) { c.BudgetReserve = 1.01 }, []string{"BudgetReserve"}},
		{"NaN reserve", func(c *Config) { c.BudgetReserve = math.NaN() }, []string{"BudgetReserve"}},
		{"every new field named", func(c *Config) {
			c.FailureHorizon, c.TokenRefillPerSuccess, c.SlowdownCost, c.BudgetReserve = -1, -1, -1, 2
		}, []string{"FailureHorizon", "TokenRefillPerSuccess", "SlowdownCost", "BudgetReserve"}},
		{"every bad field is named", func(c *Config) {
			c.Window, c.EmergencyThreshold, c.MaxRetryAttempts, c.CircuitCooldown = 0, 2, -1, -time.Second
		}, []string{"Window", "EmergencyThreshold", "MaxRetryAttempts", "CircuitCooldown"}},
		{"the zero Config", func(c *Config) { *c = Config{} }, []string{"Window", "Weights", "EmergencyThreshold", "CircuitFailureThreshold", "CircuitCooldown"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mutate(&cfg)
			err := cfg.Validate()
			e, newErr := New(cfg)
			if tc.wantFields == nil {
				assert.NoError(t, err)
				assert.NoError(t, newErr)
				assert.NotNil(t, e)
				return
			}
			require.Error(t, err)
			assert.Nil(t, e, "New returns no engine for a bad config")
			assert.Equal(t, err.Error(), newErr.Error(), "New reports what Validate reports")
			var ce ConfigError
			require.True(t, errors.As(err, &ce))
			assert.Equal(t, tc.wantFields, ce.Fields())
			for _, f := range tc.wantFields {
				assert.Contains(t, err.Error(), f)
			}
		})
	}
}
