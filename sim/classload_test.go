package sim

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that a class with load points of its own surges alone: from 20 s to 40 s its
// arrivals are 12 times its base rate while the other class stays at its own, each within 4
// standard deviations of its Poisson mean, and that both follow the scenario's profile on top
// (doubled from 40 s).
func TestClassSurgesAlone(t *testing.T) {
	scn := testScenario()
	scn.Classes[0].Rate, scn.Classes[1].Rate = 50, 5
	scn.Classes[1].Load = []scenarios.LoadPoint{{At: 20 * time.Second, Factor: 1}, {At: 20*time.Second + time.Nanosecond, Factor: 12},
		{At: 40 * time.Second, Factor: 12}, {At: 40*time.Second + time.Nanosecond, Factor: 1}}
	scn.Load = []scenarios.LoadPoint{{At: 40 * time.Second, Factor: 1}, {At: 40*time.Second + time.Nanosecond, Factor: 2}}
	s, err := New(scn, "none", 1)
	require.NoError(t, err)
	counts := [3][2]int{} // windows [0, 20), [20, 40), [40, 60) x class
	for _, snap := range stepAll(t, s) {
		if w := int((snap.T - snap.Dt) / (20 * time.Second)); w < 3 {
			for c := range counts[w] {
				counts[w][c] += snap.Classes[c].Arrived
			}
		}
	}
	want := [3][2]float64{{50 * 20, 5 * 20}, {50 * 20, 5 * 12 * 20}, {2 * 50 * 20, 2 * 5 * 20}}
	for w := range want {
		for c := range want[w] {
			assert.InDelta(t, want[w][c], float64(counts[w][c]), 4*math.Sqrt(want[w][c]), "window %d, class %d", w, c)
		}
	}
}

// Asserts that in a closed loop a class's own factor scales its active users as the load
// profile does: a factor of 0 stops the class, the others go on.
func TestClosedLoopClassLoad(t *testing.T) {
	scn := loopScenario(true)
	require.GreaterOrEqual(t, len(scn.Classes), 1)
	scn.Classes = append(scn.Classes, scenarios.Class{Name: "quiet", Priority: 1, Rate: scn.Classes[0].Rate,
		Load: []scenarios.LoadPoint{{At: 0, Factor: 0}}})
	s, err := New(scn, "none", 1)
	require.NoError(t, err)
	arrived := make([]int, len(scn.Classes))
	for _, snap := range stepAll(t, s) {
		for c := range arrived {
			arrived[c] += snap.Classes[c].Arrived
		}
	}
	assert.Positive(t, arrived[0])
	assert.Zero(t, arrived[len(arrived)-1], "a class at factor 0 sends nothing")
}
