package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestThrottleProbability asserts p = max(0, (requests - 2*accepts) / (requests + 1)) against
// hand-computed cases, requests being counted by Admit and accepts by Record.
func TestThrottleProbability(t *testing.T) {
	tests := []struct {
		requests, accepts int
		want              float64 // hand-computed
	}{
		{0, 0, 0},
		{100, 30, 40.0 / 101},
		{100, 50, 0},
		{100, 70, 0},
		{10, 0, 10.0 / 11},
		{1000, 1, 998.0 / 1001},
	}
	for _, tt := range tests {
		s := must(NewThrottle(newRand(1), DefaultThrottleConfig()))
		for range tt.requests {
			s.Admit(t0, att(5, 0)).Admitted()
		}
		for range tt.accepts {
			s.Record(t0, att(0, 0), Success, time.Millisecond)
		}
		assert.InDelta(t, tt.want, s.Probability(t0), 1e-12, "%d requests, %d accepts", tt.requests, tt.accepts)
	}
}

// TestThrottleAccepts asserts that a success and a BadRequest count as accepts, and 429, 5xx,
// timeouts and fast failures do not.
func TestThrottleAccepts(t *testing.T) {
	for _, o := range []Outcome{Success, BadRequest, Timeout, FastFail, ServerError, Throttled} {
		s := must(NewThrottle(newRand(1), DefaultThrottleConfig()))
		for range 10 {
			s.Admit(t0, att(5, 0)).Admitted()
		}
		s.Record(t0, att(0, 0), o, 0)
		want := 10.0 / 11 // no accept
		if o == Success || o == BadRequest {
			want = 8.0 / 11
		}
		assert.InDelta(t, want, s.Probability(t0), 1e-12, "outcome %d", o)
	}
}

// TestThrottleRefuses asserts that Admit always admits while p = 0, refuses most attempts when
// the backend accepts nothing (p near 1: each refusal a Reject ADAPTIVE_THROTTLE), counts
// refused attempts as requests, and forgets after the 2-minute window.
func TestThrottleRefuses(t *testing.T) {
	s := must(NewThrottle(newRand(5), DefaultThrottleConfig()))
	for range 1000 {
		s.Record(t0, att(0, 0), Success, 0)
	}
	for i := range 1000 {
		require.True(t, s.Admit(t0, att(5, 0)).Admitted(), "attempt %d with p = 0", i)
	}

	s = must(NewThrottle(newRand(5), DefaultThrottleConfig()))
	refused := 0
	for range 1000 {
		if adm := s.Admit(t0, att(5, 0)); !adm.Admitted() {
			require.Equal(t, Refuse(engine.Reject, ReasonAdaptiveThrottle), adm)
			refused++
		}
	}
	// p after n requests is n/(n+1): the expected number refused is 1000 - H(1000) ~ 992.5.
	assert.Greater(t, refused, 980)
	assert.InDelta(t, 1000.0/1001, s.Probability(t0), 1e-12, "refused attempts count as requests")

	assert.Positive(t, s.Probability(t0.Add(2*time.Minute-time.Nanosecond)), "still inside just before 2 minutes")
	assert.Zero(t, s.Probability(t0.Add(2*time.Minute)), "the window is 2 minutes")
}

// TestThrottleRetries asserts that Decide retries with the full-jitter backoff up to 3 times.
func TestThrottleRetries(t *testing.T) {
	s := must(NewThrottle(newRand(1), DefaultThrottleConfig()))
	v := s.Decide(t0, att(5, 1), Timeout)
	require.True(t, v.Retry)
	assert.Less(t, v.Delay, 200*time.Millisecond)
	assert.Equal(t, maxRetriesExceeded(), s.Decide(t0, att(5, 3), Timeout))
}

// TestThrottleConfigValidate asserts that each invalid field is reported by name.
func TestThrottleConfigValidate(t *testing.T) {
	tests := []struct {
		edit  func(*ThrottleConfig)
		field string
	}{
		{func(c *ThrottleConfig) { c.K = 0 }, "K"},
		{func(c *ThrottleConfig) { c.Window = 0 }, "Window"},
		{func(c *ThrottleConfig) { c.Buckets = 0 }, "Buckets"},
		{func(c *ThrottleConfig) { c.Buckets = 7 }, "divisible"},
		{func(c *ThrottleConfig) { c.Backoff.MaxRetries = -1 }, "MaxRetries"},
	}
	for _, tt := range tests {
		cfg := DefaultThrottleConfig()
		tt.edit(&cfg)
		_, err := NewThrottle(newRand(1), cfg)
		require.Error(t, err, tt.field)
		assert.Contains(t, err.Error(), tt.field)
	}
	_, err := NewThrottle(nil, DefaultThrottleConfig())
	assert.Error(t, err)
}
