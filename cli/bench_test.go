package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
)

// TestBenchJSON asserts that `bench --format json` prints {"runs": [...]} with one run per
// scenario x strategy, in the order given (scenarios outer, strategies inner), identical
// across invocations although the runs execute in parallel.
func TestBenchJSON(t *testing.T) {
	args := []string{"bench", "--scenario", "metastable,two-layers", "--strategy", "none,naive,cortex", "--format", "json"}
	code, out, errOut := execute(args...)
	require.Equal(t, 0, code, errOut)
	var doc struct{ Runs []report.Summary }
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Runs, 6)
	i := 0
	for _, scn := range []string{"metastable", "two-layers"} {
		for _, st := range []string{"none", "naive", "cortex"} {
			assert.Equal(t, scn, doc.Runs[i].Scenario)
			assert.Equal(t, st, doc.Runs[i].Strategy)
			i++
		}
	}
	assert.Zero(t, doc.Runs[0].Retries, "none never retries")
	assert.Positive(t, doc.Runs[1].Retries)
	_, again, _ := execute(args...)
	assert.Equal(t, out, again, "stable order and numbers")
	assert.Empty(t, errOut, "no progress line when stderr is not a terminal")
}

// TestBenchMarkdownAndSeed asserts the markdown table (header, separator, one row per run)
// and that --seed replaces each scenario's own seed.
func TestBenchMarkdownAndSeed(t *testing.T) {
	code, out, errOut := execute("bench", "--scenario", "metastable", "--strategy", "naive,budget", "--format", "markdown")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4)
	assert.True(t, strings.HasPrefix(lines[0], "| scenario | strategy | success |"))
	assert.True(t, strings.HasPrefix(lines[2], "| metastable | naive |"))
	assert.True(t, strings.HasPrefix(lines[3], "| metastable | budget |"))

	_, a, _ := execute("bench", "--scenario", "metastable", "--strategy", "naive", "--format", "json", "--seed", "1")
	_, b, _ := execute("bench", "--scenario", "metastable", "--strategy", "naive", "--format", "json", "--seed", "2")
	assert.NotEqual(t, a, b)
	assert.Contains(t, b, `"seed":2`)
}

// TestBenchErrors asserts that bad lists and formats are usage errors (status 2) naming the
// bad value, with nothing on stdout.
func TestBenchErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--strategy", "naive,yolo"}, "yolo"},
		{[]string{"--scenario", "atlantis"}, "atlantis"},
		{[]string{"--format", "html"}, "html"},
		{[]string{"extra"}, "extra"},
	}
	for _, c := range cases {
		code, out, errOut := execute(append([]string{"bench"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, c.want)
	}
}

// TestBenchAndRunHelp asserts that both commands document themselves.
func TestBenchAndRunHelp(t *testing.T) {
	for _, cmd := range []string{"bench", "run"} {
		code, out, _ := execute(cmd, "--help")
		assert.Equal(t, 0, code)
		assert.Contains(t, out, "--format")
		assert.Contains(t, out, "--scenario-file")
	}
}
