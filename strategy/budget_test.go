package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestBudgetDrain asserts that retries drain the 500 quota at 10 per retry after a timeout (the
// 50th takes the last tokens, the 51st is rejected) and at 5 after other failures (100 retries).
func TestBudgetDrain(t *testing.T) {
	tests := []struct {
		outcome Outcome
		allowed int // hand-computed: 500 / cost
	}{
		{Timeout, 50},
		{ServerError, 100},
		{FastFail, 100},
		{Throttled, 100},
	}
	for _, tt := range tests {
		b := must(NewBudget(newRand(1), DefaultBudgetConfig()))
		for i := range tt.allowed {
			v := b.Decide(t0, att(5, 0), tt.outcome)
			require.True(t, v.Retry, "retry %d of outcome %d", i+1, tt.outcome)
		}
		assert.Zero(t, b.Quota(), "outcome %d", tt.outcome)
		v := b.Decide(t0, att(5, 0), tt.outcome)
		assert.Equal(t, Verdict{Action: engine.Reject, Reason: "BUDGET_EXHAUSTED"}, v)
		assert.Zero(t, b.Quota(), "a rejected retry takes nothing")
	}
}

// TestBudgetRefunds asserts the refunds: +1 for a successful original, the retry's own cost for
// a successful retry (10 after a timeout, 5 otherwise), nothing for failures, never above 500.
func TestBudgetRefunds(t *testing.T) {
	tests := []struct {
		name string
		run  func(b *Budget)
		want int
	}{
		{"full quota stays at 500", func(b *Budget) { b.Record(t0, att(0, 0), Success, 0) }, 500},
		{"timeout retry refunded 10", func(b *Budget) {
			b.Decide(t0, att(5, 0), Timeout)    // 490
			b.Record(t0, att(0, 1), Success, 0) // +10
		}, 500},
		{"two retries, second refunded 5", func(b *Budget) {
			b.Decide(t0, att(5, 0), Timeout)     // 490
			b.Decide(t0, att(5, 1), ServerError) // 485
			b.Record(t0, att(0, 2), Success, 0)  // +5
		}, 490},
		{"original success refunds 1", func(b *Budget) {
			b.Decide(t0, att(5, 0), Timeout)     // 490
			b.Decide(t0, att(5, 0), ServerError) // 485
			b.Record(t0, att(0, 0), Success, 0)  // +1
		}, 486},
		{"failures refund nothing", func(b *Budget) {
			b.Decide(t0, att(5, 0), Timeout) // 490
			for _, o := range append(failures, BadRequest) {
				b.Record(t0, att(0, 1), o, 0)
			}
		}, 490},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := must(NewBudget(newRand(1), DefaultBudgetConfig()))
			tt.run(b)
			assert.Equal(t, tt.want, b.Quota())
		})
	}
}

// TestBudgetCostCheckedPerOutcome asserts that with 7 tokens left a retry after a timeout (10)
// is rejected but one after a 5xx (5) is allowed.
func TestBudgetCostCheckedPerOutcome(t *testing.T) {
	cfg := DefaultBudgetConfig()
	cfg.Quota = 7
	b := must(NewBudget(newRand(1), cfg))
	assert.Equal(t, engine.Reject, b.Decide(t0, att(5, 0), Timeout).Action)
	assert.Equal(t, 7, b.Quota())
	assert.True(t, b.Decide(t0, att(5, 0), ServerError).Retry)
	assert.Equal(t, 2, b.Quota())
}

// TestBudgetBackoff asserts the delay of retry i is in [0, min(20s, 2^i s)), and that the limit
// of 3 retries comes before the quota check (no tokens taken).
func TestBudgetBackoff(t *testing.T) {
	cfg := DefaultBudgetConfig()
	cfg.MaxRetries = 10
	cfg.Quota = 1 << 30
	b := must(NewBudget(newRand(3), cfg))
	ceilings := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 20 * time.Second, 20 * time.Second}
	for i, ceiling := range ceilings {
		var hi time.Duration
		for range 300 {
			v := b.Decide(t0, att(5, i), ServerError)
			require.True(t, v.Retry)
			assert.LessOrEqual(t, v.Delay, ceiling, "retry %d", i)
			hi = max(hi, v.Delay)
		}
		assert.Greater(t, hi, ceiling*9/10, "retry %d draws cover the range", i)
	}

	d := must(NewBudget(newRand(3), DefaultBudgetConfig()))
	assert.Equal(t, maxRetriesExceeded(), d.Decide(t0, att(5, 3), Timeout))
	assert.Equal(t, 500, d.Quota())
}

// TestBudgetConfigValidate asserts that each invalid field is reported by name.
func TestBudgetConfigValidate(t *testing.T) {
	tests := []struct {
		edit  func(*BudgetConfig)
		field string
	}{
		{func(c *BudgetConfig) { c.Quota = -1 }, "Quota"},
		{func(c *BudgetConfig) { c.RetryCost = -1 }, "RetryCost"},
		{func(c *BudgetConfig) { c.TimeoutCost = -1 }, "TimeoutCost"},
		{func(c *BudgetConfig) { c.ThrottledCost = -1 }, "ThrottledCost"},
		{func(c *BudgetConfig) { c.NoRetryIncrement = -1 }, "NoRetryIncrement"},
		{func(c *BudgetConfig) { c.BackoffBase = 0 }, "BackoffBase"},
		{func(c *BudgetConfig) { c.MaxBackoff = time.Millisecond }, "MaxBackoff"},
		{func(c *BudgetConfig) { c.MaxRetries = -1 }, "MaxRetries"},
	}
	for _, tt := range tests {
		cfg := DefaultBudgetConfig()
		tt.edit(&cfg)
		_, err := NewBudget(newRand(1), cfg)
		require.Error(t, err, tt.field)
		assert.Contains(t, err.Error(), tt.field)
	}
	_, err := NewBudget(nil, DefaultBudgetConfig())
	assert.Error(t, err)
}

// TestBudget2026 asserts the 2026 variant's costs: 14 after a timeout or a 5xx (35 retries fit
// in 500, the 36th does not), 5 after a 429, and a successful retry refunds its own cost.
func TestBudget2026(t *testing.T) {
	tests := []struct {
		outcome Outcome
		allowed int // hand-computed: floor(500 / cost)
		left    int // 500 - allowed*cost
	}{
		{Timeout, 35, 10}, // 35*14 = 490
		{ServerError, 35, 10},
		{FastFail, 35, 10},
		{Throttled, 100, 0}, // 100*5 = 500
	}
	for _, tt := range tests {
		b := must(NewBudget(newRand(1), BudgetConfig2026()))
		for i := range tt.allowed {
			require.True(t, b.Decide(t0, att(5, 0), tt.outcome).Retry, "retry %d of outcome %d", i+1, tt.outcome)
		}
		assert.Equal(t, tt.left, b.Quota(), "outcome %d", tt.outcome)
		assert.False(t, b.Decide(t0, att(5, 0), tt.outcome).Retry)
	}

	b := must(NewBudget(newRand(1), BudgetConfig2026()))
	b.Decide(t0, att(5, 0), Throttled)  // 495
	b.Record(t0, att(0, 1), Success, 0) // +5
	assert.Equal(t, 500, b.Quota())
	v := b.Decide(t0, att(5, 0), ServerError)
	assert.Less(t, v.Delay, 50*time.Millisecond, "first retry within U[0,1)*50ms")
}
