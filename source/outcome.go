package source

import (
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// AddOutcome counts one attempt's outcome: a success, or a failure of its kind (Timeouts,
// FastFails, ServerErrors, Throttled, BadRequests), also in RetryFailures when the attempt was a
// retry. The simulator and live mode count every attempt with it.
func (c *Counts) AddOutcome(o strategy.Outcome, retry bool) {
	if o == strategy.Success {
		c.Successes++
		return
	}
	c.Failures++
	if retry {
		c.RetryFailures++
	}
	switch o {
	case strategy.Timeout:
		c.Timeouts++
	case strategy.FastFail:
		c.FastFails++
	case strategy.ServerError:
		c.ServerErrors++
	case strategy.Throttled:
		c.Throttled++
	case strategy.BadRequest:
		c.BadRequests++
	}
}

// AddRefusal counts an attempt the client's strategy refused to send (Admit), for reason r: in
// LocalRejects and Refusals, and in RetryRefused for a retry. The simulator and live mode count
// every local refusal with it.
func (c *Counts) AddRefusal(r Reason, retry bool) {
	c.LocalRejects++
	if r < NumReasons {
		c.Refusals[r]++
	}
	if retry {
		c.RetryRefused++
	}
}

// AddRefusal counts a local refusal (see Counts.AddRefusal) in its class: a retry in
// RetriesRefused, an original in OriginalsShed (SHED_LOW_PRIORITY) or OriginalsRefused.
func (ct *ClassTick) AddRefusal(r Reason, retry bool) {
	switch {
	case retry:
		ct.RetriesRefused++
	case r == ReasonShed:
		ct.OriginalsShed++
	default:
		ct.OriginalsRefused++
	}
}

// AddVerdict counts one retry decision of a request of class ct: its action in Decisions, its
// reason code in Reasons (VerdictReason, or a caller's cached copy of it), and in the class
// what became of the retry: admitted, shed by priority (also in Shed), rejected by the budget
// (also in BudgetRejected), or refused otherwise (OtherRejected; not for a failure that may
// not be retried, the attempt limit, or a strategy that never retries). The simulator and
// live mode count every verdict with it, so their decisions panels and reports agree.
func (c *Counts) AddVerdict(ct *ClassTick, v strategy.Verdict, code Reason) {
	if a := int(v.Action); a >= 0 && a < len(c.Decisions) {
		c.Decisions[a]++
	}
	if code < NumReasons {
		c.Reasons[code]++
	}
	switch {
	case v.Retry:
		ct.Admitted++
	case code == ReasonShed:
		c.Shed++
		ct.Shed++
	case code == ReasonBudget:
		c.BudgetRejected++
		ct.BudgetRejected++
	case code == ReasonNotRetryable || code == ReasonMaxRetries || code == ReasonNoRetries:
		// not a refusal under pressure
	default:
		ct.OtherRejected++
	}
}

// VerdictReason is the reason code of a verdict: RETRY, NOT_RETRYABLE and
// MAX_RETRIES_EXCEEDED from its action (every strategy's say so), the others from its words
// (ReasonOf).
func VerdictReason(v strategy.Verdict) Reason {
	switch v.Action {
	case engine.Retry:
		return ReasonRetry
	case engine.NotRetryable:
		return ReasonNotRetryable
	case engine.MaxRetriesExceeded:
		return ReasonMaxRetries
	}
	return ReasonOf(v.Reason)
}
