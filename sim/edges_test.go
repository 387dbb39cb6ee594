package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that a drain of 0 is honoured: the run ends with the last arrival instead of
// getting the 30 s default (Parse fills that default for files that leave drain out).
func TestZeroDrainEndsWithTheArrivals(t *testing.T) {
	scn := testScenario()
	scn.Drain = 0
	s, err := New(scn, "none", 1)
	require.NoError(t, err)
	assert.Equal(t, scn.Duration, s.Meta().Total)
	assert.Equal(t, scn.Duration, s.Meta().Duration, "the arrival phase")
	steps := 0
	for !s.Done() {
		s.Step()
		steps++
	}
	assert.Equal(t, int(scn.Duration/s.Meta().Tick), steps)
}

// Asserts that every tick that ends with the service DOWN or CRASHED reports zero capacity,
// including the tick in which it crashed (it used to keep that tick's capacity).
func TestNoCapacityWhileDown(t *testing.T) {
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	s, err := New(scn, "naive", 1)
	require.NoError(t, err)
	crashes := 0
	for !s.Done() {
		snap := s.Step()
		if !snap.Service.State.Serving() {
			assert.Zero(t, snap.Service.Capacity, "at %s (%s)", snap.T, snap.Service.State)
		}
		crashes += snap.Counts.Crashes
	}
	require.Positive(t, crashes, "naive crashes black-friday, so the case is exercised")
}
