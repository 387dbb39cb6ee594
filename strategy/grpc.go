package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// GRPCConfig configures gRPC's retry policy and retry throttling (the service config's
// retryPolicy and retryThrottling).
type GRPCConfig struct {
	MaxTokens         float64       // retryThrottling.maxTokens (default 10); in (0, 1000]
	TokenRatio        float64       // retryThrottling.tokenRatio, tokens per success (default 0.1); > 0, 3 decimals kept
	MaxAttempts       int           // retryPolicy.maxAttempts, original included (default 4 = 3 retries); >= 1
	InitialBackoff    time.Duration // retryPolicy.initialBackoff (default 100ms); > 0
	MaxBackoff        time.Duration // retryPolicy.maxBackoff (default 1s); >= InitialBackoff
	BackoffMultiplier float64       // retryPolicy.backoffMultiplier (default 2); >= 1
}

// DefaultGRPCConfig returns maxTokens 10 and tokenRatio 0.1 (the values of gRFC A6's example and
// of most deployments), maxAttempts 4 (3 retries, like the other baselines) and the backoff of
// A6's example retry policy: initialBackoff 100 ms, multiplier 2, maxBackoff 1 s. gRPC has no
// built-in defaults for these: a service config must set them.
func DefaultGRPCConfig() GRPCConfig {
	return GRPCConfig{
		MaxTokens:         10,
		TokenRatio:        0.1,
		MaxAttempts:       DefaultMaxRetries + 1,
		InitialBackoff:    100 * time.Millisecond,
		MaxBackoff:        time.Second,
		BackoffMultiplier: 2,
	}
}

// Validate reports the first field out of range, naming it.
func (c GRPCConfig) Validate() error {
	switch {
	case !(c.MaxTokens > 0 && c.MaxTokens <= 1000):
		return fmt.Errorf("grpc: MaxTokens must be in (0, 1000], got %v", c.MaxTokens)
	case !(c.TokenRatio >= 0.001) || math.IsInf(c.TokenRatio, 0):
		return fmt.Errorf("grpc: TokenRatio must be >= 0.001 and finite, got %v", c.TokenRatio)
	case c.MaxAttempts < 1:
		return fmt.Errorf("grpc: MaxAttempts must be >= 1, got %d", c.MaxAttempts)
	case c.InitialBackoff <= 0:
		return fmt.Errorf("grpc: InitialBackoff must be > 0, got %v", c.InitialBackoff)
	case c.MaxBackoff < c.InitialBackoff:
		return fmt.Errorf("grpc: MaxBackoff must be >= InitialBackoff (%v), got %v", c.InitialBackoff, c.MaxBackoff)
	case !(c.BackoffMultiplier >= 1) || math.IsInf(c.BackoffMultiplier, 0):
		return fmt.Errorf("grpc: BackoffMultiplier must be >= 1 and finite, got %v", c.BackoffMultiplier)
	}
	return nil
}

// GRPC is gRPC's retry policy with retry throttling. The client holds tokens, starting at
// MaxTokens: each failed attempt with a retryable outcome takes 1 (not below 0), each success
// adds TokenRatio (not above MaxTokens); a BadRequest (a non-retryable status) changes nothing.
// While tokens <= MaxTokens/2 the client does not retry (Reject "RETRY_THROTTLED"). Tokens are
// kept in thousandths, as grpc-java does, so 0.1 steps add up exactly. Retry n (after the
// failure of attempt n, 0 = the original) waits U[0, min(InitialBackoff*BackoffMultiplier^n,
// MaxBackoff)). Every attempt is admitted.
//
// Source: gRFC A6 "gRPC Retry Design" (Retry Throttling; Exponential Backoff), grpc-java
// internal/RetriableStream.Throttle.
//
// Not safe for concurrent use.
type GRPC struct {
	cfg       GRPCConfig
	rnd       *rand.Rand
	max       int64 // thousandths
	ratio     int64 // thousandths
	threshold int64 // thousandths: max/2
	tokens    int64 // thousandths
}

func init() {
	register(entry{name: "grpc", rank: 80, describe: "gRPC retry throttling: 10 tokens, -1 per failure, +0.1 per success, no retry at or below 5",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 256, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return NewGRPC(env.Rand, DefaultGRPCConfig()) }})
}

var _ Strategy = (*GRPC)(nil)

// NewGRPC returns a gRPC retry policy with a full token bucket, drawing its jitter from r. It
// returns an error naming the problem if r is nil or cfg is invalid.
func NewGRPC(r *rand.Rand, cfg GRPCConfig) (*GRPC, error) {
	if r == nil {
		return nil, errNilRand("grpc")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	maxT := int64(math.Round(cfg.MaxTokens * 1000))
	return &GRPC{
		cfg: cfg, rnd: r,
		max: maxT, ratio: int64(math.Round(cfg.TokenRatio * 1000)), threshold: maxT / 2, tokens: maxT,
	}, nil
}

// Name returns "grpc".
func (*GRPC) Name() string { return "grpc" }

// Tokens returns the tokens left, in [0, MaxTokens].
func (g *GRPC) Tokens() float64 { return float64(g.tokens) / 1000 }

// Admit always returns true.
func (*GRPC) Admit(Time, Attempt) Admission { return Admission{} }

// Record adds TokenRatio after a success and takes 1 after a retryable failure.
func (g *GRPC) Record(_ Time, _ Attempt, o Outcome, _ time.Duration) {
	switch {
	case o == Success:
		g.tokens = min(g.max, g.tokens+g.ratio)
	case o.Retryable():
		g.tokens = max(0, g.tokens-1000)
	}
}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >=
// MaxAttempts-1, Reject "RETRY_THROTTLED" while tokens <= MaxTokens/2, and otherwise Retry
// after the backoff.
func (g *GRPC) Decide(_ Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	if v, ok := precheck(o, retry, g.cfg.MaxAttempts-1); !ok {
		return v
	}
	if g.tokens <= g.threshold {
		return Verdict{Action: engine.Reject, Reason: ReasonRetryThrottled}
	}
	return retryAfter(fullJitter(g.rnd, g.cfg.InitialBackoff, g.cfg.MaxBackoff, g.cfg.BackoffMultiplier, retry))
}

// SetPending does nothing.
func (*GRPC) SetPending(int) {}
