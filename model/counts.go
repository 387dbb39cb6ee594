package model

import (
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// CountVerdict adds a retry decision of a request of class ct to the tick's counts c: its
// action, and what became of the retry: admitted, shed by priority, refused for budget, or
// refused for another reason. A retry that was never possible (not retryable, out of
// attempts, a strategy that never retries) is none of these. The simulator and live mode
// count every verdict with it.
func CountVerdict(c *source.Counts, ct *source.ClassTick, v *strategy.Verdict) {
	if a := int(v.Action); a >= 0 && a < len(c.Decisions) {
		c.Decisions[a]++
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
