package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/report"
)

// TestBenchRefusalCost asserts that bench --refusal-cost runs each scenario once per cost, its
// rows named "NAME (refusal_cost X)", that the scenario's own cost (0.1) gives its own run, and
// that a heavier refusal changes what the retry flood does to upi-salary-day (free refusals
// never crash it; whole ones crash it more often than the default tenth).
func TestBenchRefusalCost(t *testing.T) {
	// Four whole runs of upi-salary-day: what they check is the refusal cost's plumbing, not the
	// bench pool's concurrency, which TestBenchSeedsEqualOneSeedAtATime and TestBenchJSON check
	// under the race detector.
	racedetect.SkipWholeRuns(t)
	doc := benchJSON(t, "--scenario", "upi-salary-day", "--strategy", "naive", "--refusal-cost", "0,0.1,1")
	require.Len(t, doc.Runs, 3)
	free, tenth, whole := doc.Runs[0], doc.Runs[1], doc.Runs[2]
	assert.Equal(t, "upi-salary-day (refusal_cost 0)", free.Scenario)
	assert.Equal(t, "upi-salary-day (refusal_cost 0.1)", tenth.Scenario)
	assert.Equal(t, "upi-salary-day (refusal_cost 1)", whole.Scenario)

	own := benchJSON(t, "--scenario", "upi-salary-day", "--strategy", "naive")
	require.Len(t, own.Runs, 1)
	a, b := own.Runs[0], tenth
	a.Scenario, b.Scenario = "", ""
	assert.Equal(t, a, b, "0.1 is the scenario's own refusal cost")
	assert.Zero(t, free.Crashes, "free refusals: the flood of 503s costs the API nothing")
	assert.Greater(t, whole.Crashes, tenth.Crashes, "whole refusals crash it more often")
	assert.Less(t, whole.SuccessRate, tenth.SuccessRate)
}

// TestBenchRefusalCostWithBudgets asserts that --refusal-cost and --budget combine: every
// scenario once per budget and cost, named after both.
func TestBenchRefusalCostWithBudgets(t *testing.T) {
	doc := benchJSON(t, "--scenario", "metastable", "--strategy", "none", "--budget", "per-client,shared", "--refusal-cost", "0.5")
	require.Len(t, doc.Runs, 2)
	assert.Equal(t, "metastable (per-client, refusal_cost 0.5)", doc.Runs[0].Scenario)
	assert.Equal(t, "metastable (shared, refusal_cost 0.5)", doc.Runs[1].Scenario)
}

// TestRunRefusalCost asserts that run --refusal-cost overrides the scenario's cost and says so
// in the run's scenario name.
func TestRunRefusalCost(t *testing.T) {
	// Two whole headless runs of upi-salary-day: what they check is the flag's plumbing; the
	// headless command's own goroutines are checked under the race detector by
	// TestHeadlessCSVAndTable and TestStopSignal.
	racedetect.SkipWholeRuns(t)
	summary := func(args ...string) report.Summary {
		code, out, errOut := execute(append([]string{"run", "--scenario", "upi-salary-day", "--strategy", "naive", "--headless", "--format", "json"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var doc struct{ Summary report.Summary }
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		return doc.Summary
	}
	own, free := summary(), summary("--refusal-cost", "0")
	assert.Equal(t, "upi-salary-day", own.Scenario)
	assert.Equal(t, "upi-salary-day (refusal_cost 0)", free.Scenario)
	assert.Positive(t, own.Crashes)
	assert.Zero(t, free.Crashes)
}

// TestRefusalCostFlagErrors asserts that a bad --refusal-cost is a usage error naming the flag
// and what is wrong, with the field's own range, and nothing on stdout.
func TestRefusalCostFlagErrors(t *testing.T) {
	cases := []struct {
		value, want string
	}{
		{"1.5", "--refusal-cost: must be in [0, 1] (a fraction of one service time), got 1.5"},
		{"-0.1", "--refusal-cost: must be in [0, 1] (a fraction of one service time), got -0.1"},
		{"NaN", "got NaN"},
		{"cheap", `--refusal-cost: "cheap" is not a number`},
	}
	for _, c := range cases {
		for _, args := range [][]string{
			{"bench", "--scenario", "metastable", "--refusal-cost", c.value},
			{"run", "--scenario", "metastable", "--headless", "--refusal-cost", c.value},
		} {
			code, out, errOut := execute(args...)
			assert.Equal(t, 2, code, args)
			assert.Empty(t, out, args)
			assert.Contains(t, errOut, c.want, args)
		}
	}
}
