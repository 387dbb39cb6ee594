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

var _ Strategy = (*Naive)(nil)

// NewNaive returns the naive strategy.
func NewNaive() *Naive { return &Naive{} }

// Name returns "naive".
func (*Naive) Name() string { return "naive" }

// Admit always returns true.
func (*Naive) Admit(time.Time, int, int) bool { return true }

// Record does nothing: naive keeps no state.
func (*Naive) Record(time.Time, Outcome, time.Duration, int) {}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >= 3,
// and otherwise Retry with no delay.
func (*Naive) Decide(_ time.Time, _, retry int, o Outcome) Verdict {
	if v, ok := precheck(o, clampRetry(retry), DefaultMaxRetries); !ok {
		return v
	}
	return retryAfter(0)
}

// SetPending does nothing.
func (*Naive) SetPending(int) {}
