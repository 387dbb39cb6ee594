package traffic

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Asserts that the traffic panel's "amplification now" is attempts over originals in the last
// second, and 1 when no original arrived (no division by zero).
func TestAmplificationNow(t *testing.T) {
	cases := []struct {
		originals, retries, want float64
	}{
		{originals: 500, retries: 0, want: 1},
		{originals: 500, retries: 1500, want: 4},
		{originals: 547, retries: 101, want: 648.0 / 547},
		{originals: 0, retries: 30, want: 1},
	}
	for _, tc := range cases {
		assert.InDelta(t, tc.want, amplificationNow(tc.originals, tc.retries), 1e-9, "%v", tc)
	}
}
