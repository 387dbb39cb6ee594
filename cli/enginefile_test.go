package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// writeEngine writes c as a cortex.toml into a fresh directory and returns its path.
func writeEngine(t *testing.T, c engine.Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tuned.toml")
	require.NoError(t, os.WriteFile(path, engineconf.Format(c, ""), 0o600))
	return path
}

// smallBudget is a configuration far enough from the defaults to change a run.
func smallBudget() engine.Config {
	c := engine.DefaultConfig()
	c.TokenBucketCapacity = 20
	c.SlowdownCost = 0
	c.BudgetReserve = 0
	return c
}

// TestEngineFlag asserts that bench and run --headless run the cortex strategy with --engine's
// file: the defaults as a file give the figures of no file, another file other figures named
// with it, the other strategies keep theirs, and a bad file is a usage error naming the problem.
func TestEngineFlag(t *testing.T) {
	// Nine whole runs of dns-crash: what they check is the file's plumbing, not the bench pool's
	// concurrency, which TestBenchSeedsEqualOneSeedAtATime and TestBenchJSON check under the
	// race detector.
	racedetect.SkipWholeRuns(t)
	def, tuned := writeEngine(t, engine.DefaultConfig()), writeEngine(t, smallBudget())
	bench := func(args ...string) []map[string]any {
		t.Helper()
		code, out, errOut := execute(append([]string{"bench", "--scenario", "dns-crash", "--strategy", "cortex,naive", "--format", "json"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var doc struct{ Runs []map[string]any }
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		require.Len(t, doc.Runs, 2)
		return doc.Runs
	}
	plain, asFile, other := bench(), bench("--engine", def), bench("--engine", tuned)
	assert.Equal(t, "tuned.toml", asFile[0]["engine"])
	delete(asFile[0], "engine")
	assert.Equal(t, plain, asFile, "the defaults as a file")
	assert.NotEqual(t, plain[0]["retries"], other[0]["retries"], "cortex runs the file")
	assert.Equal(t, plain[1], other[1], "naive keeps its own")
	assert.Nil(t, other[1]["engine"])

	code, out, errOut := execute("bench", "--scenario", "dns-crash", "--strategy", "cortex", "--format", "table", "--engine", tuned)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "cortex runs the engine configuration of "+tuned+"\n"), out)

	code, out, errOut = execute("run", "--scenario", "dns-crash", "--headless", "--format", "table", "--engine", tuned)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^strategy\s+cortex \(tuned\.toml\)$`, out)

	bad := filepath.Join(t.TempDir(), "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("[budget]\nreserve = 3\n"), 0o600))
	for _, args := range [][]string{
		{"bench", "--scenario", "dns-crash", "--engine", bad},
		{"run", "--scenario", "dns-crash", "--headless", "--engine", bad},
		{"live", "--scenario", "dns-crash", "--headless", "--engine", bad},
		{"run", "--scenario", "dns-crash", "--compare-engine", bad},
	} {
		code, _, errOut := execute(args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Contains(t, errOut, bad+":2: budget.reserve: must be within [0, 1], got 3", "%v", args)
	}
	code, _, errOut = execute("run", "--scenario", "dns-crash", "--headless", "--compare-engine", tuned)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--compare-engine opens the dashboard")
}

// TestLiveEngineFlag asserts that a live run's cortex strategy runs --engine's file and says so.
func TestLiveEngineFlag(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, liveScenario)
	tuned := writeEngine(t, smallBudget())
	code, out, errOut := execute("live", "--scenario-file", path, "--headless", "--duration", "1s", "--format", "table", "--engine", tuned)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^strategy\s+cortex \(tuned\.toml\)$`, out)
}
