package common

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Asserts that delays print to the millisecond, with no float noise.
func TestFmtDelay(t *testing.T) {
	for d, want := range map[time.Duration]string{500 * time.Millisecond: "500ms", 1394 * time.Millisecond: "1.394s",
		1250 * time.Millisecond: "1.25s", 2100 * time.Millisecond: "2.1s", 30 * time.Second: "30s", 1394400 * time.Microsecond: "1.394s"} {
		assert.Equal(t, want, FmtDelay(d))
	}
}
