package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syntheticRuns returns runs of two scenario x strategy pairs over seeds 4, 5 and 6, with
// figures that differ per seed, a recovery missing in some seeds and a priority that has no
// arrivals in one seed; the runs are interleaved so the grouping is exercised.
func syntheticRuns() []Summary {
	var runs []Summary
	for i, seed := range []int64{4, 5, 6} {
		f := float64(i)
		for j, strat := range []string{"naive", "cortex"} {
			g := float64(j)
			s := Summary{Scenario: "s", Strategy: strat, Seed: seed,
				SuccessRate: 0.3 + 0.1*f + 0.2*g, Goodput: 100 + 7*f*f - 3*g, PeakAmplification: 4 - f + g,
				Amplification: 2 + 0.05*f*g, Retries: 1000 + 333*i + 10*j, WastedRetries: 900 + 11*i*i,
				Crashes: (i + j) % 3, PrioritySuccess: map[string]float64{"9": 0.5 + 0.1*f, "1": 0.2 + 0.05*g}}
			if i != 1 || j == 1 {
				r := 20 + 3*f + g
				s.RecoverySeconds = &r
			}
			if i == 2 && j == 0 {
				delete(s.PrioritySuccess, "1")
			}
			// The oracle is the scenario x seed's: the same for both strategies.
			s.Oracle = &Oracle{SuccessRate: 0.9 + 0.02*f, PrioritySuccess: map[string]float64{"9": 1, "1": 0.8 + 0.04*f}}
			runs = append(runs, s)
		}
	}
	return runs
}

// wantStat computes the mean, min and max of xs, rounded as Stat is.
func wantStat(xs []float64) Stat {
	sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		sum += x
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return Stat{Mean: round(sum/float64(len(xs)), 4), Min: round(lo, 4), Max: round(hi, 4)}
}

// Asserts that Aggregate gives one cell per scenario x strategy in the order the pairs first
// appear, with the seeds in run order, and every figure's mean, min and max over the seeds
// (recovery over the seeds that recovered, a priority over the seeds where it had arrivals),
// all computed here from the input runs.
func TestAggregate(t *testing.T) {
	runs := syntheticRuns()
	cells := Aggregate(runs)
	require.Len(t, cells, 2)
	assert.Equal(t, "naive", cells[0].Strategy, "first appearance order")
	assert.Equal(t, "cortex", cells[1].Strategy)
	for _, c := range cells {
		var mine []Summary
		for _, r := range runs {
			if r.Scenario == c.Scenario && r.Strategy == c.Strategy {
				mine = append(mine, r)
			}
		}
		of := func(v func(Summary) float64) Stat {
			var xs []float64
			for _, r := range mine {
				xs = append(xs, v(r))
			}
			return wantStat(xs)
		}
		var seeds []int64
		var recovery []float64
		prios := map[string][]float64{}
		total, crashed := 0, 0
		for _, r := range mine {
			seeds = append(seeds, r.Seed)
			if r.RecoverySeconds != nil {
				recovery = append(recovery, *r.RecoverySeconds)
			}
			for p, v := range r.PrioritySuccess {
				prios[p] = append(prios[p], v)
			}
			total += r.Crashes
			if r.Crashes > 0 {
				crashed++
			}
		}
		assert.Equal(t, seeds, c.Seeds)
		assert.Equal(t, of(func(s Summary) float64 { return s.SuccessRate }), c.SuccessRate)
		assert.Equal(t, of(func(s Summary) float64 { return s.Goodput }), c.Goodput)
		assert.Equal(t, of(func(s Summary) float64 { return s.PeakAmplification }), c.PeakAmplification)
		assert.Equal(t, of(func(s Summary) float64 { return s.Amplification }), c.Amplification)
		assert.Equal(t, of(func(s Summary) float64 { return float64(s.Retries) }), c.Retries)
		assert.Equal(t, of(func(s Summary) float64 { return float64(s.WastedRetries) }), c.WastedRetries)
		assert.Equal(t, of(func(s Summary) float64 { return float64(s.Crashes) }), c.Crashes)
		assert.Equal(t, total, c.CrashesTotal)
		assert.Equal(t, crashed, c.CrashedSeeds)
		assert.Equal(t, len(recovery), c.Recovered)
		assert.Equal(t, len(mine)-len(recovery), c.Never)
		require.NotNil(t, c.RecoverySeconds)
		assert.Equal(t, wantStat(recovery), *c.RecoverySeconds)
		require.Len(t, c.PrioritySuccess, len(prios))
		for p, xs := range prios {
			assert.Equal(t, wantStat(xs), c.PrioritySuccess[p], "priority %s", p)
		}
	}
	assert.Less(t, cells[0].Recovered, len(cells[0].Seeds), "the case has a seed that never recovered")
}

// Asserts that a cell whose seeds all never recovered has a null recovery, and that a single
// run gives mean = min = max.
func TestAggregateEdges(t *testing.T) {
	cells := Aggregate([]Summary{{Scenario: "a", Strategy: "naive", Seed: 1, SuccessRate: 0.25, Crashes: 2}})
	require.Len(t, cells, 1)
	c := cells[0]
	assert.Nil(t, c.RecoverySeconds)
	assert.Equal(t, 1, c.Never)
	assert.Equal(t, Stat{Mean: 0.25, Min: 0.25, Max: 0.25}, c.SuccessRate)
	assert.Empty(t, Aggregate(nil))
}

// Asserts the cells' text: each figure as "mean (min-max)" formatted from the cell's own
// Stats, the mean alone where every seed gave the same, recovery with "never n/N" for the seeds
// that did not recover, and crashes as the total "in" the seeds that crashed.
func TestCellsPrinters(t *testing.T) {
	cells := Aggregate(syntheticRuns())
	var md, tb bytes.Buffer
	require.NoError(t, WriteCellsMarkdown(&md, cells))
	require.NoError(t, WriteCellsTable(&tb, cells))
	lines := strings.Split(strings.TrimSpace(md.String()), "\n")
	require.Len(t, lines, 2+len(cells))
	assert.Equal(t, "| "+strings.Join(benchColumns, " | ")+" |", lines[0])
	for i, c := range cells {
		cols := strings.Split(strings.Trim(lines[2+i], "| "), " | ")
		require.Len(t, cols, len(benchColumns))
		pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
		assert.Equal(t, pct(c.SuccessRate.Mean)+"% ("+pct(c.SuccessRate.Min)+"-"+pct(c.SuccessRate.Max)+")", cols[2])
		require.NotNil(t, c.Oracle)
		assert.Equal(t, "92.0% (90.0-94.0)", cols[3], "the oracle over the seeds")
		n := strconv.Itoa(len(c.Seeds))
		if c.Never > 0 {
			assert.True(t, strings.HasSuffix(cols[9], ", never "+strconv.Itoa(c.Never)+"/"+n), cols[9])
		}
		assert.True(t, strings.HasPrefix(cols[9], strconv.FormatFloat(c.RecoverySeconds.Mean, 'f', 1, 64)+"s ("), cols[9])
		assert.Equal(t, strconv.Itoa(c.CrashesTotal)+" in "+strconv.Itoa(c.CrashedSeeds)+"/"+n, cols[10])
		assert.Contains(t, cols[11], "p9 "+percent(c.PrioritySuccess["9"].Mean))
		assert.Contains(t, tb.String(), cols[2], "the table has the same cells")
	}
	assert.True(t, strings.HasPrefix(tb.String(), "3 seeds (4-6): "+CellsLegend), "the table says what its cells are")

	same := Aggregate([]Summary{{Scenario: "a", Strategy: "none", Seed: 1, Amplification: 1}, {Scenario: "a", Strategy: "none", Seed: 2, Amplification: 1}})
	assert.Equal(t, "1.00x", cellTexts(same[0])[6], "every seed alike: the mean alone")
	assert.Equal(t, "never 2/2", cellTexts(same[0])[9])
	assert.Equal(t, "0", cellTexts(same[0])[10])
	assert.Equal(t, "-", cellTexts(same[0])[3], "no oracle (a closed loop): a dash")
}

// Asserts bench's JSON document with cells: "runs" as given, one object per run, and "cells",
// one per scenario x strategy with the seeds and mean/min/max objects.
func TestBenchJSONCells(t *testing.T) {
	runs := syntheticRuns()
	var b bytes.Buffer
	require.NoError(t, WriteBenchJSON(&b, runs))
	var doc struct {
		Runs  []Summary
		Cells []map[string]any
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, runs, doc.Runs)
	require.Len(t, doc.Cells, 2)
	c := doc.Cells[0]
	for _, k := range []string{"scenario", "strategy", "seeds", "success_rate", "goodput", "peak_amplification",
		"amplification", "retries", "wasted_retries", "recovery_seconds", "recovered", "never", "crashes",
		"crashes_total", "crashed_seeds", "priority_success", "oracle"} {
		assert.Contains(t, c, k)
	}
	oracle, ok := c["oracle"].(map[string]any)
	require.True(t, ok, "the cell's oracle: %v", c["oracle"])
	assert.Equal(t, map[string]any{"mean": 0.92, "min": 0.9, "max": 0.94}, oracle["success_rate"])
	assert.Equal(t, map[string]any{"mean": 0.84, "min": 0.8, "max": 0.88}, oracle["priority_success"].(map[string]any)["1"])
	assert.Equal(t, []any{4.0, 5.0, 6.0}, c["seeds"])
	sr, ok := c["success_rate"].(map[string]any)
	require.True(t, ok)
	assert.Len(t, sr, 3)
	for _, k := range []string{"mean", "min", "max"} {
		assert.Contains(t, sr, k)
	}

	b.Reset()
	require.NoError(t, WriteBenchJSON(&b, nil))
	assert.Equal(t, `{"runs":[],"cells":[]}`+"\n", b.String())
}

// Asserts that seedList writes runs of consecutive seeds as ranges, in the given order.
func TestSeedList(t *testing.T) {
	assert.Equal(t, "1-10", seedList([]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}))
	assert.Equal(t, "1-3, 7", seedList([]int64{1, 2, 3, 7}))
	assert.Equal(t, "7, 1-2", seedList([]int64{7, 1, 2}))
	assert.Equal(t, "5", seedList([]int64{5}))
}

// TestCellsMatrix asserts the matrix printer: one row per scenario and one column per strategy
// in the order they first appear, each cell the cell's mean success rate with its total crashes
// when any, and "-" where a scenario was not run with a strategy.
func TestCellsMatrix(t *testing.T) {
	runs := syntheticRuns()
	more := runs[0]
	more.Scenario, more.Strategy, more.Crashes = "t", "none", 0
	cells := Aggregate(append(runs, more))
	var b bytes.Buffer
	require.NoError(t, WriteCellsMatrix(&b, cells))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4, b.String())
	assert.Equal(t, "| scenario | naive | cortex | none | oracle | cortex/oracle |", lines[0])
	want := func(c Cell) string {
		text := percent(c.SuccessRate.Mean)
		if c.CrashesTotal > 0 {
			text += " (" + strconv.Itoa(c.CrashesTotal) + ")"
		}
		return text
	}
	ratio := strconv.FormatFloat(cells[1].SuccessRate.Mean/cells[1].Oracle.SuccessRate.Mean, 'f', 2, 64)
	assert.Equal(t, "| s | "+want(cells[0])+" | "+want(cells[1])+" | - | 92.0% | "+ratio+" |", lines[2])
	assert.Equal(t, "| t | - | - | "+want(cells[2])+" | 90.0% | - |", lines[3], "no cortex run: no ratio")
	assert.Positive(t, cells[0].CrashesTotal+cells[1].CrashesTotal, "the synthetic runs crash, so brackets are exercised")
}
