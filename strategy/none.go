package strategy

import (
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// None never retries: every failed attempt is final. It is the floor of the comparison: no
// amplification at all, and no recovery of transient failures either. It admits every attempt.
// The zero value is ready to use; it holds no state and is safe for concurrent use.
type None struct{}

func init() {
	register(entry{name: "none", rank: rankLast, describe: "never retries",
		footprint: Footprint{Retries: 0, MaxDelay: 0, ClientBytes: 128, TickNs: 8},
		build:     func(Env) (Strategy, error) { return NewNone(), nil }})
}

var (
	_ Strategy   = (*None)(nil)
	_ Concurrent = (*None)(nil)
)

// ConcurrentSafe declares None safe for concurrent use (it has no state).
func (*None) ConcurrentSafe() {}

// NewNone returns the none strategy.
func NewNone() *None { return &None{} }

// Name returns "none".
func (*None) Name() string { return "none" }

// Admit always returns true.
func (*None) Admit(Time, Attempt) Admission { return Admission{} }

// Record does nothing: none keeps no state.
func (*None) Record(Time, Attempt, Outcome, time.Duration) {}

// Decide answers NotRetryable ("NOT_RETRYABLE") for a non-retryable outcome and Reject
// ("NO_RETRIES") for any other.
func (*None) Decide(_ Time, _ Attempt, o Outcome) Verdict {
	if !o.Retryable() {
		return notRetryable()
	}
	return Verdict{Action: engine.Reject, Reason: ReasonNoRetries}
}

// SetPending does nothing.
func (*None) SetPending(int) {}
