package tui

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
)

// sumParts adds up the numbers of a decisionParts line before its "; +N by tiers" tail.
func sumParts(t *testing.T, s string) int {
	t.Helper()
	if i := regexp.MustCompile(`; \+`).FindStringIndex(s); i != nil {
		s = s[:i[0]]
	}
	sum := 0
	for _, m := range regexp.MustCompile(`\d+`).FindAllString(s, -1) {
		n, err := strconv.Atoi(m)
		require.NoError(t, err)
		sum += n
	}
	return sum
}

// Asserts that the decisions panel splits each action's total into parts that add up to it:
// REJECT into its reasons (the recovery ramp included, the gap the issue saw between REJECT and
// shed + budget), CIRCUIT_OPEN into emergency, circuit and probes busy, and RETRY into the
// retries sent (the summary's retries less the tiers'), waiting, refused when due and dropped at
// the deadline; the tiers' retries are named apart, with the summary's total.
func TestDecisionsReasonsAddUp(t *testing.T) {
	var c source.Counts
	c.Decisions = [5]int{4190, 22411, 57, 12, 3}
	c.Reasons[source.ReasonShed], c.Reasons[source.ReasonBudget], c.Reasons[source.ReasonRamp] = 9387, 12753, 271
	c.Reasons[source.ReasonEmergency], c.Reasons[source.ReasonCircuitOpen], c.Reasons[source.ReasonProbesBusy] = 7, 40, 10
	c.Retries, c.RetryRefused, c.RetryLate, c.RetryExpired = 3916, 200, 50, 4
	pending := 4190 - 3916 - 200 - 54
	tot := report.Totals{Counts: c}

	reject := decisionParts(engine.Reject, tot, pending)
	assert.Equal(t, "shed 9387 · ramp 271 · budget 12753", reject)
	assert.Equal(t, c.Decisions[engine.Reject], sumParts(t, reject))

	circuit := decisionParts(engine.CircuitOpen, tot, pending)
	assert.Equal(t, c.Decisions[engine.CircuitOpen], sumParts(t, circuit))

	retry := decisionParts(engine.Retry, tot, pending)
	assert.Equal(t, "sent 3916 · waiting 20 · refused when due 200 · past deadline 54", retry)
	assert.Equal(t, c.Decisions[engine.Retry], sumParts(t, retry))

	assert.Empty(t, decisionParts(engine.MaxRetriesExceeded, tot, pending), "nothing to split")

	c.TierRetries, c.Retries = 7007, 3916+7007
	retry = decisionParts(engine.Retry, report.Totals{Counts: c}, pending)
	assert.Contains(t, retry, "sent 3916")
	assert.Contains(t, retry, "+7007 by tiers = 10923 retries")
	assert.Equal(t, c.Decisions[engine.Retry], sumParts(t, retry))
}
