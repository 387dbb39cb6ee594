package sim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Asserts that circuit events say how many clients are OPEN (and HALF_OPEN) and are emitted
// only when those counts change: never twice the same text in a row, never at the start.
func TestCircuitEventsOnlyOnChange(t *testing.T) {
	for _, strat := range []string{"cortex", "breaker"} {
		scn, err := scenarios.Lookup("black-friday")
		require.NoError(t, err)
		s, err := New(scn, strat, 1)
		require.NoError(t, err)
		var texts []string
		for !s.Done() {
			for _, e := range s.Step().Events {
				if e.Kind == source.EventCircuit {
					require.NotZero(t, e.T, "%s: no circuit event before anything happened", strat)
					texts = append(texts, e.Text)
				}
			}
		}
		require.NotEmpty(t, texts, "%s: the circuits of black-friday open at some point (the outage)", strat)
		for i, txt := range texts {
			assert.True(t, strings.HasPrefix(txt, "circuit: "), txt)
			if i > 0 {
				assert.NotEqual(t, texts[i-1], txt, "%s: event %d repeats the previous one", strat, i)
			}
		}
	}
}
