package strategy

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// FinagleConfig configures Finagle's retry budget and MethodBuilder's retries.
type FinagleConfig struct {
	TTL              time.Duration // how long a deposit lasts (RetryBudget's ttl, default 10s); 1s..60s, a whole number of seconds
	MinRetriesPerSec int           // the reserve, retries per second allowed whatever the traffic (default 10); >= 0
	PercentCanRetry  float64       // retries allowed per request deposited (default 0.2); 0..1000
	MaxRetries       int           // retries after the original (MethodBuilder's default 2); >= 0
	BackoffStart     time.Duration // the first retry's backoff (RetryPolicy.tries: Backoff.decorrelatedJittered(5ms, 200ms)); > 0
	BackoffMax       time.Duration // the largest backoff (200ms); >= BackoffStart
}

// DefaultFinagleConfig returns Finagle's defaults: RetryBudget() (10 s ttl, 10 retries a second
// in reserve, 20% of the requests), MethodBuilder's 2 retries, RetryPolicy.tries' decorrelated
// jitter from 5 ms to 200 ms.
func DefaultFinagleConfig() FinagleConfig {
	return FinagleConfig{TTL: 10 * time.Second, MinRetriesPerSec: 10, PercentCanRetry: 0.2, MaxRetries: 2,
		BackoffStart: 5 * time.Millisecond, BackoffMax: 200 * time.Millisecond}
}

// Validate reports the first field out of range, naming it.
func (c FinagleConfig) Validate() error {
	switch {
	case c.TTL < time.Second || c.TTL > time.Minute || c.TTL%time.Second != 0:
		return fmt.Errorf("finagle: TTL must be a whole number of seconds in 1s..60s, got %v", c.TTL)
	case c.MinRetriesPerSec < 0:
		return fmt.Errorf("finagle: MinRetriesPerSec must be >= 0, got %d", c.MinRetriesPerSec)
	case !(c.PercentCanRetry >= 0 && c.PercentCanRetry <= finagleScale):
		return fmt.Errorf("finagle: PercentCanRetry must be in 0..1000, got %v", c.PercentCanRetry)
	case c.MaxRetries < 0:
		return fmt.Errorf("finagle: MaxRetries must be >= 0, got %d", c.MaxRetries)
	case c.BackoffStart <= 0:
		return fmt.Errorf("finagle: BackoffStart must be > 0, got %v", c.BackoffStart)
	case c.BackoffMax < c.BackoffStart:
		return fmt.Errorf("finagle: BackoffMax must be >= BackoffStart (%v), got %v", c.BackoffStart, c.BackoffMax)
	}
	return nil
}

// finagleScale is TokenRetryBudget's ScaleFactor: a deposit is 1000 tokens, so that
// PercentCanRetry needs no floating point.
const finagleScale = 1000

// Finagle is Finagle's RetryBudget behind MethodBuilder's retries. Every original deposits 1000
// tokens in a leaky bucket whose deposits expire after TTL (a WindowedAdder of 10 slices); a
// retry withdraws 1000 / PercentCanRetry (5000: 20% of the requests), and the bucket always
// counts a reserve of MinRetriesPerSec x TTL withdrawals on top (100 retries), so a client
// retries about 20% of its last 10 s of requests plus 10 a second. A retry the bucket cannot pay
// is refused (BUDGET_EXHAUSTED). Up to MaxRetries retries, after a decorrelated jitter backoff:
// the first after BackoffStart, each next one uniform in [previous, 3 x previous), capped at
// BackoffMax (drawn afresh for the retry's index: the same distribution as one request's chain).
//
// Every retryable outcome is retried, as by a ResponseClassifier that marks them retryable
// (Finagle's default classifier retries only failures it knows are safe to requeue; its
// RequeueFilter, which requeues those through the same budget, is not modelled apart). Finagle
// has no priorities.
//
// Source: twitter/finagle finagle-core/src/main/scala/com/twitter/finagle/service/RetryBudget.scala
// (commit 0e26b576), finagle/util/TokenBucket.scala (newLeakyBucket), client/MethodBuilderRetry.scala
// (DefaultMaxRetries = 2), service/RetryPolicy.scala (tries: decorrelatedJittered(5.millis,
// 200.millis)).
//
// Not safe for concurrent use.
type Finagle struct {
	cfg      FinagleConfig
	rnd      *rand.Rand
	bucket   *rolling // [0] the WindowedAdder's sum of deposits and withdrawals
	withdraw int64    // tokens a retry takes
	reserve  int64    // tokens the bucket always counts on top
	deposit  int64    // tokens an original puts in
}

func init() {
	register(entry{name: "finagle", rank: 120,
		describe:  "Finagle retry budget: retries up to 20% of the last 10s of requests plus 10/s, 2 retries, jittered backoff",
		footprint: Footprint{Retries: 2, MaxDelay: 200 * time.Millisecond, ClientBytes: 512, TickNs: 10},
		build:     func(env Env) (Strategy, error) { return NewFinagle(env.Rand, DefaultFinagleConfig()) }})
}

var _ Strategy = (*Finagle)(nil)

// NewFinagle returns a Finagle client with an empty budget (its reserve only), drawing its
// backoff jitter from r. It returns an error naming the problem if r is nil or cfg is invalid.
func NewFinagle(r *rand.Rand, cfg FinagleConfig) (*Finagle, error) {
	if r == nil {
		return nil, errNilRand("finagle")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &Finagle{cfg: cfg, rnd: r, bucket: newRolling(10, cfg.TTL/10)}
	switch {
	case cfg.PercentCanRetry == 0: // minRetries only: every retry costs 1, requests earn nothing
		f.withdraw = 1
	default:
		f.deposit = finagleScale
		f.withdraw = int64(finagleScale / cfg.PercentCanRetry)
	}
	f.reserve = int64(cfg.MinRetriesPerSec) * int64(cfg.TTL/time.Second) * f.withdraw
	return f, nil
}

// Name returns "finagle".
func (*Finagle) Name() string { return "finagle" }

// Balance returns the retries the budget could pay at now (RetryBudget.balance).
func (f *Finagle) Balance(now Time) int64 {
	n, _ := f.bucket.sums(now)
	return (n + f.reserve) / f.withdraw
}

// Admit admits every attempt; an original deposits in the budget.
func (f *Finagle) Admit(now Time, a Attempt) Admission {
	if a.Retry <= 0 && f.deposit > 0 {
		f.bucket.add(now, f.deposit, 0)
	}
	return Admission{}
}

// Record does nothing: the budget counts requests and retries, not outcomes.
func (*Finagle) Record(Time, Attempt, Outcome, time.Duration) {}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded after MaxRetries
// retries, BUDGET_EXHAUSTED when the bucket cannot pay a withdrawal, and otherwise withdraws and
// retries after the decorrelated jitter backoff.
func (f *Finagle) Decide(now Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	if v, ok := precheck(o, retry, f.cfg.MaxRetries); !ok {
		return v
	}
	n, _ := f.bucket.sums(now)
	if n+f.reserve < f.withdraw {
		return Verdict{Action: engine.Reject, Reason: ReasonBudgetExhausted}
	}
	f.bucket.bump(-f.withdraw, 0)
	return retryAfter(f.backoff(retry))
}

// backoff is the decorrelated jitter backoff before retry index+1: BackoffStart, then each
// next one uniform in [previous, 3 x previous), capped at BackoffMax.
func (f *Finagle) backoff(index int) time.Duration {
	d, ceiling := f.cfg.BackoffStart, f.cfg.BackoffMax
	for range index {
		upper := ceiling
		if d < ceiling/3 {
			upper = 3 * d
		}
		if r := upper - d; r > 0 {
			d += time.Duration(f.rnd.Int64N(int64(r)))
		}
		if d >= ceiling {
			return ceiling
		}
	}
	return d
}

// SetPending does nothing.
func (*Finagle) SetPending(int) {}
