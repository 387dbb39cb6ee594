package source

import "github.com/cortex-tui/cortex-tui/strategy"

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
