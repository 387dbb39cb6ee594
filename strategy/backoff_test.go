package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestBackoffDelays asserts that retry n waits in [0, min(20s, 100ms*2^n)) with the default
// configuration, and that retries stop after 3.
func TestBackoffDelays(t *testing.T) {
	tests := []struct {
		retry   int
		ceiling time.Duration // hand-computed: 100ms * 2^retry
	}{
		{0, 100 * time.Millisecond},
		{1, 200 * time.Millisecond},
		{2, 400 * time.Millisecond},
	}
	s := must(NewBackoff(newRand(1), DefaultBackoffConfig()))
	for _, tt := range tests {
		for range 500 {
			v := s.Decide(t0, att(5, tt.retry), ServerError)
			require.True(t, v.Retry)
			assert.Equal(t, engine.Retry, v.Action)
			assert.GreaterOrEqual(t, v.Delay, time.Duration(0))
			assert.Less(t, v.Delay, tt.ceiling, "retry %d", tt.retry)
		}
	}
	assert.Equal(t, maxRetriesExceeded(), s.Decide(t0, att(5, 3), Timeout))
}

// TestBackoffCap asserts that the delay never exceeds Cap, however many retries are allowed.
func TestBackoffCap(t *testing.T) {
	cfg := BackoffConfig{Base: time.Second, Cap: 3 * time.Second, MaxRetries: 100}
	s := must(NewBackoff(newRand(2), cfg))
	for retry := range 100 {
		v := s.Decide(t0, att(5, retry), Timeout)
		require.True(t, v.Retry)
		assert.Less(t, v.Delay, cfg.Cap)
	}
}

// TestBackoffConfigValidate asserts that each invalid field is reported by name and that New
// refuses a nil random source.
func TestBackoffConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*BackoffConfig)
		field string
	}{
		{"zero base", func(c *BackoffConfig) { c.Base = 0 }, "Base"},
		{"cap below base", func(c *BackoffConfig) { c.Cap = c.Base / 2 }, "Cap"},
		{"negative retries", func(c *BackoffConfig) { c.MaxRetries = -1 }, "MaxRetries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultBackoffConfig()
			tt.edit(&cfg)
			_, err := NewBackoff(newRand(1), cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
	require.NoError(t, DefaultBackoffConfig().Validate())
	_, err := NewBackoff(nil, DefaultBackoffConfig())
	assert.ErrorContains(t, err, "random source is nil")
}
