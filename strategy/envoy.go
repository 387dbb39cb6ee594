package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// EnvoyConfig configures Envoy's admission control filter and the cluster's retry budget.
type EnvoyConfig struct {
	SamplingWindow    time.Duration // admission control's history (sampling_window, default 30s), kept in 1 s buckets; a whole number of seconds >= 1s
	SuccessRate       float64       // sr_threshold (default 0.95); in (0, 1]
	Aggression        float64       // aggression (default 1; values under 1 count as 1)
	RPSThreshold      float64       // rps_threshold: no rejection under this request rate, per s (default 0); >= 0
	MaxRejection      float64       // max_rejection_probability (default 0.8); in [0, 1]
	BudgetPercent     float64       // the retry budget's budget_percent, % of the active requests (default 20); >= 0
	MinRetries        int           // min_retry_concurrency (default 3); >= 0
	NumRetries        int           // the route's retry_policy num_retries (default 1); >= 0
	BackoffBase       time.Duration // base_interval (default 25ms); > 0
	BackoffMax        time.Duration // max_interval (default 10 x base_interval); >= BackoffBase
	MaxBackoffPending time.Duration // how long a decided retry counts against the budget if its client never sends it (default 1s past its due time); > 0
}

// DefaultEnvoyConfig returns Envoy's defaults: admission control over 30 s with a 95% success
// threshold, aggression 1, no rps threshold, at most 80% rejected; a retry budget of 20% of the
// active requests, at least 3 concurrent retries; the route's default 1 retry after a jittered
// backoff from 25 ms (at most 250 ms).
func DefaultEnvoyConfig() EnvoyConfig {
	return EnvoyConfig{SamplingWindow: 30 * time.Second, SuccessRate: 0.95, Aggression: 1, MaxRejection: 0.8,
		BudgetPercent: 20, MinRetries: 3, NumRetries: 1, BackoffBase: 25 * time.Millisecond,
		BackoffMax: 250 * time.Millisecond, MaxBackoffPending: time.Second}
}

// Validate reports the first field out of range, naming it.
func (c EnvoyConfig) Validate() error {
	switch {
	case c.SamplingWindow < time.Second || c.SamplingWindow%time.Second != 0:
		return fmt.Errorf("envoy: SamplingWindow must be a whole number of seconds >= 1s, got %v", c.SamplingWindow)
	case !(c.SuccessRate > 0 && c.SuccessRate <= 1):
		return fmt.Errorf("envoy: SuccessRate must be in (0, 1], got %v", c.SuccessRate)
	case math.IsNaN(c.Aggression) || math.IsInf(c.Aggression, 0):
		return fmt.Errorf("envoy: Aggression must be a number, got %v", c.Aggression)
	case !(c.RPSThreshold >= 0) || math.IsInf(c.RPSThreshold, 0):
		return fmt.Errorf("envoy: RPSThreshold must be >= 0 and finite, got %v", c.RPSThreshold)
	case !(c.MaxRejection >= 0 && c.MaxRejection <= 1):
		return fmt.Errorf("envoy: MaxRejection must be in [0, 1], got %v", c.MaxRejection)
	case !(c.BudgetPercent >= 0) || math.IsInf(c.BudgetPercent, 0):
		return fmt.Errorf("envoy: BudgetPercent must be >= 0 and finite, got %v", c.BudgetPercent)
	case c.MinRetries < 0:
		return fmt.Errorf("envoy: MinRetries must be >= 0, got %d", c.MinRetries)
	case c.NumRetries < 0:
		return fmt.Errorf("envoy: NumRetries must be >= 0, got %d", c.NumRetries)
	case c.BackoffBase <= 0:
		return fmt.Errorf("envoy: BackoffBase must be > 0, got %v", c.BackoffBase)
	case c.BackoffMax < c.BackoffBase:
		return fmt.Errorf("envoy: BackoffMax must be >= BackoffBase (%v), got %v", c.BackoffBase, c.BackoffMax)
	case c.MaxBackoffPending <= 0:
		return fmt.Errorf("envoy: MaxBackoffPending must be > 0, got %v", c.MaxBackoffPending)
	}
	return nil
}

// Envoy is an Envoy sidecar in front of the client: the admission control HTTP filter on every
// request, and the router's retries under the cluster's retry budget.
//
// Admission control (on originals: the filter sees a request once, the router retries below
// it): over the last SamplingWindow it counts the requests it let through and those that
// succeeded (an answer under 500, so a 429 or a 4xx is a success, a timeout, a refused
// connection or a 5xx a failure; a request's outcome is its last attempt's), and refuses a new
// request locally with probability
//
//	p = min(MaxRejection, max(0, (n - s / SuccessRate) / (n + 1))^(1 / Aggression))
//
// (ADAPTIVE_THROTTLE), unless the request rate is under RPSThreshold. Refused requests are not
// counted, so p falls back once the service answers again.
//
// The retry budget: a retry may start only while the retries active (decided, in their backoff
// or in flight) are fewer than max(BudgetPercent% x the attempts in flight, MinRetries)
// (otherwise BUDGET_EXHAUSTED, Envoy's upstream_rq_retry_overflow); the route allows NumRetries
// retries, each after U[0, min(BackoffBase x 2^n, BackoffMax)). A retry the client drops (its
// deadline) stops counting MaxBackoffPending after it was due.
//
// Every retryable outcome is retried, as with retry_on "5xx,reset,connect-failure" and 429 among
// retriable_status_codes. The budget has thresholds per RoutingPriority (DEFAULT, HIGH); the
// scenario's priorities all map to DEFAULT.
//
// Source: envoyproxy/envoy source/extensions/filters/http/admission_control/admission_control.cc,
// thread_local_controller.cc (ab02e201), api/.../admission_control/v3/admission_control.proto
// (292030a3); source/common/upstream/resource_manager_impl.h (RetryBudgetImpl, 01c2c1fa),
// source/common/router/retry_state_impl.cc (retries().inc() when a retry is scheduled, dec() at
// the next decision), api/envoy/config/cluster/v3/circuit_breaker.proto; the route's
// retry_policy (num_retries 1, base_interval 25 ms, max_interval 10 x base).
//
// Not safe for concurrent use.
type Envoy struct {
	cfg    EnvoyConfig
	rnd    *rand.Rand
	window *rolling // [0] requests, [1] successes

	active   int     // attempts in flight (admitted, not yet recorded)
	inflight int     // retries in flight
	backoff  []Time  // when each decided retry not yet sent is due, a min-heap
	exponent float64 // 1 / aggression
}

func init() {
	register(entry{name: "envoy", rank: 110,
		describe:  "Envoy admission control (refuse with p = (n - s/0.95)/(n + 1), 30s) + retry budget (20% of active requests, min 3), 1 retry",
		footprint: Footprint{Retries: 1, MaxDelay: 250 * time.Millisecond, ClientBytes: 896, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return NewEnvoy(env.Rand, DefaultEnvoyConfig()) }})
}

var _ Strategy = (*Envoy)(nil)

// NewEnvoy returns an Envoy with an empty history, drawing from r. It returns an error naming
// the problem if r is nil or cfg is invalid.
func NewEnvoy(r *rand.Rand, cfg EnvoyConfig) (*Envoy, error) {
	if r == nil {
		return nil, errNilRand("envoy")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := int(cfg.SamplingWindow / time.Second)
	return &Envoy{cfg: cfg, rnd: r, window: newRolling(n, time.Second), exponent: 1 / max(cfg.Aggression, 1)}, nil
}

// Name returns "envoy".
func (*Envoy) Name() string { return "envoy" }

// Probability returns admission control's rejection probability over the window ending at now.
func (e *Envoy) Probability(now Time) float64 {
	e.window.advance(now)
	return e.probability()
}

// probability is p over the window as of its last move.
func (e *Envoy) probability() float64 {
	n, s := e.window.totals()
	if e.cfg.RPSThreshold > 0 && float64(n)/e.cfg.SamplingWindow.Seconds() < e.cfg.RPSThreshold {
		return 0
	}
	x := (float64(n) - float64(s)/e.cfg.SuccessRate) / float64(n+1)
	if x <= 0 {
		return 0
	}
	if e.exponent != 1 {
		x = math.Pow(x, e.exponent)
	}
	return min(e.cfg.MaxRejection, x)
}

// ActiveRetries returns the retries the budget counts as active at now: in flight, or decided
// and in their backoff.
func (e *Envoy) ActiveRetries(now Time) int {
	e.expire(now)
	return e.inflight + len(e.backoff)
}

// Admit refuses an original with admission control's probability (one draw, only when p > 0)
// and admits every retry (the router retries below the filter). An admitted attempt counts in
// flight; a retry's leaves the backoff for the flight.
func (e *Envoy) Admit(now Time, a Attempt) Admission {
	if a.Retry <= 0 {
		e.window.advance(now)
		if p := e.probability(); p > 0 && e.rnd.Float64() < p {
			return Refuse(engine.Reject, ReasonAdaptiveThrottle)
		}
	} else {
		e.expire(now)
		if len(e.backoff) > 0 {
			heapPop(&e.backoff)
		}
		e.inflight++
	}
	e.active++
	return Admission{}
}

// Record ends an attempt in flight; a success (or a 4xx) ends its request, which admission
// control counts.
func (e *Envoy) Record(now Time, a Attempt, o Outcome, _ time.Duration) {
	e.active = max(0, e.active-1)
	if a.Retry > 0 {
		e.inflight = max(0, e.inflight-1)
	}
	if o == Success || o == BadRequest {
		e.window.add(now, 1, 1)
	}
}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded after NumRetries,
// BUDGET_EXHAUSTED when the active retries fill the budget, and otherwise a retry after the
// jittered backoff. A failure that ends its request is counted by admission control, as a
// retry that would start at or after its deadline (the route's timeout would end it).
func (e *Envoy) Decide(now Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	v, ok := precheck(o, retry, e.cfg.NumRetries)
	if ok {
		e.expire(now)
		budget := max(int(e.cfg.BudgetPercent/100*float64(e.active)), e.cfg.MinRetries)
		if e.inflight+len(e.backoff) >= budget {
			v = Verdict{Action: engine.Reject, Reason: ReasonBudgetExhausted}
		} else {
			v = retryAfter(fullJitter(e.rnd, e.cfg.BackoffBase, e.cfg.BackoffMax, 2, retry))
		}
	}
	due := now.Add(v.Delay)
	switch {
	case v.Retry && (a.Deadline == 0 || due < a.Deadline):
		heapPush(&e.backoff, due)
	case o.Retryable(): // the request ends failed: now, or at its deadline
		e.window.add(now, 1, b2i64(o == Throttled))
	}
	return v
}

// expire drops the decided retries due more than MaxBackoffPending ago: their client never sent
// them.
func (e *Envoy) expire(now Time) {
	limit := now.Add(-e.cfg.MaxBackoffPending)
	for len(e.backoff) > 0 && e.backoff[0] < limit {
		heapPop(&e.backoff)
	}
}

// SetPending does nothing.
func (*Envoy) SetPending(int) {}

// b2i64 is 1 for true, 0 for false.
func b2i64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// heapPush adds t to the min-heap h. The entries above t move down into a hole instead of
// being swapped with it: one store a level instead of two. Only the heap's length and least
// entry are ever read, and they do not depend on its shape.
func heapPush(h *[]Time, t Time) {
	s := append(*h, t)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p] <= t {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = t
	*h = s
}

// heapPop removes the earliest time of the min-heap h (not empty). The last entry goes into the
// hole at the root, which moves down to its place: the earlier child is chosen without a branch
// (which child comes first is random, so a branch is mispredicted half the time), and each level
// stores one entry instead of swapping two.
func heapPop(h *[]Time) {
	s := *h
	n := len(s) - 1
	last := s[n]
	s = s[:n]
	*h = s
	if n == 0 {
		return
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n {
			c += int(b2i64(s[c+1] < s[c]))
		}
		if last <= s[c] {
			break
		}
		s[i] = s[c]
		i = c
	}
	s[i] = last
}
