package strategy

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// BudgetConfig configures the AWS SDK standard-mode retry quota. The defaults are the SDKs'
// before their 2026 update.
type BudgetConfig struct {
	Quota            int           // capacity and initial value of the retry quota (INITIAL_RETRY_TOKENS, default 500); >= 0
	RetryCost        int           // quota a retry takes (RETRY_COST, default 5); >= 0
	TimeoutCost      int           // quota a retry after a timeout takes (RETRY_TIMEOUT_COST, default 10); >= 0
	ThrottledCost    int           // quota a retry after a 429 takes (default 5, the same as RetryCost before 2026); >= 0
	NoRetryIncrement int           // quota a successful original attempt gives back (NO_RETRY_INCREMENT, default 1); >= 0
	BackoffBase      time.Duration // delay of retry i is min(MaxBackoff, U[0,1) * BackoffBase * 2^i) (default 1s); > 0
	MaxBackoff       time.Duration // MAX_BACKOFF (default 20s); >= BackoffBase
	MaxRetries       int           // retries after the original attempt (default 3, i.e. max_attempts 4); >= 0
}

// DefaultBudgetConfig returns the AWS SDK standard-mode defaults (pre-2026): quota 500, cost 5,
// 10 after a timeout, +1 for a successful original, backoff U[0,1)*2^i s capped at 20 s.
func DefaultBudgetConfig() BudgetConfig {
	return BudgetConfig{
		Quota:            500,
		RetryCost:        5,
		TimeoutCost:      10,
		ThrottledCost:    5,
		NoRetryIncrement: 1,
		BackoffBase:      time.Second,
		MaxBackoff:       20 * time.Second,
		MaxRetries:       DefaultMaxRetries,
	}
}

// BudgetConfig2026 returns the variant of the 2026 update of the AWS SDKs' standard mode, as
// spec/simulation.md summarises it: a retry costs 14 after a transient error (timeouts
// included) and 5 after throttling (429), and the backoff base is 50 ms; the rest is unchanged.
// The catalog's "budget" uses DefaultBudgetConfig; this variant is for NewBudget.
func BudgetConfig2026() BudgetConfig {
	c := DefaultBudgetConfig()
	c.RetryCost, c.TimeoutCost, c.ThrottledCost = 14, 14, 5
	c.BackoffBase = 50 * time.Millisecond
	return c
}

// Validate reports the first field out of range, naming it.
func (c BudgetConfig) Validate() error {
	switch {
	case c.Quota < 0:
		return fmt.Errorf("budget: Quota must be >= 0, got %d", c.Quota)
	case c.RetryCost < 0:
		return fmt.Errorf("budget: RetryCost must be >= 0, got %d", c.RetryCost)
	case c.TimeoutCost < 0:
		return fmt.Errorf("budget: TimeoutCost must be >= 0, got %d", c.TimeoutCost)
	case c.ThrottledCost < 0:
		return fmt.Errorf("budget: ThrottledCost must be >= 0, got %d", c.ThrottledCost)
	case c.NoRetryIncrement < 0:
		return fmt.Errorf("budget: NoRetryIncrement must be >= 0, got %d", c.NoRetryIncrement)
	case c.BackoffBase <= 0:
		return fmt.Errorf("budget: BackoffBase must be > 0, got %v", c.BackoffBase)
	case c.MaxBackoff < c.BackoffBase:
		return fmt.Errorf("budget: MaxBackoff must be >= BackoffBase (%v), got %v", c.BackoffBase, c.MaxBackoff)
	case c.MaxRetries < 0:
		return fmt.Errorf("budget: MaxRetries must be >= 0, got %d", c.MaxRetries)
	}
	return nil
}

// Budget is the AWS SDK "standard" retry mode: a client-wide retry quota that retries drain and
// successes refill, so a client stops retrying once most of its recent retries have failed.
//
// A retry takes RetryCost from the quota (TimeoutCost if the failed attempt timed out,
// ThrottledCost if it was answered 429); with
// less quota left than the cost, the verdict is Reject "BUDGET_EXHAUSTED" and nothing is taken.
// A successful original attempt gives back NoRetryIncrement; a successful retry gives back what
// it cost. The quota never exceeds Quota. Delays: min(MaxBackoff, U[0,1) * BackoffBase * 2^i),
// i the 0-based index of the failed attempt (botocore's ExponentialBackoff). Every attempt is
// admitted.
//
// The SDK remembers the cost on each request; a strategy only sees retry indices, so Budget
// remembers the latest cost paid for each retry index and refunds that when a retry with that
// index succeeds. Exact when all failures at an index are of one kind (all timeouts, or none);
// an approximation when outcomes of different costs mix.
//
// Source: AWS SDKs and Tools Reference Guide, "Retry behavior" (standard mode); botocore
// retries/standard.py (RetryQuotaChecker, ExponentialBackoff); AWS SDK for Java v2
// StandardRetryStrategy.
//
// Not safe for concurrent use.
type Budget struct {
	cfg      BudgetConfig
	rnd      *rand.Rand
	quota    *int // own, or the fleet's (Env.Shared)
	own      int
	lastCost []int // lastCost[i]: what the latest retry with index i paid (i >= 1)
}

func init() {
	register(entry{name: "budget", rank: 60, describe: "AWS SDK standard retry quota (500, cost 5, 10 after a timeout, refund on success) + backoff",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 256, TickNs: 8},
		build:     newBudgetFromEnv})
}

var _ Strategy = (*Budget)(nil)

// newBudgetFromEnv builds the catalog's budget: its own quota, or the fleet's one quota when
// env.Shared is set.
func newBudgetFromEnv(env Env) (Strategy, error) { return newBudgetWith(env, DefaultBudgetConfig()) }

// newBudgetWith builds a budget configured by cfg for env: its own quota, or the fleet's one
// quota when env.Shared is set (the AWS retry quota of budget and aws-adaptive alike).
func newBudgetWith(env Env, cfg BudgetConfig) (*Budget, error) {
	b, err := NewBudget(env.Rand, cfg)
	if err != nil {
		return nil, err
	}
	if env.Shared != nil {
		b.quota = env.Shared.budgetQuota(b.cfg.Quota)
	}
	return b, nil
}

// NewBudget returns a budget strategy with a full quota, drawing its jitter from r. It returns
// an error naming the problem if r is nil or cfg is invalid.
func NewBudget(r *rand.Rand, cfg BudgetConfig) (*Budget, error) {
	if r == nil {
		return nil, errNilRand("budget")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Budget{cfg: cfg, rnd: r, own: cfg.Quota, lastCost: make([]int, cfg.MaxRetries+1)}
	b.quota = &b.own
	return b, nil
}

// Name returns "budget".
func (*Budget) Name() string { return "budget" }

// Quota returns the retry quota left, in 0..Quota.
func (b *Budget) Quota() int { return *b.quota }

// Admit always returns true.
func (*Budget) Admit(Time, Attempt) Admission { return Admission{} }

// Record refills the quota after a success: NoRetryIncrement for an original attempt (retry
// 0), the retry's cost for a retry. Failures change nothing (the cost was paid by Decide).
func (b *Budget) Record(_ Time, a Attempt, o Outcome, _ time.Duration) {
	if o != Success {
		return
	}
	refund := b.cfg.NoRetryIncrement
	if retry := clampRetry(a.Retry); retry > 0 {
		refund = b.cfg.RetryCost
		if retry < len(b.lastCost) && b.lastCost[retry] > 0 {
			refund = b.lastCost[retry]
		}
	}
	*b.quota = min(b.cfg.Quota, *b.quota+refund)
}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >=
// MaxRetries, Reject "BUDGET_EXHAUSTED" when the quota cannot pay the retry, and otherwise takes
// the cost and answers Retry after the backoff.
func (b *Budget) Decide(_ Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	if v, ok := precheck(o, retry, b.cfg.MaxRetries); !ok {
		return v
	}
	cost := b.cost(o)
	if *b.quota < cost {
		return Verdict{Action: engine.Reject, Reason: ReasonBudgetExhausted}
	}
	*b.quota -= cost
	b.lastCost[retry+1] = cost
	return retryAfter(b.delay(retry))
}

// cost is what a retry after outcome o takes from the quota.
func (b *Budget) cost(o Outcome) int {
	switch o {
	case Timeout:
		return b.cfg.TimeoutCost
	case Throttled:
		return b.cfg.ThrottledCost
	}
	return b.cfg.RetryCost
}

// delay is min(MaxBackoff, U[0,1) * BackoffBase * 2^i).
func (b *Budget) delay(i int) time.Duration {
	d := b.rnd.Float64() * float64(b.cfg.BackoffBase) * pow(2, i)
	return time.Duration(min(d, float64(b.cfg.MaxBackoff)))
}

// SetPending does nothing.
func (*Budget) SetPending(int) {}
