package cli_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

// TestOracleInOutputs asserts that the oracle's bound of a scenario and seed (sim.Oracle) is what
// bench's JSON carries for every strategy's run, what run --headless prints in its summary
// (JSON and table), and what `scenarios NAME` says for the scenario's own seed; a closed loop
// has none (null, "-" in the tables).
func TestOracleInOutputs(t *testing.T) {
	// Eight whole runs of black-friday and closed-loop: what they check is the oracle in each
	// output, not the bench pool's concurrency, which TestBenchSeedsEqualOneSeedAtATime and
	// TestBenchJSON check under the race detector.
	racedetect.SkipWholeRuns(t)
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	b, err := sim.Oracle(scn, 2)
	require.NoError(t, err)
	want := report.NewOracle(b.Rate(), map[int]float64{9: b.Priorities[0].Rate(), 4: b.Priorities[1].Rate(), 1: b.Priorities[2].Rate()})

	doc := benchJSON(t, "--scenario", "black-friday,closed-loop", "--strategy", "none,naive", "--seed", "2")
	require.Len(t, doc.Runs, 4)
	for _, r := range doc.Runs[:2] {
		require.NotNil(t, r.Oracle, r.Strategy)
		assert.Equal(t, *want, *r.Oracle, "%s: the scenario's oracle, whatever the strategy", r.Strategy)
	}
	for _, r := range doc.Runs[2:] {
		assert.Nil(t, r.Oracle, "closed loop: no oracle")
	}

	code, out, errOut := execute("run", "--scenario", "black-friday", "--seed", "2", "--headless", "--format", "json")
	require.Equal(t, 0, code, errOut)
	var run struct{ Summary report.Summary }
	require.NoError(t, json.Unmarshal([]byte(out), &run))
	require.NotNil(t, run.Summary.Oracle)
	assert.Equal(t, *want, *run.Summary.Oracle)
	code, out, errOut = execute("run", "--scenario", "black-friday", "--seed", "2", "--headless", "--format", "table")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "oracle               "+report.OracleLine(want))

	code, out, errOut = execute("bench", "--scenario", "black-friday,closed-loop", "--strategy", "none", "--seed", "2", "--format", "markdown")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4)
	assert.True(t, strings.HasPrefix(lines[0], "| scenario | strategy | success | oracle |"), lines[0])
	assert.Contains(t, lines[2], " | "+strconv.FormatFloat(100*want.SuccessRate, 'f', 1, 64)+"% | ")
	assert.True(t, strings.HasPrefix(lines[3], "| closed-loop | none | "), lines[3])
	assert.Equal(t, "-", strings.Split(lines[3], " | ")[3], "closed loop: a dash")

	own, err := sim.Oracle(scn, scn.Seed)
	require.NoError(t, err)
	code, out, errOut = execute("scenarios", "black-friday")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "oracle    seed 1: at most "+strconv.FormatFloat(100*own.Rate(), 'f', 1, 64)+"% of the originals can succeed (served highest priority first: p9 ")
	code, out, errOut = execute("scenarios", "closed-loop")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "oracle    none in a closed loop")
}

// TestScenariosShowsClassLoad asserts that `scenarios NAME` shows a class's own load points
// beside its rate, and nothing for a class without.
func TestScenariosShowsClassLoad(t *testing.T) {
	code, out, errOut := execute("scenarios", "prefetch-spike")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "prefetch           priority  1, 50 req/s, its own load x1 at 60s, x12 at 65s, x12 at 110s, x1 at 130s\n")
	assert.Contains(t, out, "play               priority  9, 150 req/s\n")
}
