package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// runDoc is the documented shape of `run --headless --format json`.
type runDoc struct {
	Scenario string           `json:"scenario"`
	Strategy string           `json:"strategy"`
	Seed     int64            `json:"seed"`
	DtMs     int64            `json:"dt_ms"`
	Timeline []map[string]any `json:"timeline"`
	Summary  map[string]any   `json:"summary"`
}

// TestHeadlessJSON asserts that `run --headless --format json` prints the documented run
// document: one row per simulated second (arrivals + drain), the cortex columns null for
// other strategies and filled for cortex, and the summary's keys.
func TestHeadlessJSON(t *testing.T) {
	scn, err := scenarios.Lookup("metastable")
	require.NoError(t, err)
	seconds := int((scn.Duration + scn.Drain).Seconds())
	for _, strat := range []string{"naive", "cortex"} {
		code, out, errOut := execute("run", "--scenario", "metastable", "--headless", "--strategy", strat, "--seed", "5", "--format", "json")
		require.Equal(t, 0, code, errOut)
		var doc runDoc
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		assert.Equal(t, "metastable", doc.Scenario)
		assert.Equal(t, strat, doc.Strategy)
		assert.Equal(t, int64(5), doc.Seed)
		assert.Equal(t, scn.Tick.Milliseconds(), doc.DtMs)
		require.Len(t, doc.Timeline, seconds)
		for _, k := range []string{"t", "originals", "attempts", "retries", "successes", "failures", "shed", "service", "capacity", "queue", "cps", "state", "circuit", "signals"} {
			assert.Contains(t, doc.Timeline[0], k)
		}
		if strat == "cortex" {
			assert.NotNil(t, doc.Timeline[0]["cps"])
			assert.Contains(t, doc.Timeline[0]["signals"], "F")
		} else {
			assert.Nil(t, doc.Timeline[0]["cps"])
			assert.Nil(t, doc.Timeline[0]["signals"])
		}
		for _, k := range []string{"success_rate", "peak_amplification", "amplification", "retries", "wasted_retries", "recovery_seconds", "crashes", "priority_success"} {
			assert.Contains(t, doc.Summary, k)
		}
	}
}

// TestHeadlessDeterministic asserts that two runs with the same seed print the same bytes
// and that another seed prints another run.
func TestHeadlessDeterministic(t *testing.T) {
	args := []string{"run", "--scenario", "two-layers", "--headless", "--strategy", "naive", "--format", "json"}
	_, a, _ := execute(append(args, "--seed", "9")...)
	_, b, _ := execute(append(args, "--seed", "9")...)
	_, c, _ := execute(append(args, "--seed", "10")...)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
}

// TestHeadlessCSVAndTable asserts the CSV header and one line per second, and the table's
// labelled summary; without --format and without a terminal the output is JSON.
func TestHeadlessCSVAndTable(t *testing.T) {
	code, out, errOut := execute("run", "--scenario", "metastable", "--headless", "--strategy", "none", "--format", "csv")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Equal(t, strings.Join(report.CSVHeader, ","), lines[0])
	assert.Len(t, lines, 1+150)

	code, out, errOut = execute("run", "--scenario", "metastable", "--headless", "--strategy", "none", "--format", "table")
	require.Equal(t, 0, code, errOut)
	for _, label := range []string{"success rate", "goodput", "peak amplification", "wasted retries", "recovery", "crashes"} {
		assert.Contains(t, out, label)
	}

	code, out, _ = execute("run", "--scenario", "metastable", "--headless", "--strategy", "none")
	require.Equal(t, 0, code)
	assert.True(t, json.Valid([]byte(out)), "JSON when stdout is not a terminal")
}

// TestHeadlessScenarioFile asserts that --scenario-file runs a user's file: the catalog's
// own scenario written to a file gives the same document as --scenario.
func TestHeadlessScenarioFile(t *testing.T) {
	scn, err := scenarios.Lookup("two-layers")
	require.NoError(t, err)
	data, err := scn.MarshalTOML()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "mine.toml")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	code, fromFile, errOut := execute("run", "--scenario-file", path, "--headless", "--strategy", "budget", "--format", "json")
	require.Equal(t, 0, code, errOut)
	_, builtin, _ := execute("run", "--scenario", "two-layers", "--headless", "--strategy", "budget", "--format", "json")
	assert.Equal(t, builtin, fromFile)
}

// TestHeadlessErrors asserts that bad input gets a clear message on stderr, nothing on stdout,
// and a non-zero status: 2 for usage errors (flags, names, arguments, a missing or bad --keys
// file, unused headless but still an error, as the documentation says), 1 for a bad scenario file.
func TestHeadlessErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("name = \"x\"\nduration = \"soon\"\n"), 0o644))
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad strategy", []string{"--scenario", "metastable", "--strategy", "yolo"}, 2, "unknown strategy \"yolo\""},
		{"bad format", []string{"--scenario", "metastable", "--format", "xml"}, 2, "invalid --format \"xml\""},
		{"unknown flag", []string{"--scenario", "metastable", "--colour"}, 2, "unknown flag"},
		{"bad seed", []string{"--scenario", "metastable", "--seed", "one"}, 2, "seed"},
		{"unknown scenario", []string{"--scenario", "nope"}, 2, "unknown scenario \"nope\""},
		{"an argument", []string{"--scenario", "metastable", "extra"}, 2, "run takes no arguments, got [\"extra\"]"},
		{"missing file", []string{"--scenario-file", "/nonexistent/x.toml"}, 1, "x.toml"},
		{"invalid file", []string{"--scenario-file", bad}, 1, "bad.toml"},
		{"missing --keys file", []string{"--scenario", "metastable", "--keys", "/nonexistent/keys.toml"}, 2,
			"cortex-tui: --keys /nonexistent/keys.toml: no such file\n"},
		{"bad --keys file", []string{"--scenario", "metastable", "--keys", bad}, 2,
			"cortex-tui: bad key file: " + bad + ":1: unknown action \"name\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := execute(append([]string{"run", "--headless"}, c.args...)...)
			assert.Equal(t, c.code, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, c.want)
		})
	}
	_, _, errOut := execute("run", "--headless", "--scenario", "metastable", "--strategy", "yolo")
	assert.Contains(t, errOut, "cortex", "the error lists the valid strategies")
}

// TestRunHelpFlagNames asserts that `run --help` names each flag's value by its type: a
// backquoted phrase in a flag's usage would become the value's name (pflag's convention),
// as in "--scenario cortex-tui scenarios".
func TestRunHelpFlagNames(t *testing.T) {
	code, out, errOut := execute("run", "--help")
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{"--scenario string", "--scenario-file string", "--strategy string", "--seed int", "--format string"} {
		assert.Contains(t, out, want)
	}
}

// TestRunScenarioTakesAFile asserts that run --scenario accepts a scenario file's path, as live
// --scenario does, and runs it as --scenario-file would.
func TestRunScenarioTakesAFile(t *testing.T) {
	code, file, errOut := execute("scenarios", "metastable", "--toml")
	require.Equal(t, 0, code, errOut)
	path := filepath.Join(t.TempDir(), "mine.toml")
	require.NoError(t, os.WriteFile(path, []byte(file), 0o644))
	code, byName, errOut := execute("run", "--scenario", path, "--headless", "--format", "json")
	require.Equal(t, 0, code, errOut)
	code, byFile, errOut := execute("run", "--scenario-file", path, "--headless", "--format", "json")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, byFile, byName)
}
