//go:build race

package cli

// raceDetector reports whether the tests run under the race detector, which makes the
// simulator about twenty times slower: a test that runs every built-in scenario with every
// strategy over ten seeds skips itself then (make test runs it without the detector too).
const raceDetector = true
