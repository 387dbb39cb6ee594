package inspector

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Asserts that the delay's formula is filled in with the engine's figures, Random for a random
// draw and min(max, ...) when the ceiling passes the cap.
func TestDelayFormula(t *testing.T) {
	x := engine.Explanation{Attempt: 1, Base: 500e6, Factor: 5.3, MaxDelay: 30e9,
		Decision: engine.Decision{Delay: 2100e6}}
	x.Ceiling = 5300e6
	assert.Equal(t, "Random(0, 500ms × 2^1 × (1 + 4.3)) = 2.1s", delayFormula(&x))
	x.Attempt, x.Ceiling, x.Decision.Delay = 6, 500e6*64*5.3, 30e9
	assert.Equal(t, "min(30s, Random(0, 500ms × 2^6 × (1 + 4.3))) = 30s", delayFormula(&x))
}
