package strategy

import "time"

// Naive retries every retryable failure at once (no delay), up to DefaultMaxRetries times: the
// "just retry" loop found in countless clients, and the one that turns a brief outage into a
// retry storm (up to 4x the load on a failing service). It admits every attempt.
// The zero value is ready to use; it holds no state and is safe for concurrent use.
type Naive struct{}

func init() {
	register(entry{name: "naive", rank: 30, describe: "retries at once, up to 3 times",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: 0, ClientBytes: 128, TickNs: 8},
		build:     func(Env) (Strategy, error) { return NewNaive(), nil }})
}

var (
	_ Strategy   = (*Naive)(nil)
	_ Concurrent = (*Naive)(nil)
)

// ConcurrentSafe declares Naive safe for concurrent use (it has no state).
func (*Naive) ConcurrentSafe() {}

// NewNaive returns the naive strategy.
func NewNaive() *Naive { return &Naive{} }

// Name returns "naive".
func (*Naive) Name() string { return "naive" }

// Admit always returns true.
func (*Naive) Admit(Time, Attempt) Admission { return Admission{} }

// Record does nothing: naive keeps no state.
func (*Naive) Record(Time, Attempt, Outcome, time.Duration) {}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >= 3,
// and otherwise Retry with no delay.
func (*Naive) Decide(_ Time, a Attempt, o Outcome) Verdict {
	if v, ok := precheck(o, clampRetry(a.Retry), DefaultMaxRetries); !ok {
		return v
	}
	return retryAfter(0)
}

// SetPending does nothing.
func (*Naive) SetPending(int) {}
