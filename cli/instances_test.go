package cli_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fleetScenario is a short scenario whose clients share one budget: cheap enough to bench with a
// thousand instances under -race.
const fleetScenario = `name = "tiny-fleet"
summary = "a tiny shared-budget scenario"
duration = "4s"
drain = "1s"
[fleet]
clients = 50
budget = "shared"
timeout = "500ms"
deadline = "2s"
[[class]]
name = "payment"
priority = 9
rate = 200
[service]
workers = 20
service_time = "20ms"
queue_limit = 20
[[fault]]
kind = "errors"
fraction = 0.5
at = "1s"
duration = "2s"
`

// TestBenchInstances asserts that bench --instances runs each scenario once per fleet size, its
// rows named after it, that a fleet of a thousand instances on one shared budget runs (one
// in-process store, a thousand members on virtual time) and differs from fifty, and that a size
// out of range is a usage error.
func TestBenchInstances(t *testing.T) {
	path := writeScenario(t, fleetScenario)
	doc := benchJSON(t, "--scenario-file", path, "--strategy", "cortex", "--instances", "50,1000")
	require.Len(t, doc.Runs, 2)
	fifty, thousand := doc.Runs[0], doc.Runs[1]
	assert.Equal(t, "tiny-fleet (50 instances)", fifty.Scenario)
	assert.Equal(t, "tiny-fleet (1000 instances)", thousand.Scenario)
	assert.Positive(t, thousand.SuccessRate)
	assert.NotEqual(t, fifty.Retries, thousand.Retries, "the fleet's size changes how its budget is leased")
	for _, bad := range []string{"0", "1001", "x"} {
		code, _, errOut := execute("bench", "--scenario", "shared-budget", "--instances", bad)
		assert.Equal(t, 2, code, bad)
		assert.Contains(t, errOut, "--instances", bad)
	}
}
