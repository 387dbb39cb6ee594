package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// runCounts steps a whole run of scn with strat and returns its summed counts and the last
// snapshot's pending retries.
func runCounts(t *testing.T, scn scenarios.Scenario, strat string) (source.Counts, int) {
	t.Helper()
	s, err := New(scn, strat, scn.Seed)
	require.NoError(t, err)
	var sum source.Counts
	pending := 0
	for !s.Done() {
		snap := s.Step()
		c := snap.Counts
		for i := range sum.Decisions {
			sum.Decisions[i] += c.Decisions[i]
		}
		for i := range sum.Reasons {
			sum.Reasons[i] += c.Reasons[i]
		}
		sum.Retries += c.Retries
		sum.TierRetries += c.TierRetries
		sum.RetryLate += c.RetryLate
		sum.RetryExpired += c.RetryExpired
		sum.RetryRefused += c.RetryRefused
		sum.RetryCapped += c.RetryCapped
		sum.Shed += c.Shed
		sum.BudgetRejected += c.BudgetRejected
		pending = snap.Pending
	}
	return sum, pending
}

// Asserts that the retry decisions reconcile with the retries sent, in every built-in scenario
// and for strategies that drop decided retries in each way or hold attempts (aws-adaptive's rate
// limiter, failsafe's queue: a held retry is pending, one held past its deadline expired): every
// RETRY decision is a retry
// sent by its client, or one dropped because its delay would end after the deadline, expired
// while waiting, refused by the strategy when due, capped, or still waiting when the run ends;
// and the retries sent are the clients' plus the intermediate tiers'. It also asserts that the
// reasons add up to their actions: REJECT is shed + recovery ramp + budget + throttled + no
// retries + other, CIRCUIT_OPEN is emergency + circuit open + probes busy.
func TestDecisionsReconcile(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	for _, scn := range scenarios.Catalog() {
		for _, strat := range []string{"cortex", "naive", "breaker", "grpc", "aws-adaptive", "failsafe"} {
			t.Run(scn.Name+"/"+strat, func(t *testing.T) {
				c, pending := runCounts(t, scn, strat)
				r := c.Reasons
				sent := c.Retries - c.TierRetries
				assert.Equal(t, c.Decisions[engine.Retry], sent+c.RetryLate+c.RetryExpired+c.RetryRefused+c.RetryCapped+pending,
					"RETRY decisions = client retries sent %d + late %d + expired %d + refused %d + capped %d + pending %d",
					sent, c.RetryLate, c.RetryExpired, c.RetryRefused, c.RetryCapped, pending)
				assert.Equal(t, c.Decisions[engine.Retry], r[source.ReasonRetry])
				assert.Equal(t, c.Decisions[engine.Reject],
					r[source.ReasonShed]+r[source.ReasonRamp]+r[source.ReasonBudget]+r[source.ReasonThrottled]+r[source.ReasonNoRetries]+r[source.ReasonOther])
				assert.Equal(t, c.Decisions[engine.CircuitOpen], r[source.ReasonEmergency]+r[source.ReasonCircuitOpen]+r[source.ReasonProbesBusy])
				assert.Equal(t, c.Decisions[engine.NotRetryable], r[source.ReasonNotRetryable])
				assert.Equal(t, c.Decisions[engine.MaxRetriesExceeded], r[source.ReasonMaxRetries])
				assert.Equal(t, c.Shed, r[source.ReasonShed])
				assert.Equal(t, c.BudgetRejected, r[source.ReasonBudget])
				t.Logf("RETRY %d = sent %d + late %d + expired %d + refused %d + capped %d + pending %d (tier retries %d); REJECT %d = shed %d + ramp %d + budget %d + throttled %d + none %d + other %d",
					c.Decisions[engine.Retry], sent, c.RetryLate, c.RetryExpired, c.RetryRefused, c.RetryCapped, pending, c.TierRetries,
					c.Decisions[engine.Reject], r[source.ReasonShed], r[source.ReasonRamp], r[source.ReasonBudget], r[source.ReasonThrottled], r[source.ReasonNoRetries], r[source.ReasonOther])
			})
		}
	}
}
