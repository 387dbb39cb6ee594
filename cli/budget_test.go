package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/report"
)

// TestBenchBudgets asserts that bench --budget runs each scenario once per budget, its rows
// named "NAME (budget)", and that the shared run of the shared-budget scenario is its own run
// (the scenario's budget is shared), while the per-client one differs for the budget strategy.
func TestBenchBudgets(t *testing.T) {
	// Three whole runs of shared-budget: what they check is the budget's plumbing, not the bench
	// pool's concurrency, which TestBenchSeedsEqualOneSeedAtATime and TestBenchJSON check under the
	// race detector.
	racedetect.SkipWholeRuns(t)
	doc := benchJSON(t, "--scenario", "shared-budget", "--strategy", "budget", "--budget", "per-client,shared")
	require.Len(t, doc.Runs, 2)
	assert.Equal(t, "shared-budget (per-client)", doc.Runs[0].Scenario)
	assert.Equal(t, "shared-budget (shared)", doc.Runs[1].Scenario)
	own := benchJSON(t, "--scenario", "shared-budget", "--strategy", "budget")
	require.Len(t, own.Runs, 1)
	a, b := own.Runs[0], doc.Runs[1]
	a.Scenario, b.Scenario = "", ""
	assert.Equal(t, a, b, "the scenario's own budget is shared")
	assert.Greater(t, doc.Runs[0].Retries, doc.Runs[1].Retries, "fifty quotas pay for more retries than one")
}

// TestBudgetFlagErrors asserts that a bad --budget is a usage error naming the valid budgets.
func TestBudgetFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--scenario", "metastable", "--budget", "global"},
		{"run", "--scenario", "metastable", "--headless", "--budget", "global"},
	} {
		code, out, errOut := execute(args...)
		assert.Equal(t, 2, code, args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, `unknown budget "global" (valid: per-client, shared)`)
	}
}

// TestRunBudgetOverride asserts that run --budget overrides the scenario's own budget.
func TestRunBudgetOverride(t *testing.T) {
	// Three whole headless runs of shared-budget: what they check is the flag's plumbing; the
	// headless command's own goroutines are checked under the race detector by
	// TestHeadlessCSVAndTable and TestStopSignal.
	racedetect.SkipWholeRuns(t)
	summary := func(args ...string) report.Summary {
		code, out, errOut := execute(append([]string{"run", "--scenario", "shared-budget", "--strategy", "budget", "--headless", "--format", "json"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var doc struct{ Summary report.Summary }
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		return doc.Summary
	}
	own, shared, per := summary(), summary("--budget", "shared"), summary("--budget", "per-client")
	assert.Equal(t, own, shared)
	assert.NotEqual(t, own.Retries, per.Retries)
}
