package cli

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// oracleSeeds are the seeds TestOracleIsABound checks: 1-10, as bench --seeds 1-10 runs them.
const oracleSeeds = 10

// oracleShare is one in how many of the runs of every built-in scenario x every strategy x
// oracleSeeds TestOracleIsABound runs: strategy i with seed s when (i + s) % oracleShare == 0.
const oracleShare = 3

// TestOracleIsABound asserts that no strategy exceeds the oracle's bound in any built-in
// scenario and seed: its success rate is at most the bound's, and for every priority the
// successes of that priority and the higher ones together are at most the most the oracle can
// serve of them (so the highest priority's success is at most its bound). It can fail: the
// bound is computed from the scenario alone, the runs from the simulator's every detail.
//
// A third of the 2,100 runs (oracleShare; all of them took 48 s of make test's 2-core second
// pass): every built-in scenario with each of the seeds 1-10 (the 130 bounds of the open-loop
// ones, and the closed loop's none) against a third of the strategies, each strategy against three or four of the seeds of every scenario,
// the strategies of a seed rotating with it. Measured with every run (bench --seeds 1-10 after
// the engine's parked work of b26d2c2; before it, the same picture at 0.5-14 points): cortex is
// the run nearest the bound in every scenario, 0.4-10 points under it at best (two-layers 0.4,
// metastable 0.6), its margins moving by about a point from seed to seed; so the third keeps
// cortex on seeds 3, 6 and 9 of every scenario. A bound made a point too low (Bound.Rate x
// 0.99, tried) fails here: metastable with cortex on seeds 3, 6 and 9 and two-layers on 3 and 9
// above it (two-layers on 3, 6, 9 and metastable on 9 before b26d2c2).
func TestOracleIsABound(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every built-in scenario over ten seeds, each with a third of the strategies")
	}
	// Ten times slower under the race detector (55 s of CPU for one seed), which would find
	// nothing here that the other bench tests do not exercise (the parallel runs and their
	// shared oracles): make test runs this test without it.
	racedetect.SkipWholeRuns(t)
	var jobs []benchJob
	for i, scn := range scenarios.Catalog() {
		for k, st := range strategy.Names() {
			for seed := int64(1); seed <= oracleSeeds; seed++ {
				if (int64(k)+seed)%oracleShare == 0 {
					jobs = append(jobs, benchJob{scn: scn, scnIndex: i, strategy: st, seed: seed})
				}
			}
		}
	}
	seen := map[[2]int64]bool{}
	for _, j := range jobs {
		seen[[2]int64{int64(j.scnIndex), j.seed}] = true
	}
	require.Len(t, seen, len(scenarios.Catalog())*oracleSeeds, "every scenario with every seed")
	runs, err := runJobs(context.Background(), jobs, sim.Options{}, func(int, int) {})
	require.NoError(t, err)
	bounds := map[[2]int64]sim.Bound{}
	least := map[string]float64{} // the smallest margin of each scenario, for the log
	for i, run := range runs {
		j := jobs[i]
		key := [2]int64{int64(j.scnIndex), j.seed}
		b, ok := bounds[key]
		if !ok {
			b, err = sim.Oracle(j.scn, j.seed)
			if j.scn.Loop.Closed {
				require.ErrorIs(t, err, sim.ErrClosedLoop)
				assert.Nil(t, run.Oracle, "%s: no oracle in a closed loop", j.scn.Name)
				continue
			}
			require.NoError(t, err)
			bounds[key] = b
		}
		require.NotNil(t, run.Oracle, "%s: bench carries the oracle", j.scn.Name)
		assert.InDelta(t, b.Rate(), run.Oracle.SuccessRate, 5e-5, "bench's oracle is sim.Oracle's")
		where := j.scn.Name + " with " + j.strategy + ", seed " + strconv.FormatInt(j.seed, 10)
		// Rates are rounded to 4 decimals: a tolerance of half the last digit.
		assert.LessOrEqual(t, run.SuccessRate, b.Rate()+5e-5, "%s: success above the oracle", where)
		if m, seen := least[j.scn.Name]; !seen || b.Rate()-run.SuccessRate < m {
			least[j.scn.Name] = b.Rate() - run.SuccessRate
		}
		succeeded := 0.0
		for _, p := range b.Priorities {
			succeeded += run.PrioritySuccess[strconv.Itoa(p.Priority)] * float64(p.Arrived)
			assert.LessOrEqual(t, succeeded, p.AtLeast+5e-5*float64(b.Arrived),
				"%s: the successes of priority %d and above exceed the oracle's", where, p.Priority)
		}
		top := b.Priorities[0]
		assert.LessOrEqual(t, run.PrioritySuccess[strconv.Itoa(top.Priority)], top.Rate()+5e-5,
			"%s: the top priority above its bound", where)
	}
	for _, scn := range scenarios.Catalog() {
		if m, ok := least[scn.Name]; ok {
			t.Logf("%-18s the best run is %.1f points under the oracle", scn.Name, 100*m)
		}
	}
}
