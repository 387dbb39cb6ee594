// Package racedetect tells a test whether it runs under the race detector, which makes the
// simulator about twenty times slower. Tests that step whole runs on one goroutine, where the
// detector has nothing to check, skip themselves under it with SkipWholeRuns; make test runs
// their packages a second time without it, so they run on every make test all the same.
package racedetect

import "testing"

// SkipWholeRuns skips t under the race detector: t steps whole simulated runs on one goroutine.
func SkipWholeRuns(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("whole single-goroutine runs: make test runs them without the race detector")
	}
}
