package report

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run is a constructed Summary: success, priority 1 and 9 success, peak amplification, wasted
// retries of 100 originals, crashes; an oracle of bound (all classes at top) unless bound < 0
// (a closed loop, whose goodput is success x 1000).
func run(scenario, strategy string, seed int64, success, p1, p9, peak float64, wasted, crashes int, bound float64) Summary {
	s := Summary{Scenario: scenario, Strategy: strategy, Seed: seed, SuccessRate: success, Goodput: success * 1000, Originals: 100,
		PeakAmplification: peak, WastedRetries: wasted, Crashes: crashes,
		PrioritySuccess: map[string]float64{"1": p1, "9": p9}}
	if bound >= 0 {
		s.Oracle = NewOracle(bound, map[int]float64{1: bound, 9: bound})
	}
	return s
}

// Asserts the targets table's computation on constructed runs: each target's miss where the
// figures miss it, and a clean row where they meet every one.
func TestTargets(t *testing.T) {
	runs := []Summary{
		// misses: the best -1, none+3, 0.90 of the oracle, crashes, peak amplification, wasted
		run("bad", "cortex", 1, 0.80, 0.70, 0.96, 2.5, 20, 1, 1),
		run("bad", "cortex", 2, 0.82, 0.72, 0.96, 1.2, 10, 0, 1),
		run("bad", "none", 1, 0.78, 0.78, 0.78, 1.0, 0, 0, 1),
		run("bad", "none", 2, 0.80, 0.80, 0.80, 1.0, 0, 0, 1),
		run("bad", "breaker", 1, 0.83, 0.80, 0.86, 1.0, 0, 0, 1),
		run("bad", "breaker", 2, 0.85, 0.80, 0.90, 1.0, 0, 0, 1),
		// meets every target
		run("good", "cortex", 1, 0.95, 0.93, 0.97, 1.5, 5, 0, 0.99),
		run("good", "none", 1, 0.90, 0.90, 0.90, 1.0, 0, 0, 0.99),
		run("good", "breaker", 1, 0.94, 0.94, 0.94, 1.0, 0, 0, 0.99),
		// the top class far below its bound, a lower class ahead of it, one seed below none
		run("order", "cortex", 1, 0.92, 0.95, 0.80, 1.0, 0, 0, 1),
		run("order", "cortex", 2, 0.95, 0.95, 0.80, 1.0, 0, 0, 1),
		run("order", "none", 1, 0.94, 0.94, 0.94, 3.0, 0, 0, 1),
		run("order", "none", 2, 0.93, 0.93, 0.93, 3.0, 0, 0, 1),
		// a closed loop: goodput against the best -1% and none's seeds
		run("closed", "cortex", 1, 0.212, 0.2, 0.2, 1.0, 0, 0, -1),
		run("closed", "none", 1, 0.2135, 0.2, 0.2, 1.0, 0, 0, -1),
		run("closed", "budget", 1, 0.215, 0.2, 0.2, 1.0, 0, 0, -1),
		// cortex did not run here: no row
		run("alone", "none", 1, 0.5, 0.5, 0.5, 1.0, 0, 0, 1),
	}
	rows := Targets(runs, "cortex")
	require.Len(t, rows, 4)
	byName := map[string]TargetRow{}
	for _, r := range rows {
		byName[r.Scenario] = r
	}
	tests := []struct {
		scenario string
		misses   []string
		check    func(t *testing.T, r TargetRow)
	}{
		{"bad", []string{"below the best -1 (breaker)", "not none+3 (breaker)", "below 0.90 of the oracle", "crashes",
			"peak amplification 2.50x", "wasted 20.0%"}, func(t *testing.T, r TargetRow) {
			assert.InDelta(t, 0.81, r.Hero, 1e-9)
			assert.InDelta(t, 0.84, r.Best, 1e-9)
			assert.InDelta(t, 0.79, r.None, 1e-9)
			assert.InDelta(t, 0.81, r.OracleShare, 1e-9)
			assert.Equal(t, "9", r.Top)
			assert.InDelta(t, 0.96, r.TopRate, 1e-9)
			assert.InDelta(t, 1.0, r.TopBound, 1e-9)
			assert.Empty(t, r.OrderBreak)
			assert.Equal(t, 1, r.Crashes)
			assert.InDelta(t, 1.0, r.NonePeakAmp, 1e-9)
			assert.InDelta(t, 0.20, r.Wasted, 1e-9)
		}},
		{"good", nil, func(t *testing.T, r TargetRow) {
			assert.Equal(t, "breaker", r.BestName)
			assert.InDelta(t, 0.95/0.99, r.OracleShare, 1e-9)
		}},
		{"order", []string{"top class below its bound -5", "priority order (1>9)", "seeds below none -1 (1)"}, func(t *testing.T, r TargetRow) {
			assert.Equal(t, []int64{1}, r.BelowNone)
			assert.InDelta(t, 3.0, r.NonePeakAmp, 1e-9, "none's own amplification raises the limit")
		}},
		{"closed", []string{"goodput below the best -1% (budget)"}, func(t *testing.T, r TargetRow) {
			assert.True(t, r.Closed)
			assert.InDelta(t, 212, r.Hero, 1e-9)
			assert.True(t, math.IsNaN(r.Oracle))
			assert.Empty(t, r.BelowNone, "212 is within 1% of none's 213.5")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			r, ok := byName[tt.scenario]
			require.True(t, ok)
			assert.Equal(t, tt.misses, r.Misses)
			tt.check(t, r)
		})
	}

	var b bytes.Buffer
	require.NoError(t, WriteTargetsMarkdown(&b, rows))
	out := b.String()
	assert.Contains(t, out, "| scenario | cortex | best other | none | oracle | cortex/oracle |")
	assert.Contains(t, out, "| good | 95.0% | breaker 94.0% | 90.0% | 99.0% | 0.96 | p9 97.0% / 99.0% | ok | 0 | 1.50x (1.00x) | 5.0% | met |")
	assert.Contains(t, out, "| closed | 212.0/s | budget 215.0/s | 213.5/s | - | - | - | ok | 0 | 1.00x (1.00x) | 0.0% | goodput below the best -1% (budget) |")
	assert.Contains(t, out, "cortex meets every target in 1 of 4 scenarios.")
}
