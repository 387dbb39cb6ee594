package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchInstances asserts that bench --instances runs each scenario once per fleet size, its
// rows named after it, that a fleet of a thousand instances on one shared budget runs (one
// in-process store, a thousand members on virtual time) and differs from the scenario's fifty,
// and that a size out of range is a usage error.
func TestBenchInstances(t *testing.T) {
	doc := benchJSON(t, "--scenario", "shared-budget", "--strategy", "cortex", "--budget", "shared", "--instances", "50,1000")
	require.Len(t, doc.Runs, 2)
	fifty, thousand := doc.Runs[0], doc.Runs[1]
	assert.Equal(t, "shared-budget (shared, 50 instances)", fifty.Scenario)
	assert.Equal(t, "shared-budget (shared, 1000 instances)", thousand.Scenario)
	assert.Positive(t, thousand.SuccessRate)
	assert.NotEqual(t, fifty.Retries, thousand.Retries, "the fleet's size changes how its budget is leased")
	for _, bad := range []string{"0", "1001", "x"} {
		code, _, errOut := execute("bench", "--scenario", "shared-budget", "--instances", bad)
		assert.Equal(t, 2, code, bad)
		assert.Contains(t, errOut, "--instances", bad)
	}
}
