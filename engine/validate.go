package engine

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// FieldError is one invalid field of a Config (or of Weights).
type FieldError struct {
	Field   string // e.g. "Window" or "Weights.F"
	Problem string // e.g. "must be positive, got -1s"
}

// ConfigError lists every invalid field found by Config.Validate or Weights.Normalized.
type ConfigError []FieldError

// Error names every bad field: "engine: invalid config: Window must be positive, got 0s; ...".
func (e ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("engine: invalid config: ")
	for i, f := range e {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Field)
		b.WriteString(" ")
		b.WriteString(f.Problem)
	}
	return b.String()
}

// Fields returns the names of the bad fields, in the order they were found.
func (e ConfigError) Fields() []string {
	out := make([]string, len(e))
	for i, f := range e {
		out[i] = f.Field
	}
	return out
}

func (e *ConfigError) add(field, format string, args ...any) {
	*e = append(*e, FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
}

func (e ConfigError) err() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

func (e *ConfigError) weights(prefix string, w Weights) {
	ok := true
	for i, v := range w.Array() {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			e.add(prefix+"."+SignalNames[i], "must be a finite number >= 0, got %v", v)
			ok = false
		}
	}
	if ok && !(w.sum() > 0) {
		e.add(prefix, "must sum to more than 0, got %v", w.sum())
	} else if ok && math.IsInf(w.sum(), 0) {
		e.add(prefix, "must have a finite sum")
	}
}

// finite adds an error unless v is a finite number >= 0.
func (e *ConfigError) finite(field string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		e.add(field, "must be a finite number >= 0, got %v", v)
	}
}

// duration adds an error unless d >= 0.
func (e *ConfigError) duration(field string, d time.Duration) {
	if d < 0 {
		e.add(field, "must be >= 0, got %v", d)
	}
}

// share adds an error unless v is within [0, 1].
func (e *ConfigError) share(field string, v float64) {
	if !(v >= 0 && v <= 1) {
		e.add(field, "must be within [0, 1], got %v", v)
	}
}

func (e *ConfigError) unit(field string, v float64) {
	if math.IsNaN(v) || v <= 0 || v > 1 {
		e.add(field, "must be within (0, 1], got %v", v)
	}
}

// Validate reports every invalid field of c in one ConfigError (nil if c is valid): Window and
// CircuitCooldown must be positive; the other durations, counts, capacities and rates >= 0 (and
// finite: TokenRefillPerSuccess and SlowdownCost among them); EmergencyThreshold and
// CircuitFailureThreshold within (0, 1]; BudgetReserve within [0, 1]; Weights >= 0, finite,
// with a positive sum; Admit's fields within [0, 1]; Pace's fields >= 0 (Pace.SlowShare and Pace.Easing
// within [0, 1]); with Fleet.Enabled, Fleet.MaxAge positive and Fleet.Lease >= 1. A FailureHorizon of 0, or longer than Window, means the whole window.
func (c Config) Validate() error {
	var errs ConfigError
	if c.Window <= 0 {
		errs.add("Window", "must be positive, got %v", c.Window)
	}
	if c.FailureHorizon < 0 {
		errs.add("FailureHorizon", "must be >= 0, got %v", c.FailureHorizon)
	}
	errs.weights("Weights", c.Weights)
	errs.unit("EmergencyThreshold", c.EmergencyThreshold)
	if c.MaxRetryAttempts < 0 {
		errs.add("MaxRetryAttempts", "must be >= 0, got %d", c.MaxRetryAttempts)
	}
	if c.TokenBucketCapacity < 0 {
		errs.add("TokenBucketCapacity", "must be >= 0, got %d", c.TokenBucketCapacity)
	}
	errs.finite("TokenRefillRate", c.TokenRefillRate)
	if c.TokenSuccessBonus < 0 {
		errs.add("TokenSuccessBonus", "must be >= 0, got %d", c.TokenSuccessBonus)
	}
	errs.finite("TokenRefillPerSuccess", c.TokenRefillPerSuccess)
	errs.finite("SlowdownCost", c.SlowdownCost)
	if math.IsNaN(c.BudgetReserve) || c.BudgetReserve < 0 || c.BudgetReserve > 1 {
		errs.add("BudgetReserve", "must be within [0, 1], got %v", c.BudgetReserve)
	}
	errs.unit("CircuitFailureThreshold", c.CircuitFailureThreshold)
	if c.CircuitSustainedDuration < 0 {
		errs.add("CircuitSustainedDuration", "must be >= 0, got %v", c.CircuitSustainedDuration)
	}
	if c.CircuitMinRequests < 0 {
		errs.add("CircuitMinRequests", "must be >= 0, got %d", c.CircuitMinRequests)
	}
	if c.CircuitCooldown <= 0 {
		errs.add("CircuitCooldown", "must be positive, got %v", c.CircuitCooldown)
	}
	if c.HalfOpenProbes < 0 {
		errs.add("HalfOpenProbes", "must be >= 0, got %d", c.HalfOpenProbes)
	}
	if c.BackoffBaseDelay < 0 {
		errs.add("BackoffBaseDelay", "must be >= 0, got %v", c.BackoffBaseDelay)
	}
	if c.BackoffMaxDelay < 0 {
		errs.add("BackoffMaxDelay", "must be >= 0, got %v", c.BackoffMaxDelay)
	}
	if c.QueueCapacity < 0 {
		errs.add("QueueCapacity", "must be >= 0, got %d", c.QueueCapacity)
	}
	if c.BaselineLatency < 0 {
		errs.add("BaselineLatency", "must be >= 0, got %v", c.BaselineLatency)
	}
	if c.RecoveryRamp < 0 {
		errs.add("RecoveryRamp", "must be >= 0, got %v", c.RecoveryRamp)
	}
	c.Admit.validate(&errs)
	c.Pace.validate(&errs)
	c.Fleet.validate(errs.add)
	return errs.err()
}
