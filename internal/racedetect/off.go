//go:build !race

package racedetect

// Enabled reports whether the binary was built with the race detector (go test -race).
const Enabled = false
