package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestGRPCTokens asserts the token arithmetic and the threshold: each failure takes 1, each
// success adds 0.1, and retries stop while tokens <= 5 (after 5 failures from 10).
func TestGRPCTokens(t *testing.T) {
	tests := []struct {
		name      string
		failures  int
		successes int
		tokens    float64 // hand-computed
		retry     bool
	}{
		{"fresh", 0, 0, 10, true},
		{"4 failures", 4, 0, 6, true},
		{"5 failures", 5, 0, 5, false},
		{"5 failures then 1 success", 5, 1, 5.1, true},
		{"6 failures then 10 successes", 6, 10, 5, false},
		{"floor at 0", 20, 0, 0, false},
		{"cap at 10", 0, 50, 10, true},
		{"3 failures then 30 successes", 3, 30, 10, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := must(NewGRPC(newRand(1), DefaultGRPCConfig()))
			for i := range tt.failures {
				g.Record(t0, att(0, 0), failures[i%len(failures)], 0)
			}
			for range tt.successes {
				g.Record(t0, att(0, 0), Success, 0)
			}
			assert.Equal(t, tt.tokens, g.Tokens(), "tokens are kept exactly")
			v := g.Decide(t0, att(5, 0), ServerError)
			assert.Equal(t, tt.retry, v.Retry)
			if !tt.retry {
				assert.Equal(t, Verdict{Action: engine.Reject, Reason: "RETRY_THROTTLED"}, v)
			}
		})
	}
}

// TestGRPCBadRequestKeepsTokens asserts that a non-retryable failure does not change the tokens.
func TestGRPCBadRequestKeepsTokens(t *testing.T) {
	g := must(NewGRPC(newRand(1), DefaultGRPCConfig()))
	g.Record(t0, att(0, 0), ServerError, 0)
	for range 10 {
		g.Record(t0, att(0, 0), BadRequest, 0)
	}
	assert.Equal(t, 9.0, g.Tokens())
}

// TestGRPCBackoff asserts that retry n waits in [0, min(1s, 100ms*2^n)) and that maxAttempts 4
// allows 3 retries.
func TestGRPCBackoff(t *testing.T) {
	cfg := DefaultGRPCConfig()
	cfg.MaxAttempts = 10
	cfg.MaxTokens = 1000
	g := must(NewGRPC(newRand(9), cfg))
	ceilings := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, time.Second, time.Second}
	for n, ceiling := range ceilings {
		for range 300 {
			v := g.Decide(t0, att(5, n), Timeout)
			require.True(t, v.Retry)
			assert.Less(t, v.Delay, ceiling, "retry %d", n)
		}
	}
	d := must(NewGRPC(newRand(9), DefaultGRPCConfig()))
	assert.True(t, d.Decide(t0, att(5, 2), Timeout).Retry)
	assert.Equal(t, maxRetriesExceeded(), d.Decide(t0, att(5, 3), Timeout))
}

// TestGRPCConfigValidate asserts that each invalid field is reported by name.
func TestGRPCConfigValidate(t *testing.T) {
	tests := []struct {
		edit  func(*GRPCConfig)
		field string
	}{
		{func(c *GRPCConfig) { c.MaxTokens = 0 }, "MaxTokens"},
		{func(c *GRPCConfig) { c.MaxTokens = 1001 }, "MaxTokens"},
		{func(c *GRPCConfig) { c.TokenRatio = 0 }, "TokenRatio"},
		{func(c *GRPCConfig) { c.MaxAttempts = 0 }, "MaxAttempts"},
		{func(c *GRPCConfig) { c.InitialBackoff = 0 }, "InitialBackoff"},
		{func(c *GRPCConfig) { c.MaxBackoff = time.Millisecond }, "MaxBackoff"},
		{func(c *GRPCConfig) { c.BackoffMultiplier = 0.5 }, "BackoffMultiplier"},
	}
	for _, tt := range tests {
		cfg := DefaultGRPCConfig()
		tt.edit(&cfg)
		_, err := NewGRPC(newRand(1), cfg)
		require.Error(t, err, tt.field)
		assert.Contains(t, err.Error(), tt.field)
	}
	_, err := NewGRPC(nil, DefaultGRPCConfig())
	assert.Error(t, err)
}
