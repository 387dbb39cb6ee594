package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestFinagleBudget asserts RetryBudget's arithmetic, computed by hand: with no request the
// reserve pays 10/s x 10 s = 100 retries (500,000 tokens at 5,000 each), the 101st is refused;
// 50 originals deposit 50 x 1,000 = 50,000 tokens, 10 retries more; deposits and withdrawals
// expire after the 10 s ttl, so the reserve's 100 are back.
func TestFinagleBudget(t *testing.T) {
	f := must(NewFinagle(newRand(1), DefaultFinagleConfig()))
	assert.Equal(t, int64(100), f.Balance(t0))
	for i := range 100 {
		require.True(t, f.Decide(t0, att(5, 0), ServerError).Retry, "retry %d", i)
	}
	assert.Equal(t, Verdict{Action: engine.Reject, Reason: ReasonBudgetExhausted}, f.Decide(t0, att(5, 0), ServerError))
	for range 50 {
		f.Admit(t0, att(5, 0))
	}
	f.Admit(t0, att(5, 1)) // a retry deposits nothing
	assert.Equal(t, int64(10), f.Balance(t0))
	for range 10 {
		require.True(t, f.Decide(t0, att(5, 0), Timeout).Retry)
	}
	assert.False(t, f.Decide(t0, att(5, 0), Timeout).Retry)
	assert.Equal(t, int64(0), f.Balance(t0.Add(10*time.Second-time.Nanosecond)))
	assert.Equal(t, int64(100), f.Balance(t0.Add(10*time.Second)), "the ttl is over")
}

// TestFinagleBackoff asserts MethodBuilder's retries: 2 at most, the first after exactly 5 ms,
// the second uniform in [5 ms, 15 ms); and that a longer chain stays within 200 ms.
func TestFinagleBackoff(t *testing.T) {
	f := must(NewFinagle(newRand(3), DefaultFinagleConfig()))
	assert.Equal(t, 5*time.Millisecond, f.Decide(t0, att(5, 0), FastFail).Delay)
	for range 200 {
		d := f.backoff(1)
		require.GreaterOrEqual(t, d, 5*time.Millisecond)
		require.Less(t, d, 15*time.Millisecond)
	}
	assert.Equal(t, engine.MaxRetriesExceeded, f.Decide(t0, att(5, 2), FastFail).Action)
	assert.LessOrEqual(t, f.backoff(30), 200*time.Millisecond, "capped at 200 ms")
}

// TestFinagleConfig asserts that every field out of range is reported by name, and that a budget
// without a percentage charges 1 per retry from the reserve alone.
func TestFinagleConfig(t *testing.T) {
	for field, edit := range map[string]func(*FinagleConfig){
		"TTL":              func(c *FinagleConfig) { c.TTL = 1500 * time.Millisecond },
		"MinRetriesPerSec": func(c *FinagleConfig) { c.MinRetriesPerSec = -1 },
		"PercentCanRetry":  func(c *FinagleConfig) { c.PercentCanRetry = 1001 },
		"MaxRetries":       func(c *FinagleConfig) { c.MaxRetries = -1 },
		"BackoffStart":     func(c *FinagleConfig) { c.BackoffStart = 0 },
		"BackoffMax":       func(c *FinagleConfig) { c.BackoffMax = time.Millisecond },
	} {
		cfg := DefaultFinagleConfig()
		edit(&cfg)
		_, err := NewFinagle(newRand(1), cfg)
		assert.ErrorContains(t, err, field)
	}
	cfg := DefaultFinagleConfig()
	cfg.PercentCanRetry = 0
	f := must(NewFinagle(newRand(1), cfg))
	f.Admit(t0, att(5, 0))
	assert.Equal(t, int64(100), f.Balance(t0), "10/s x 10 s, 1 token each; requests earn nothing")
}
