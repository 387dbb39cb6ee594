// Package strategy holds the retry strategies that the simulator compares and live mode uses,
// each behind one interface and each registered from its own file (Names lists the catalog).
// A strategy is the retry state of one client; it never reads the wall clock (time is passed
// in as a Time) and draws randomness only from the *rand.Rand it is given, so a run is
// reproducible.
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
	// Canceled is an admitted attempt that ended without an outcome that says anything about
	// the service: its caller gave up (a canceled context) or it failed with an error no retry
	// can cure (a certificate, a bad header, a body that cannot be sent again). A strategy learns
	// nothing from it and only releases what Admit took (an in-flight slot). The simulator never
	// produces it.
	Canceled
)

// Retryable reports whether a failed attempt with this outcome may be retried: Timeout,
// FastFail, ServerError and Throttled.
func (o Outcome) Retryable() bool { return o >= Timeout && o <= Throttled }

// Time is an instant as strategies see it: nanoseconds on the caller's monotonic clock since an
// origin the caller fixes (the simulator's t = 0, the creation of a cortexhttp.Transport; see
// Epoch). Only differences and order mean anything: a strategy never turns a Time into a date.
// An integer rather than a time.Time so that the simulator's millions of calls compare and
// subtract plain numbers. The zero value is the origin.
type Time int64

// Add returns t + d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t - u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Attempt is what a strategy is told about the attempt it is asked about and the request it
// belongs to. A value of a few words, passed by value.
type Attempt struct {
	// Priority is the request's priority, 0 (lowest) to 10 (highest).
	Priority int
	// Retry is the attempt's index: 0 for the original, n for the n-th retry (a negative index
	// counts as 0).
	Retry int
	// Deadline is when the request's caller gives up, absolute (the request's arrival plus its
	// deadline in the simulator, the context's deadline in cortexhttp); 0 when it has none.
	Deadline Time
	// Park says the client wakes the attempts it parks (Waker): Admit may then park the attempt
	// (Admission.Parked) instead of holding it for a set Wait.
	Park bool
	// Ask says how the attempt comes to ask Admit: engine.AskNew the first time, AskAgain after
	// a hold's Wait, AskWoken when Wake released it, AskExpired when it was parked and its Wait
	// ended first.
	Ask engine.Ask
}

// Remaining returns the time left before a's deadline at now (negative once it has passed), and
// false when a has no deadline.
func (a Attempt) Remaining(now Time) (time.Duration, bool) {
	if a.Deadline == 0 {
		return 0, false
	}
	return a.Deadline.Sub(now), true
}

// Admission is a strategy's answer to Admit: admit the attempt, refuse it locally, or hold it.
// The zero value admits.
//
//   - Refused (Action is engine.Reject or engine.CircuitOpen): the client fails the attempt
//     without sending it (an open breaker, a shed priority, a full concurrency limit); Reason
//     says why, machine-readable: CIRCUIT_OPEN, SHED_LOW_PRIORITY, LIMIT_EXCEEDED, ...
//   - Held (not refused, Wait > 0): the client sends nothing now and asks Admit again after
//     Wait (a rate limiter's bucket without a token), but never past the request's deadline: a
//     hold that would end at or after it abandons the request. Reason may say why.
//   - Admitted (not refused, Wait <= 0): the attempt is sent; the strategy will be told its
//     outcome by exactly one Record (Canceled if it ends without one).
type Admission struct {
	// Action is engine.Reject or engine.CircuitOpen for a refusal; its zero value, engine.Retry,
	// means not refused (the attempt goes, or is held).
	Action engine.Action
	// Reason is why the attempt was refused or held ("" when admitted).
	Reason string
	// Wait is how long a held attempt waits before Admit is asked again (> 0 holds; ignored for
	// a refusal).
	Wait time.Duration
	// Parked says the held attempt (Attempt.Park) waits until the strategy's Wake releases it,
	// Wait being the longest it may: Admit is then asked again with engine.AskWoken, or with
	// engine.AskExpired once Wait ends first.
	Parked bool
	// Wake, for a parked attempt, is how long from now until the strategy's Wake may release a
	// parked attempt: what Waker.NextWake would answer at once (a strategy that parks sets it).
	Wake time.Duration
}

// Refused reports whether the admission refuses the attempt.
func (a Admission) Refused() bool { return a.Action != engine.Retry }

// Held reports whether the admission holds the attempt for Wait (and does not refuse it).
func (a Admission) Held() bool { return a.Action == engine.Retry && a.Wait > 0 }

// Admitted reports whether the attempt may be sent now.
func (a Admission) Admitted() bool { return a.Action == engine.Retry && a.Wait <= 0 }

// Refuse returns the Admission that refuses an attempt with action (engine.Reject or
// engine.CircuitOpen) and reason.
func Refuse(action engine.Action, reason string) Admission {
	return Admission{Action: action, Reason: reason}
}

// Hold returns the Admission that holds an attempt for wait (> 0), for reason.
func Hold(wait time.Duration, reason string) Admission { return Admission{Reason: reason, Wait: wait} }

// Verdict is a strategy's answer for a failed attempt.
type Verdict struct {
	Retry  bool          // retry after Delay
	Delay  time.Duration // wait before the retry (0 = at once)
	Action engine.Action // for the metrics: Retry, Reject, CircuitOpen, NotRetryable, MaxRetriesExceeded
	Reason string        // machine-readable, e.g. "SHED_LOW_PRIORITY", "BUDGET_EXHAUSTED"
}

// Strategy is the retry logic of one client. It is not safe for concurrent use unless the
// implementation says so (and declares it with Concurrent); the simulator drives each client
// from one goroutine.
//
// The calls for one attempt come in this order: Admit (again after each hold, until it admits
// or refuses), then, if admitted, exactly one Record when the attempt ends, then, if it failed,
// Decide. A concurrency limiter counts an attempt in flight from the Admit that admits it to
// its Record.
type Strategy interface {
	// Name is the strategy's catalog name, e.g. "cortex".
	Name() string
	// Admit is asked before any attempt (original: a.Retry 0, or retry n) is sent: admit it,
	// refuse it locally, or hold it (Admission).
	Admit(now Time, a Attempt) Admission
	// Record reports the outcome of an attempt Admit admitted, with its latency (from its
	// admission to its answer or timeout).
	Record(now Time, a Attempt, o Outcome, latency time.Duration)
	// Decide is asked after a failed attempt a: should it be retried, and when?
	Decide(now Time, a Attempt, o Outcome) Verdict
	// SetPending tells the strategy how many retries its client has waiting (cortex uses it as Q).
	SetPending(n int)
}

// Waker is implemented by the strategies that park held attempts (Admission.Parked) for their
// client to wake: the client keeps its parked attempts by priority, oldest first, reads when
// to wake from each attempt it parks (Admission.Wake, NextWake's answer then), asks NextWake
// after each outcome it records, and calls Wake when they say; Wake
// adds to n[p] how many of its oldest parked attempts of priority p to ask Admit about again
// now (engine.AskWoken). Both return how long from now until the next call, false when nothing
// is parked. A held attempt then costs the client one wake, not a timer per poll.
type Waker interface {
	Wake(now Time, n *[engine.MaxPriority + 1]int) (after time.Duration, ok bool)
	NextWake(now Time) (after time.Duration, ok bool)
	// Unpark takes a parked attempt of priority p that its caller abandoned (its context
	// ended) off the parked ones.
	Unpark(now Time, p int)
}

// Concurrent is implemented by the strategies that are safe for concurrent use: their methods
// may be called from many goroutines at once (cortexhttp then calls them without a lock of its
// own). A strategy that does not implement it is serialised by its callers.
type Concurrent interface {
	// ConcurrentSafe marks the implementation; it does nothing.
	ConcurrentSafe()
}

// IsConcurrent reports whether s declares itself safe for concurrent use (Concurrent).
func IsConcurrent(s Strategy) bool {
	_, ok := s.(Concurrent)
	return ok
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
