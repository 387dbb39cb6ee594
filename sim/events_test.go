package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Asserts that circuit events count the clients whose circuit is OPEN and HALF_OPEN, out of the
// fleet, and are emitted only when those counts change: never twice the same counts in a row,
// never at the start.
func TestCircuitEventsOnlyOnChange(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	for _, strat := range []string{"cortex", "breaker"} {
		scn, err := scenarios.Lookup("black-friday")
		require.NoError(t, err)
		s, err := New(scn, strat, 1)
		require.NoError(t, err)
		var evs []source.CircuitEvent
		for !s.Done() {
			for _, e := range s.Step().Events {
				if e.Kind == source.EventCircuit {
					require.NotZero(t, e.T, "%s: no circuit event before anything happened", strat)
					evs = append(evs, e.Circuit)
				}
			}
		}
		require.NotEmpty(t, evs, "%s: the circuits of black-friday open at some point (the outage)", strat)
		opened := false
		for i, e := range evs {
			assert.Equal(t, scn.Clients, e.Clients)
			assert.LessOrEqual(t, e.Open+e.HalfOpen, e.Clients)
			opened = opened || e.Open > 0
			if i > 0 {
				assert.NotEqual(t, evs[i-1], e, "%s: event %d repeats the previous one", strat, i)
			}
		}
		assert.True(t, opened, "%s: some circuit opens", strat)
	}
}
