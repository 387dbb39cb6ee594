package model

import (
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// CountVerdict adds a retry decision of a request of class ct to the tick's counts c: its
// action, its reason code (VerdictReason, or a caller's cached copy of it) in Reasons, and what
// became of the retry: admitted, shed by priority, refused for budget, or refused for another
// reason. A retry that was never possible (not retryable, out of attempts, a strategy that
// never retries) is none of these. The simulator and live mode count every verdict with it, so
// that their decisions panels say alike what each total is made of.
func CountVerdict(c *source.Counts, ct *source.ClassTick, v *strategy.Verdict, code source.Reason) {
	if a := int(v.Action); a >= 0 && a < len(c.Decisions) {
		c.Decisions[a]++
	}
	if code < source.NumReasons {
		c.Reasons[code]++
	}
	switch {
	case v.Retry:
		ct.Admitted++
	case v.Reason == strategy.ReasonShed:
		c.Shed++
		ct.Shed++
	case v.Reason == strategy.ReasonBudgetExhausted:
		c.BudgetRejected++
		ct.BudgetRejected++
	case v.Action == engine.NotRetryable || v.Action == engine.MaxRetriesExceeded || v.Reason == strategy.ReasonNoRetries:
		// not a refusal under pressure
	default:
		ct.OtherRejected++
	}
}

// VerdictReason is the reason code of a verdict: RETRY, NOT_RETRYABLE and
// MAX_RETRIES_EXCEEDED from its action (every strategy's say so), the others from its words
// (source.ReasonOf).
func VerdictReason(v *strategy.Verdict) source.Reason {
	switch v.Action {
	case engine.Retry:
		return source.ReasonRetry
	case engine.NotRetryable:
		return source.ReasonNotRetryable
	case engine.MaxRetriesExceeded:
		return source.ReasonMaxRetries
	}
	return source.ReasonOf(v.Reason)
}
