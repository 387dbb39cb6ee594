package strategy

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// BackoffConfig configures exponential backoff with full jitter.
type BackoffConfig struct {
	Base       time.Duration // ceiling of the first retry's delay (default 100ms); > 0
	Cap        time.Duration // largest ceiling of any delay (default 20s); >= Base
	MaxRetries int           // retries after the original attempt (default 3); >= 0
}

// DefaultBackoffConfig returns the AWS SDK defaults (the AWS SDK for Java's
// SDK_DEFAULT_BASE_DELAY of 100 ms and SDK_DEFAULT_MAX_BACKOFF of 20 s) and 3 retries.
func DefaultBackoffConfig() BackoffConfig {
	return BackoffConfig{Base: 100 * time.Millisecond, Cap: 20 * time.Second, MaxRetries: DefaultMaxRetries}
}

// Validate reports the first field out of range, naming it.
func (c BackoffConfig) Validate() error {
	switch {
	case c.Base <= 0:
		return fmt.Errorf("backoff: Base must be > 0, got %v", c.Base)
	case c.Cap < c.Base:
		return fmt.Errorf("backoff: Cap must be >= Base (%v), got %v", c.Base, c.Cap)
	case c.MaxRetries < 0:
		return fmt.Errorf("backoff: MaxRetries must be >= 0, got %d", c.MaxRetries)
	}
	return nil
}

// delay draws the delay before retry n+1 (n is the 0-based index of the failed attempt).
func (c BackoffConfig) delay(r *rand.Rand, n int) time.Duration {
	return fullJitter(r, c.Base, c.Cap, 2, n)
}

// Backoff retries with exponential backoff and full jitter: after the failure of attempt n
// (0 = the original) it waits U[0, min(Cap, Base*2^n)) and retries, up to MaxRetries times.
// It admits every attempt. This is the article's Baseline A and the AWS recommendation.
//
// Source: Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog (2015), "Full
// Jitter"; defaults from the AWS SDK for Java (PredefinedBackoffStrategies, 100 ms / 20 s).
//
// Backoff spreads retries in time but does not reduce their number: against an open-loop
// fleet it barely changes amplification. Not safe for concurrent use (it draws from its Rand).
type Backoff struct {
	cfg BackoffConfig
	rnd *rand.Rand
}

func init() {
	register(entry{name: "backoff", rank: 40, describe: "exponential backoff with full jitter (base 100ms, cap 20s), up to 3 retries (AWS)",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 128, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return NewBackoff(env.Rand, DefaultBackoffConfig()) }})
}

var _ Strategy = (*Backoff)(nil)

// NewBackoff returns a backoff strategy drawing its jitter from r. It returns an error naming
// the problem if r is nil or cfg is invalid.
func NewBackoff(r *rand.Rand, cfg BackoffConfig) (*Backoff, error) {
	if r == nil {
		return nil, errNilRand("backoff")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Backoff{cfg: cfg, rnd: r}, nil
}

// Name returns "backoff".
func (*Backoff) Name() string { return "backoff" }

// Admit always returns true.
func (*Backoff) Admit(Time, Attempt) Admission { return Admission{} }

// Record does nothing: backoff keeps no state beyond its random source.
func (*Backoff) Record(Time, Attempt, Outcome, time.Duration) {}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >=
// MaxRetries, and otherwise Retry after U[0, min(Cap, Base*2^retry)).
func (b *Backoff) Decide(_ Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	if v, ok := precheck(o, retry, b.cfg.MaxRetries); !ok {
		return v
	}
	return retryAfter(b.cfg.delay(b.rnd, retry))
}

// SetPending does nothing.
func (*Backoff) SetPending(int) {}
