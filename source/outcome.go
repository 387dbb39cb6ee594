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
