package source

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Asserts that CortexSum averages the engines' signals, CPS and tokens, keeps their spread,
// reads the band and floor of the mean CPS from engine, counts circuits (clients without an
// engine too) and picks the most common one; and that an empty sum has no view.
func TestCortexSum(t *testing.T) {
	var sum CortexSum
	assert.Nil(t, sum.View(engine.DefaultEmergencyThreshold), "no engine: no view")
	w := engine.DefaultWeights()
	sum.Add(&engine.Snapshot{Weights: w, Signals: engine.Signals{F: 0.2, L: 0.4}, CPS: 0.2, Tokens: 10, Circuit: engine.Open})
	sum.Add(&engine.Snapshot{Weights: w, Signals: engine.Signals{F: 0.6, L: 0.0}, CPS: 0.6, Tokens: 30, Circuit: engine.Open})
	sum.AddCircuit(engine.HalfOpen)
	sum.AddCircuit(engine.CircuitState(9)) // out of range: not counted
	v := sum.View(engine.DefaultEmergencyThreshold)
	require.NotNil(t, v)
	assert.InDelta(t, 0.4, v.Signals.F, 1e-12)
	assert.InDelta(t, 0.2, v.Signals.L, 1e-12)
	assert.Equal(t, engine.Signals{F: 0.2}, v.SigMin)
	assert.Equal(t, engine.Signals{F: 0.6, L: 0.4}, v.SigMax)
	assert.InDelta(t, 0.4, v.CPS, 1e-12)
	assert.Equal(t, 0.2, v.CPSMin)
	assert.Equal(t, 0.6, v.CPSMax)
	assert.Equal(t, 20.0, v.Tokens)
	assert.Equal(t, engine.FloorFor(v.CPS), v.Floor)
	assert.Equal(t, engine.StateFor(v.CPS, engine.DefaultEmergencyThreshold), v.State)
	assert.Equal(t, engine.Open, v.Circuit)
	assert.Equal(t, 2, v.Open)
	open, half := sum.Circuits()
	assert.Equal(t, [2]int{2, 1}, [2]int{open, half})
	assert.Equal(t, w, v.Weights)
	sum.Reset()
	assert.Nil(t, sum.View(engine.DefaultEmergencyThreshold), "Reset empties it")
}
