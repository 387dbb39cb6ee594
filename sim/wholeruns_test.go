package sim

import "testing"

// wholeRuns skips a test that steps whole runs of many scenarios on one goroutine when the race
// detector is on: it has no concurrency for the detector to check and runs about twenty times
// slower under it (TestDecisionsReconcile alone took two minutes). make test runs the package
// again without the detector, so these tests run on every make test all the same.
func wholeRuns(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("whole single-goroutine runs: checked by make test's run without the race detector")
	}
}
