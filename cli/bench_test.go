package cli_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
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
	_, out, _ := execute("bench", "--help")
	for _, s := range []string{"--seeds", "1-3,7", `"cells"`, "min-max", "never n/N"} {
		assert.Contains(t, out, s, "bench --help documents --seeds")
	}
}

// benchDoc is bench's JSON document with its cells.
type benchDoc struct {
	Runs  []report.Summary
	Cells []report.Cell
}

// benchJSON runs bench with args and --format json and decodes the document.
func benchJSON(t *testing.T, args ...string) benchDoc {
	t.Helper()
	code, out, errOut := execute(append(append([]string{"bench"}, args...), "--format", "json")...)
	require.Equal(t, 0, code, errOut)
	var doc benchDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	return doc
}

// TestBenchSeedsEqualOneSeedAtATime asserts that `bench --seeds` runs exactly the runs that
// `bench --seed N` makes one seed at a time (same summaries, byte for byte in JSON), ordered by
// scenario, then strategy, then seed as written, and that its cells aggregate those runs.
func TestBenchSeedsEqualOneSeedAtATime(t *testing.T) {
	scns, strats, seeds := []string{"metastable", "two-layers"}, []string{"none", "naive"}, []int64{3, 1, 2}
	all := benchJSON(t, "--scenario", strings.Join(scns, ","), "--strategy", strings.Join(strats, ","), "--seeds", "3,1-2")
	byKey := map[string]report.Summary{}
	for _, seed := range seeds {
		one := benchJSON(t, "--scenario", strings.Join(scns, ","), "--strategy", strings.Join(strats, ","), "--seed", strconv.FormatInt(seed, 10))
		require.Len(t, one.Runs, len(scns)*len(strats))
		for _, r := range one.Runs {
			byKey[r.Scenario+"/"+r.Strategy+"/"+strconv.FormatInt(r.Seed, 10)] = r
		}
	}
	require.Len(t, all.Runs, len(scns)*len(strats)*len(seeds))
	i := 0
	for _, scn := range scns {
		for _, st := range strats {
			for _, seed := range seeds {
				want, ok := byKey[scn+"/"+st+"/"+strconv.FormatInt(seed, 10)]
				require.True(t, ok)
				assert.Equal(t, want, all.Runs[i], "run %d: %s %s seed %d", i, scn, st, seed)
				i++
			}
		}
	}
	assert.Equal(t, report.Aggregate(all.Runs), all.Cells, "the cells aggregate the runs")
	require.Len(t, all.Cells, len(scns)*len(strats))
	assert.Equal(t, seeds, all.Cells[0].Seeds)
}

// TestBenchSeedsTables asserts the table and markdown with several seeds (one row per scenario
// x strategy, the cells of report.WriteCellsMarkdown) and with a single seed (one row per run,
// exactly as --seed prints it).
func TestBenchSeedsTables(t *testing.T) {
	// Whole runs of metastable: what they check is the tables' layout, not the bench pool's
	// concurrency, which TestBenchSeedsEqualOneSeedAtATime and TestBenchJSON check under the race
	// detector.
	racedetect.SkipWholeRuns(t)
	args := []string{"bench", "--scenario", "metastable", "--strategy", "none,budget", "--seeds", "1-3"}
	code, md, errOut := execute(append(args, "--format", "markdown")...)
	require.Equal(t, 0, code, errOut)
	doc := benchJSON(t, args[1:]...)
	var want strings.Builder
	require.NoError(t, report.WriteCellsMarkdown(&want, doc.Cells))
	assert.Equal(t, want.String(), md)
	assert.Len(t, strings.Split(strings.TrimSpace(md), "\n"), 2+2)

	code, table, errOut := execute(append(args, "--format", "table")...)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(table, "3 seeds (1-3): "), "the table names its seeds")

	for _, format := range []string{"markdown", "table"} {
		_, one, _ := execute("bench", "--scenario", "metastable", "--strategy", "none,budget", "--seeds", "2", "--format", format)
		_, plain, _ := execute("bench", "--scenario", "metastable", "--strategy", "none,budget", "--seed", "2", "--format", format)
		assert.Equal(t, plain, one, "%s: one seed prints as today", format)
	}
}

// TestBenchSeedsErrors asserts that a bad --seeds, or --seeds with --seed, is a usage error
// (status 2) that says what is wrong, with nothing on stdout and no run made.
func TestBenchSeedsErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", ""}, "no seeds"},
		{[]string{"--seeds", "5-1"}, "reversed"},
		{[]string{"--seeds", "one"}, `"one" is not a seed`},
		{[]string{"--seeds", "1,2,1"}, "named twice"},
		{[]string{"--seeds", "1-1000000000"}, "more than 1000 seeds"},
		{[]string{"--seeds", "1-3", "--seed", "4"}, "--seed and --seeds together"},
	}
	for _, c := range cases {
		code, out, errOut := execute(append([]string{"bench", "--scenario", "metastable"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, c.want)
	}
}

// TestBenchMatrix asserts that --format matrix prints one row per scenario and one column per
// strategy, each cell the success rate the JSON of the same runs gives, averaged over the seeds,
// then the scenario's mean oracle bound and cortex's success over it.
func TestBenchMatrix(t *testing.T) {
	// Whole runs of metastable and two-layers: what they check is the matrix's cells, not the bench
	// pool's concurrency, which TestBenchSeedsEqualOneSeedAtATime and TestBenchJSON check under the
	// race detector.
	racedetect.SkipWholeRuns(t)
	args := []string{"bench", "--scenario", "metastable,two-layers", "--strategy", "none,cortex", "--seeds", "1-2"}
	code, out, errOut := execute(append(args, "--format", "matrix")...)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	assert.Equal(t, "| scenario | none | cortex | oracle | cortex/oracle |", lines[0])

	_, js, _ := execute(append(args, "--format", "json")...)
	var doc struct {
		Cells []report.Cell `json:"cells"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc))
	require.Len(t, doc.Cells, 4)
	for i, sc := range []string{"metastable", "two-layers"} {
		row := "| " + sc
		for _, c := range doc.Cells[2*i : 2*i+2] {
			row += " | " + strconv.FormatFloat(100*c.SuccessRate.Mean, 'f', 1, 64) + "%"
			if c.CrashesTotal > 0 {
				row += " (" + strconv.Itoa(c.CrashesTotal) + ")"
			}
		}
		cortex := doc.Cells[2*i+1]
		require.Equal(t, "cortex", cortex.Strategy)
		require.NotNil(t, cortex.Oracle)
		assert.Equal(t, *doc.Cells[2*i].Oracle, *cortex.Oracle, "the scenario's oracle, whatever the strategy")
		row += " | " + strconv.FormatFloat(100*cortex.Oracle.SuccessRate.Mean, 'f', 1, 64) + "%"
		row += " | " + strconv.FormatFloat(cortex.SuccessRate.Mean/cortex.Oracle.SuccessRate.Mean, 'f', 2, 64)
		assert.Equal(t, row+" |", lines[2+i])
	}
}

// TestBenchTargets asserts that --format targets prints cortex's targets table from the runs it
// made (a row per scenario, the count of scenarios meeting every target), the same figures as
// the JSON of the same runs, and refuses a bench without cortex.
func TestBenchTargets(t *testing.T) {
	// Whole runs of metastable: what they check is the targets table, not the bench pool's
	// concurrency, which TestBenchSeedsEqualOneSeedAtATime and TestBenchJSON check under the race
	// detector.
	racedetect.SkipWholeRuns(t)
	args := []string{"--scenario", "metastable", "--strategy", "none,cortex", "--seeds", "1-2"}
	code, out, errOut := execute(append(append([]string{"bench"}, args...), "--format", "targets")...)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 5, out)
	assert.True(t, strings.HasPrefix(lines[0], "| scenario | cortex | best other | none | oracle | cortex/oracle |"))
	doc := benchJSON(t, args...)
	var cx, none float64
	for _, c := range doc.Cells {
		switch c.Strategy {
		case "cortex":
			cx = c.SuccessRate.Mean
		case "none":
			none = c.SuccessRate.Mean
		}
	}
	assert.True(t, strings.HasPrefix(lines[2], fmt.Sprintf("| metastable | %.1f%% | none %.1f%% | %.1f%% |", 100*cx, 100*none, 100*none)), lines[2])
	assert.Regexp(t, `^cortex meets every target in [01] of 1 scenarios\.$`, lines[4])

	code, _, errOut = execute("bench", "--scenario", "metastable", "--strategy", "none", "--format", "targets")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "add cortex to --strategy")
}
