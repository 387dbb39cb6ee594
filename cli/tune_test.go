package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// tinyOutage is a user's scenario small enough to tune in a test: 30 s of 80 requests/s
// against a capacity of 100/s, down for 6 s at 10 s.
const tinyOutage = `name = "tiny-outage"
summary = "A short outage"
duration = "30s"
seed = 1
[fleet]
clients = 4
deadline = "10s"
timeout = "1s"
[[class]]
name = "pay"
priority = 9
rate = 40
[[class]]
name = "feed"
priority = 1
rate = 40
[service]
workers = 10
service_time = "100ms"
queue_limit = 200
[[fault]]
kind = "outage"
at = "10s"
duration = "6s"
`

// calm has no fault and spare capacity: every engine serves all of it.
const calm = `name = "calm"
summary = "Nothing goes wrong"
duration = "10s"
seed = 1
[fleet]
clients = 2
[[class]]
name = "api"
priority = 5
rate = 20
[service]
workers = 10
service_time = "50ms"
`

// Asserts that a user's scenario file works end to end: tune writes a cortex.toml that the
// engine's parser reads, that is not the defaults, whose heading says how it was found, and
// that bench then runs with --engine; that the same --seed writes the same file byte for byte
// (the search is deterministic) and the JSON report agrees with it.
func TestTuneEndToEnd(t *testing.T) {
	// Two searches of 12 evaluations on 5 seeds: what they check is the file tune writes and reads
	// back, not the search pool's concurrency, which tune's TestSearchIsDeterministic and
	// TestSearchInterrupted and this package's TestTuneWritesNothingWithoutGain check under the
	// race detector.
	racedetect.SkipWholeRuns(t)
	scn, base := writeScenario(t, tinyOutage), writeEngine(t, engine.ArticleConfig())
	dir := t.TempDir()
	out := filepath.Join(dir, "cortex.toml")
	args := []string{"tune", "--scenario-file", scn, "--seeds", "1-3", "--holdout", "4-5", "--params", "budget,retry",
		"--generations", "3", "--population", "4", "--seed", "1", "--time", "0", "--engine", base}
	code, stdout, stderr := execute(append(args, "--out", out)...)
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"tune tiny-outage · objective success · 3 training seeds (1-3), 2 held-out (4-5)", "training tuned.toml",
		"tiny-outage success", "pay (priority 9)", "feed (priority 1)", "score", "parameters moved", "search: CMA-ES over 8 parameters, population 4, 3 generations, 12 evaluations",
		"wrote " + out} {
		assert.Contains(t, stdout, want)
	}
	assert.Contains(t, stderr, "tune: generation 3/3 · 12 evaluations", "a progress line per generation off a terminal")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	cfg, err := engineconf.Parse(out, data)
	require.NoError(t, err)
	assert.NotEqual(t, engine.DefaultConfig(), cfg)
	assert.Contains(t, string(data), "# Tuned by cortex-tui tune for tiny-outage (objective success, seed 1, parameters budget,retry).")

	code, _, stderr = execute("bench", "--scenario-file", scn, "--seeds", "4-5", "--strategy", "cortex", "--engine", out, "--format", "json")
	require.Equal(t, 0, code, stderr)

	again := filepath.Join(dir, "again.toml")
	code, stdout, stderr = execute(append(args, "--out", again, "--format", "json")...)
	require.Equal(t, 0, code, stderr)
	second, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(second), "the same seed, the same file")
	var doc struct {
		Holds  bool
		Engine string
		Moved  []struct{ Key string }
		Search struct{ Evaluations int }
		Oracle []*float64 `json:"oracle_holdout"`
		Know   []*float64 `json:"client_knowable_holdout"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
	assert.True(t, doc.Holds)
	require.Len(t, doc.Oracle, 1)
	require.Len(t, doc.Know, 1)
	require.NotNil(t, doc.Oracle[0])
	require.NotNil(t, doc.Know[0])
	assert.Greater(t, *doc.Know[0], 0.0)
	assert.LessOrEqual(t, *doc.Know[0], *doc.Oracle[0], "what a client can know bounds less than the oracle")
	assert.Equal(t, string(data), doc.Engine)
	assert.NotEmpty(t, doc.Moved)
	assert.Equal(t, 12, doc.Search.Evaluations)
}

// Asserts that tune refuses to write an engine that is worse than the one searched from on
// the held-out seeds (the weights fitted to two seeds), and says so.
func TestTuneRefusesAnOverfit(t *testing.T) {
	// A search of 8 evaluations on 4 seeds: what it checks is the refusal, not the search pool's
	// concurrency, which TestTuneWritesNothingWithoutGain checks under the race detector.
	racedetect.SkipWholeRuns(t)
	out := filepath.Join(t.TempDir(), "cortex.toml")
	code, stdout, stderr := execute("tune", "--scenario-file", writeScenario(t, tinyOutage), "--engine", writeEngine(t, engine.ArticleConfig()),
		"--seeds", "1-2", "--holdout", "4-5", "--params", "weights", "--generations", "2", "--population", "4", "--seed", "10", "--out", out)
	assert.Equal(t, 1, code)
	assert.Regexp(t, `the tuned engine scores -?\d\.\d{4} on the held-out seeds, below the tuned\.toml's -?\d\.\d{4}: it fits the training seeds only, so `+regexp.QuoteMeta(out)+` is not written`, stderr)
	assert.Contains(t, stdout, "held-out tuned.toml", "the report is printed")
	assert.NoFileExists(t, out)
}

// Asserts that tune writes nothing and fails when no candidate beats the default (a calm
// scenario every engine serves in full), saying so.
func TestTuneWritesNothingWithoutGain(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cortex.toml")
	code, _, stderr := execute("tune", "--scenario-file", writeScenario(t, calm), "--seeds", "1-2", "--holdout", "3",
		"--params", "retry", "--generations", "2", "--population", "3", "--out", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no candidate beat the default on the training seeds (6 evaluated): nothing written")
	assert.NoFileExists(t, out)
}

// Asserts that tune's bad flags are usage errors naming what is wrong, before any search.
func TestTuneBadFlags(t *testing.T) {
	scn := writeScenario(t, calm)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "no scenario to tune for"},
		{[]string{"--scenario", "nope"}, `"nope"`},
		{[]string{"--scenario-file", scn, "--seeds", "1-5", "--holdout", "5-8"}, "seed 5 is both a training seed (--seeds) and a held-out one (--holdout)"},
		{[]string{"--scenario-file", scn, "--holdout", "3-1"}, `invalid --holdout "3-1"`},
		{[]string{"--scenario-file", scn, "--objective", "speed"}, `unknown objective "speed" (valid: success, goodput, priority)`},
		{[]string{"--scenario-file", scn, "--params", "weights,nope"}, `unknown parameter "nope"`},
		{[]string{"--scenario-file", scn, "--time", "-1s"}, "invalid --time -1s"},
		{[]string{"--scenario-file", scn, "--population", "1"}, "invalid --population 1"},
		{[]string{"--scenario-file", scn, "--generations", "0"}, "invalid --generations 0"},
		{[]string{"--scenario-file", scn, "--evals", "-3"}, "invalid --evals -3"},
		{[]string{"--scenario-file", scn, "--step", "0"}, "invalid --step 0"},
		{[]string{"--scenario-file", scn, "--step", "1.5"}, "invalid --step 1.5"},
		{[]string{"--scenario-file", scn, "--screen", "-2"}, "invalid --screen -2"},
		{[]string{"--scenario-file", scn, "--format", "csv"}, `invalid --format "csv"`},
		{[]string{"--scenario-file", scn, "--out", "/nonexistent/dir/x.toml"}, "no directory /nonexistent/dir to write it in"},
		{[]string{"--scenario-file", scn, "--out", t.TempDir()}, "is a directory"},
		{[]string{"--scenario-file", scn, "extra"}, "tune takes no arguments"},
	} {
		code, _, stderr := execute(append([]string{"tune"}, tc.args...)...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
}
