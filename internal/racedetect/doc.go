// Package racedetect tells a test whether it runs under the race detector, which makes the
// simulator and the dashboard's drawing about twenty times slower. Tests that do long work on
// one goroutine, where the detector has nothing to check (whole simulated runs, the dashboard
// driven frame after frame through Update, with no program and no command on another
// goroutine), skip themselves under it with SkipWholeRuns; so do long tests whose concurrency is
// that of code other tests check under the detector, which their comment names (bench's pool of
// whole runs, a heap bound under hostile answers). make test's second pass runs every test that
// calls it (found in the test files by the Makefile) without the detector, so they run on every
// make test all the same.
package racedetect

import "testing"

// SkipWholeRuns skips t under the race detector: t does long work on one goroutine only, or
// concurrent work that other tests, named in its comment, check under the detector.
func SkipWholeRuns(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("long work the race detector adds nothing to here: make test runs it without the detector")
	}
}
