package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// collapsed reports whether a run shows the collapse the seeds describe: the service never
// recovers, or it crashes again and again.
func collapsed(rec *float64, crashes int) bool { return rec == nil || crashes >= 2 }

// Asserts that in the seed scenarios (the Java README's four and the article's benchmark)
// naive and backoff retries collapse the service, while `none`, which adds no retries, does
// not crash: the physics the seeds teach.
func TestSeedScenariosCollapse(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	for _, name := range []string{"black-friday", "dns-crash", "food-delivery", "upi-salary-day", "article-benchmark"} {
		t.Run(name, func(t *testing.T) {
			scn, err := scenarios.Lookup(name)
			require.NoError(t, err)
			for _, strat := range []string{"naive", "backoff"} {
				res, err := run(scn, strat, scn.Seed)
				require.NoError(t, err)
				s := res.Summary
				assert.True(t, collapsed(s.RecoverySeconds, s.Crashes),
					"%s: recovery %v, %d crashes", strat, s.RecoverySeconds, s.Crashes)
			}
			res, err := run(scn, "none", scn.Seed)
			require.NoError(t, err)
			assert.Zero(t, res.Summary.Crashes, "none does not crash")
		})
	}
}

// Asserts that `none` never crashes a built-in scenario whose load stays under the service's
// capacity at all times (peak load x base rate < workers / S) and whose faults never reduce
// capacity (latency and capacity faults do): retries, not load, are what kill those services.
func TestNoneDoesNotCrashUnderCapacity(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	checked := 0
	for _, scn := range scenarios.Catalog() {
		if scn.Loop.Closed || reducesCapacity(scn) {
			continue
		}
		peak := 1.0
		if len(scn.Load) > 0 {
			peak = 0
			for _, p := range scn.Load {
				peak = max(peak, p.Factor)
			}
		}
		rate := 0.0
		for _, c := range scn.Classes {
			rate += c.Rate
		}
		if peak*rate >= scn.Service.Capacity() {
			continue
		}
		checked++
		res, err := run(scn, "none", scn.Seed)
		require.NoError(t, err)
		assert.Zero(t, res.Summary.Crashes, "%s: none crashed", scn.Name)
	}
	assert.Positive(t, checked, "at least one built-in scenario is under capacity")
}

func reducesCapacity(scn scenarios.Scenario) bool {
	for _, f := range scn.Faults {
		if f.Kind == scenarios.FaultLatency || f.Kind == scenarios.FaultCapacity {
			return true
		}
	}
	return false
}

// Asserts that every built-in scenario runs with every strategy without error and with
// every original accounted for (the bench table depends on it). Runs are cut to their first
// 20 s (+5 s of drain) to keep the test short; the bench command runs them whole.
func TestBuiltinsRun(t *testing.T) {
	racedetect.SkipWholeRuns(t) // one goroutine: make test runs it without the race detector
	cat := scenarios.Catalog()
	require.NotEmpty(t, cat)
	for _, scn := range cat {
		scn.Duration, scn.Drain = min(scn.Duration, 20*time.Second), 5*time.Second
		for _, name := range strategy.Names() {
			res, err := run(scn, name, scn.Seed)
			require.NoError(t, err, "%s with %s", scn.Name, name)
			assert.Len(t, res.Timeline, 25, "%s with %s", scn.Name, name)
		}
	}
}
