package lesson_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

// TestBuiltinLessonsReachable asserts that every built-in lesson can be completed: a headless
// run of its scenario, started with its strategy and seed, in which each step's actions are
// applied when the step begins (what its hint asks the learner to do), meets every step's goals
// before the run ends, one step after the other.
func TestBuiltinLessonsReachable(t *testing.T) {
	// Every lesson's whole run: Whole simulated runs on one goroutine (the simulator starts none):
	// nothing for the race detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	ls := scenarios.Lessons()
	assert.GreaterOrEqual(t, len(ls), 6, "at least six lessons")
	for _, l := range ls {
		t.Run(l.Name, func(t *testing.T) {
			scn, err := scenarios.Lookup(l.Scenario)
			require.NoError(t, err)
			src, err := sim.NewSource(scn, l.Strategy, scn.Seed)
			require.NoError(t, err)
			defer src.Close()
			done, err := lesson.Solve(l, src)
			require.NoError(t, err)
			assert.Len(t, done, len(l.Steps), "every step completed")
			t.Logf("%s: steps completed at %v", l.Name, done)
		})
	}
}

// TestReadingCPSNeedsTheWeight asserts that the reading-cps lesson teaches what it says: with
// the default weights (its weight action left out, and its goal on the weight dropped) the
// CPS does not reach the goal's level during the first slow query, so only raising L
// completes it.
func TestReadingCPSNeedsTheWeight(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	l, err := scenarios.LookupLesson("reading-cps")
	require.NoError(t, err)
	require.Len(t, l.Steps, 2)
	last := &l.Steps[1]
	var goals []scenarios.Goal
	for _, g := range last.Goals {
		if g.Metric.ID != scenarios.MetricWeight {
			goals = append(goals, g)
		}
	}
	require.Len(t, goals, len(last.Goals)-1, "the last step asks for the weight")
	last.Goals = goals
	l.Steps = l.Steps[1:] // no weight action
	scn, err := scenarios.Lookup(l.Scenario)
	require.NoError(t, err)
	src, err := sim.NewSource(scn, l.Strategy, scn.Seed)
	require.NoError(t, err)
	defer src.Close()
	_, err = lesson.Solve(l, src)
	assert.Error(t, err, "the default weights miss the early warning")
}
