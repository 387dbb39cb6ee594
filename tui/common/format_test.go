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

// Asserts that whole seconds print as the header and FmtDur print from 100 s on (3m30s, never
// 210s), and as seconds below; and that FmtDur agrees with FmtSecs from 100 s on.
func TestFmtSecs(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {12 * time.Second, "12s"}, {12600 * time.Millisecond, "13s"}, {99 * time.Second, "99s"},
		{100 * time.Second, "1m40s"}, {210 * time.Second, "3m30s"}, {time.Hour, "60m00s"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, FmtSecs(tc.d), "%v", tc.d)
		if tc.d >= 100*time.Second {
			assert.Equal(t, FmtSecs(tc.d), FmtDur(tc.d), "%v", tc.d)
		}
	}
}
