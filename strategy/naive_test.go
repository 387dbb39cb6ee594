package strategy

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestNaiveRetriesAtOnce asserts that naive retries at once for retry indices 0..2 (a negative
// index counting as 0) and gives MAX_RETRIES_EXCEEDED from index 3 on.
func TestNaiveRetriesAtOnce(t *testing.T) {
	tests := []struct {
		retry int
		want  Verdict
	}{
		{-1, Verdict{Retry: true, Action: engine.Retry, Reason: "RETRY"}},
		{0, Verdict{Retry: true, Action: engine.Retry, Reason: "RETRY"}},
		{2, Verdict{Retry: true, Action: engine.Retry, Reason: "RETRY"}},
		{3, Verdict{Action: engine.MaxRetriesExceeded, Reason: "MAX_RETRIES_EXCEEDED"}},
		{9, Verdict{Action: engine.MaxRetriesExceeded, Reason: "MAX_RETRIES_EXCEEDED"}},
	}
	s := NewNaive()
	for _, tt := range tests {
		for _, o := range failures {
			assert.Equal(t, tt.want, s.Decide(t0, att(5, tt.retry), o), "retry %d outcome %d", tt.retry, o)
		}
	}
	assert.True(t, s.Admit(t0, att(0, 3)).Admitted())
}
