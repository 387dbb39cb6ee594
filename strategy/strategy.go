// Package strategy holds the retry strategies that the simulator compares and live mode uses,
// each behind one interface and each registered from its own file (Names lists the catalog).
// A strategy is the retry state of one client; it never reads the wall clock (time is passed
// in) and draws randomness only from the *rand.Rand it is given, so a run is reproducible.
package strategy

import (
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Outcome is how an attempt ended, as the client sees it.
type Outcome int

// The outcomes of an attempt.
const (
	Success     Outcome = iota // 2xx
	Timeout                    // no answer within the per-attempt timeout
	FastFail                   // connection refused, or 503 from a full queue
	ServerError                // 5xx
	Throttled                  // 429
	BadRequest                 // 4xx other than 429: not retryable
)

// Retryable reports whether a failed attempt with this outcome may be retried.
func (o Outcome) Retryable() bool { return o != Success && o != BadRequest }

// Verdict is a strategy's answer for a failed attempt.
type Verdict struct {
	Retry  bool          // retry after Delay
	Delay  time.Duration // wait before the retry (0 = at once)
	Action engine.Action // for the metrics: Retry, Reject, CircuitOpen, NotRetryable, MaxRetriesExceeded
	Reason string        // machine-readable, e.g. "SHED_LOW_PRIORITY", "BUDGET_EXHAUSTED"
}

// Strategy is the retry logic of one client. It is not safe for concurrent use unless the
// implementation says so; the simulator drives each client from one goroutine.
type Strategy interface {
	// Name is the strategy's catalog name, e.g. "cortex".
	Name() string
	// Admit is asked before any attempt (original: retry 0, or retry n) is sent. False means
	// the client fails the attempt locally without sending it (open breaker, adaptive throttle).
	Admit(now time.Time, priority, retry int) bool
	// Record reports the outcome of an attempt that was sent, with its latency.
	Record(now time.Time, o Outcome, latency time.Duration, retry int)
	// Decide is asked after a failed attempt whose retry index was retry (0 = the original):
	// should it be retried, and when?
	Decide(now time.Time, priority, retry int, o Outcome) Verdict
	// SetPending tells the strategy how many retries its client has waiting (cortex uses it as Q).
	SetPending(n int)
}

// Env is what a strategy is built with: the clock it shares with its client (virtual in the
// simulator, wall clock in live mode) and its own seeded random source.
type Env struct {
	Clock engine.Clock
	Rand  *rand.Rand
	// Clients is the size of the fleet the client belongs to (0 or 1: alone). Strategies built on
	// a CORTEX engine give each client its share of the fleet's budget (engine.Config.Split).
	Clients int
	// Cortex, when set, is the engine configuration of the cortex strategy, used as is (nil:
	// engine.DefaultConfig() split over Clients). Clock is set to Env.Clock either way.
	Cortex *engine.Config
	// Fleet, when set, makes the client's CORTEX engine a member of a fleet (its
	// engine.Config.Fleet): the caller syncs it with a fleet store (package fleet). Strategies
	// without an engine ignore it.
	Fleet *engine.FleetConfig
	// Shared, when set, is the state the clients of one fleet share when their budget is
	// shared: the budget strategy's clients then draw on one AWS quota instead of one each.
	// Strategies with no budget ignore it (grpc's tokens are a per-channel throttle, and stay
	// per client).
	Shared *Shared
}

// Shared holds the retry budget the clients of one fleet share (a scenario's budget =
// "shared"): give the same *Shared to every client's Env. The zero value is ready to use. Not
// safe for concurrent use: the simulator drives all its clients from one goroutine.
type Shared struct {
	quota *int
}

// budgetQuota returns the fleet's AWS quota, full (quota) at its first use.
func (s *Shared) budgetQuota(quota int) *int {
	if s.quota == nil {
		s.quota = &quota
	}
	return s.quota
}
