package strategy

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// ThrottleConfig configures client-side adaptive throttling.
type ThrottleConfig struct {
	K       float64       // the multiplier of accepts (default 2: the backend may reject half of what it gets before the client throttles); > 0
	Window  time.Duration // history the counts cover (default 2 minutes); > 0
	Buckets int           // buckets of the window (default 60, i.e. 2 s each); >= 1, Window divisible by it
	Backoff BackoffConfig // the retries (default DefaultBackoffConfig())
}

// DefaultThrottleConfig returns the SRE book's K = 2 over 2 minutes (60 buckets of 2 s), with the
// AWS full-jitter backoff for retries.
func DefaultThrottleConfig() ThrottleConfig {
	return ThrottleConfig{K: 2, Window: 2 * time.Minute, Buckets: 60, Backoff: DefaultBackoffConfig()}
}

// Validate reports the first field out of range, naming it.
func (c ThrottleConfig) Validate() error {
	switch {
	case !(c.K > 0): // also rejects NaN
		return fmt.Errorf("throttle: K must be > 0, got %v", c.K)
	case c.Window <= 0:
		return fmt.Errorf("throttle: Window must be > 0, got %v", c.Window)
	case c.Buckets < 1:
		return fmt.Errorf("throttle: Buckets must be >= 1, got %d", c.Buckets)
	case c.Window%time.Duration(c.Buckets) != 0:
		return fmt.Errorf("throttle: Window (%v) must be divisible by Buckets (%d)", c.Window, c.Buckets)
	}
	if err := c.Backoff.Validate(); err != nil {
		return fmt.Errorf("throttle: %w", err)
	}
	return nil
}

// Throttle is Google's client-side adaptive throttling. Over the last Window the client counts
// requests (every attempt it wanted to send, including those it refused itself) and accepts
// (attempts the backend processed: a success, or a 4xx other than 429; not 429, 5xx, timeouts
// or fast failures). Before each attempt, originals included, it refuses locally with
// probability
//
//	p = max(0, (requests - K*accepts) / (requests + 1))
//
// so a backend that accepts little gets little more than K times what it accepts. Retries use
// the AWS full-jitter backoff.
//
// Source: Beyer et al., "Site Reliability Engineering" (O'Reilly, 2016), chapter 21 "Handling
// Overload", section "Client-side throttling".
//
// Not safe for concurrent use.
type Throttle struct {
	cfg    ThrottleConfig
	rnd    *rand.Rand
	window *rolling // [0] requests, [1] accepts
}

func init() {
	register(entry{name: "throttle", rank: 70, describe: "Google SRE adaptive throttling: refuse locally with p = (requests - 2*accepts)/(requests + 1)",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 1400, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return NewThrottle(env.Rand, DefaultThrottleConfig()) }})
}

var _ Strategy = (*Throttle)(nil)

// NewThrottle returns an adaptive throttle with empty history, drawing from r. It returns an
// error naming the problem if r is nil or cfg is invalid.
func NewThrottle(r *rand.Rand, cfg ThrottleConfig) (*Throttle, error) {
	if r == nil {
		return nil, errNilRand("throttle")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Throttle{cfg: cfg, rnd: r, window: newRolling(cfg.Buckets, cfg.Window/time.Duration(cfg.Buckets))}, nil
}

// Name returns "throttle".
func (*Throttle) Name() string { return "throttle" }

// Probability returns the local rejection probability p over the window ending at now, in
// [0, 1). It moves the window to now (older buckets expire) but counts nothing.
func (t *Throttle) Probability(now Time) float64 {
	t.window.advance(now)
	return t.probability()
}

// probability is p over the window as of its last move. A numerator <= 0 (the backend accepts
// at least 1/K of the requests: the common case) gives 0 without the division, the value
// max(0, x/(requests+1)) has then (+0: max orders -0 below +0).
func (t *Throttle) probability() float64 {
	req, acc := t.window.totals()
	x := float64(req) - t.cfg.K*float64(acc)
	if x <= 0 {
		return 0
	}
	return x / float64(req+1)
}

// Admit counts the attempt as a request and refuses it with probability p (one draw from the
// random source, made only when p > 0): engine.Reject, reason ADAPTIVE_THROTTLE. The window is
// moved to now once, for p and the count.
func (t *Throttle) Admit(now Time, _ Attempt) Admission {
	if now >= t.window.next { // advance, inlined
		t.window.roll(now)
	}
	p := t.probability()
	t.window.bump(1, 0)
	if p == 0 || t.rnd.Float64() >= p {
		return Admission{}
	}
	return Admission{Action: engine.Reject, Reason: ReasonAdaptiveThrottle}
}

// Record counts a success or a BadRequest as an accept; other outcomes add nothing (the
// attempt was counted as a request by Admit).
func (t *Throttle) Record(now Time, _ Attempt, o Outcome, _ time.Duration) {
	if o == Success || o == BadRequest {
		t.window.add(now, 0, 1)
	}
}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >=
// MaxRetries, and otherwise Retry after the full-jitter backoff (Admit may still refuse it).
func (t *Throttle) Decide(_ Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	if v, ok := precheck(o, retry, t.cfg.Backoff.MaxRetries); !ok {
		return v
	}
	return retryAfter(t.cfg.Backoff.delay(t.rnd, retry))
}

// SetPending does nothing.
func (*Throttle) SetPending(int) {}
