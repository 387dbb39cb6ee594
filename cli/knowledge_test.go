package cli_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// TestBenchKnowledge asserts that `bench --format knowledge` prints one row per open-loop
// scenario (a closed loop has no oracle), the same on a second invocation, with each
// knowledge-removed bound at most the oracle, and that it needs cortex among the strategies.
func TestBenchKnowledge(t *testing.T) {
	// Whole runs of metastable and closed-loop, with the oracle's variants: what they check is the
	// knowledge table, not the bench pool's concurrency, which TestBenchSeedsEqualOneSeedAtATime
	// and TestBenchJSON check under the race detector.
	racedetect.SkipWholeRuns(t)
	args := []string{"bench", "--scenario", "metastable,closed-loop", "--strategy", "cortex", "--seeds", "1", "--format", "knowledge"}
	code, out, errOut := execute(args...)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Contains(t, lines[0], "| oracle | no capacity now | no fault end | no coordination | client-knowable | cortex |")
	assert.True(t, strings.HasPrefix(lines[2], "| metastable |"), lines[2])
	cells := strings.Split(lines[2], "|")
	bound := func(i int) float64 {
		x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(cells[i]), "%"), 64)
		require.NoError(t, err, cells[i])
		return x
	}
	for i := 3; i <= 6; i++ {
		assert.LessOrEqual(t, bound(i), bound(2), "column %d at most the oracle", i)
	}
	_, again, _ := execute(args...)
	assert.Equal(t, out, again)
	code, _, errOut = execute("bench", "--scenario", "metastable", "--strategy", "none", "--format", "knowledge")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "add cortex to --strategy")
}
