package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// noneMarginShare is the largest share of crash_after that `none` may spend above the crash
// factor, without a break, in a built-in scenario: a run of no retries at all must stay well
// clear of the crash rule, not a Poisson draw away from it.
const noneMarginShare = 0.5

// marginSeeds are the seeds the margin is asserted over (bench --seeds 1-10).
const marginSeeds = 10

// longestOverload runs scn with strategy from seed to the end and returns the longest time the
// crash rule's overload clock ran without a break (source.Service.Overload) and the crashes.
func longestOverload(t *testing.T, scn scenarios.Scenario, strategy string, seed int64) (time.Duration, int) {
	t.Helper()
	s, err := New(scn, strategy, seed)
	require.NoError(t, err)
	var longest time.Duration
	crashes := 0
	for !s.Done() {
		sn := s.Step()
		longest = max(longest, sn.Service.Overload)
		crashes += sn.Counts.Crashes
	}
	return longest, crashes
}

// Asserts that in every built-in scenario with a crash rule, `none` (no retries at all) never
// crashes the service over seeds 1-10 and never spends more than half of crash_after above the
// crash factor: every built-in story has the service survive its load without retries, so a
// crash or a near miss there would be the physics' noise, not the lesson. The margin of each
// scenario is logged (go test -run TestNoneMargin -v).
func TestNoneMargin(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	if testing.Short() {
		t.Skip("runs every built-in scenario over ten seeds")
	}
	checked := 0
	for _, scn := range scenarios.Catalog() {
		if scn.Service.CrashFactor == 0 {
			continue
		}
		checked++
		var worst time.Duration
		worstSeed := int64(0)
		for seed := int64(1); seed <= marginSeeds; seed++ {
			longest, crashes := longestOverload(t, scn, "none", seed)
			assert.Zero(t, crashes, "%s, seed %d: none crashed", scn.Name, seed)
			if longest > worst {
				worst, worstSeed = longest, seed
			}
		}
		share := worst.Seconds() / scn.Service.CrashAfter.Seconds()
		t.Logf("%-18s crash_factor %.1f for %-3s: none's longest overload %-5s (seed %d), %.0f%% of crash_after",
			scn.Name, scn.Service.CrashFactor, scenarios.FormatDuration(scn.Service.CrashAfter), worst, worstSeed, 100*share)
		assert.Less(t, share, noneMarginShare, "%s: none over the crash factor for %s of the %s that crash it (seed %d)",
			scn.Name, worst, scn.Service.CrashAfter, worstSeed)
	}
	assert.Positive(t, checked, "some built-in scenario has a crash rule")
}
