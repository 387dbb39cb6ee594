package engine

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that DecideExplained decides exactly as Decide, with the same state afterwards, on
// twin engines driven through the same outcomes, clock and calls along the main paths (not
// deterministic: the random draws must match too); and that its explanation agrees with its
// decision: the check of the reason, the terms summing to the CPS, the floor, the ceiling of
// the delay.
func TestDecideExplainedMatchesDecide(t *testing.T) {
	mutate := func(c *Config) { c.TokenBucketCapacity = 30; c.Deterministic = false }
	a, clockA := newTestEngine(t, mutate)
	b, clockB := newTestEngine(t, mutate)
	checks := map[int]bool{}
	for i := range 600 {
		clockA.Advance(50 * time.Millisecond)
		clockB.Advance(50 * time.Millisecond)
		for _, e := range []*Engine{a, b} {
			switch {
			case i%10 == 0 || i > 450:
				e.RecordSuccess(time.Duration(30+i%50) * time.Millisecond)
			case i%10 == 1:
				e.RecordTimeout(2 * time.Second)
			default:
				e.RecordFailure(time.Duration(i%300) * time.Millisecond)
			}
		}
		f := Failure{Priority: i%13 - 1, Attempt: i%5 - 1, NotRetryable: i%17 == 0, Timeout: i%7 == 0}
		want := a.Decide(f)
		var x Explanation
		got := b.DecideExplained(f, &x)
		require.Equal(t, want, got, "call %d: DecideExplained(%+v)", i, f)
		require.Equal(t, got, x.Decision)
		checks[x.Check] = true
		assert.Equal(t, checkOf(got.Reason), x.Check)
		if x.Check >= 3 {
			terms := x.Terms()
			assert.InDelta(t, got.CPS, math.Min(1, terms[0]+terms[1]+terms[2]+terms[3]+terms[4]), 1e-12, "call %d: the terms sum to the CPS", i)
			assert.Equal(t, FloorFor(got.CPS), x.Floor)
		}
		if got.Action == Retry {
			assert.InDelta(t, 1+10*got.CPS, x.Factor, 1e-12)
			assert.LessOrEqual(t, got.Delay, min(x.Ceiling, x.MaxDelay), "call %d: the delay is drawn below the ceiling", i)
		}
	}
	assert.Equal(t, map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}, checks, "every check decided some call")
	assert.Equal(t, a.Snapshot(), b.Snapshot(), "same state after the same calls")
	assert.NotPanics(t, func() { b.DecideExplained(Failure{}, nil) }, "a nil explanation is allowed")
}

// Asserts the values an explanation gives for decisions of an engine set up by hand: a retry
// with its delay formula filled in (base × 2^attempt × (1 + CPS×10)), a shed whose priority is
// under floor(CPS×10), a budget refusal that shows the tokens, the cost and what the priority
// must keep, a recovery ramp refusal with its share, and the attempt limit.
func TestExplanationValues(t *testing.T) {
	t.Run("retry", func(t *testing.T) {
		e, _ := newTestEngine(t, nil)
		e.SetQueueDepth(500) // Q = 500 / 1000
		var x Explanation
		d := e.DecideExplained(Failure{Priority: 9, Attempt: 1}, &x)
		require.Equal(t, Retry, d.Action)
		assert.Equal(t, 5, x.Check)
		assert.InDelta(t, 0.5, x.Signals.Q, 1e-12)
		assert.InDelta(t, 0.15*0.5, x.CPS, 1e-12, "CPS = w_Q × Q, the only signal up")
		assert.InDelta(t, 0.15*0.5, x.Terms()[2], 1e-12)
		assert.InDelta(t, 1.75, x.Factor, 1e-12)
		assert.Equal(t, time.Duration(float64(500*time.Millisecond)*2*1.75), x.Ceiling)
		assert.Equal(t, x.Ceiling/2, d.Delay, "deterministic: the midpoint")
		assert.Equal(t, 500.0, x.Tokens)
		assert.Equal(t, 1.0, x.Cost, "no slowdown: a retry costs one token")
		assert.Equal(t, 45.0, x.Keep, "priority 9 keeps 0.9 × 1/10 × 500")
		assert.Equal(t, Closed, x.Circuit)
	})
	t.Run("shed", func(t *testing.T) {
		e, _ := newTestEngine(t, nil)
		e.SetQueueDepth(1000) // CPS 0.15, floor 1
		var x Explanation
		d := e.DecideExplained(Failure{Priority: 0}, &x)
		require.Equal(t, ReasonShedLowPriority, d.Reason)
		assert.Equal(t, 4, x.Check)
		assert.Equal(t, 1, x.Floor)
		assert.Less(t, x.Priority, x.Floor)
	})
	t.Run("budget", func(t *testing.T) {
		e, _ := newTestEngine(t, func(c *Config) { c.TokenBucketCapacity = 10; c.TokenRefillRate = 0 })
		var x Explanation
		for range 20 {
			if e.DecideExplained(Failure{Priority: 5}, &x).Reason == ReasonBudgetExhausted {
				break
			}
		}
		require.Equal(t, ReasonBudgetExhausted, x.Decision.Reason)
		assert.Equal(t, 4.0, x.Keep, "priority 5 keeps floor(0.9 × 5/10 × 10)")
		assert.Less(t, x.Tokens-x.Cost, x.Keep, "the retry would leave less than the priority must keep")
		assert.Equal(t, 10, x.Capacity)
	})
	t.Run("recovery ramp", func(t *testing.T) {
		e, clock := newTestEngine(t, func(c *Config) { c.HalfOpenProbes = 0 })
		e.ForceOpen()
		clock.Advance(e.Config().CircuitCooldown) // OPEN -> CLOSED: the ramp starts at 10%
		var x Explanation
		d := e.DecideExplained(Failure{Priority: 5}, &x)
		require.Equal(t, ReasonRecoveryRamp, d.Reason)
		assert.InDelta(t, 0.10, x.RampShare, 1e-12)
		assert.InDelta(t, 9.0, x.RampFloor, 1e-12)
		assert.Equal(t, Closed, x.Circuit, "read after the cooldown closed it")
	})
	t.Run("attempt limit", func(t *testing.T) {
		e, _ := newTestEngine(t, nil)
		var x Explanation
		d := e.DecideExplained(Failure{Priority: 9, Attempt: 3}, &x)
		require.Equal(t, MaxRetriesExceeded, d.Action)
		assert.Equal(t, 2, x.Check)
		assert.Equal(t, 3, x.Attempt)
		assert.Equal(t, 3, x.MaxAttempts)
	})
}
