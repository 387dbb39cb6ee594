//go:build !race

package sim

// raceDetector reports whether the tests run under the race detector (see wholeRuns).
const raceDetector = false
