package strategy

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestNoneNeverRetries asserts that none rejects every retryable failure with NO_RETRIES, answers
// NOT_RETRYABLE for a BadRequest, and admits every attempt.
func TestNoneNeverRetries(t *testing.T) {
	s := NewNone()
	for _, o := range failures {
		for retry := range 4 {
			v := s.Decide(t0, att(5, retry), o)
			assert.Equal(t, Verdict{Action: engine.Reject, Reason: "NO_RETRIES"}, v, "outcome %d retry %d", o, retry)
		}
	}
	assert.Equal(t, Verdict{Action: engine.NotRetryable, Reason: "NOT_RETRYABLE"}, s.Decide(t0, att(5, 0), BadRequest))
	assert.True(t, s.Admit(t0, att(0, 0)).Admitted())
}
