package engine

import (
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecideMatchesShouldRetry asserts that Decide and DecideTo of a failure that is not a
// timeout give exactly what ShouldRetry gives for the same priority, attempt and
// retryability (DecideTo overwriting every field of *d), on triplet engines driven through the
// same outcomes, clock and calls along the main paths; and that DecideTo with a nil d still
// counts the decision.
func TestDecideMatchesShouldRetry(t *testing.T) {
	mutate := func(c *Config) { c.TokenBucketCapacity = 30 }
	a, clockA := newTestEngine(t, mutate)
	b, clockB := newTestEngine(t, mutate)
	c, clockC := newTestEngine(t, mutate)
	engines, clocks := []*Engine{a, b, c}, []*ManualClock{clockA, clockB, clockC}
	seen := map[string]bool{}
	for i := range 600 {
		for _, clk := range clocks {
			clk.Advance(50 * time.Millisecond)
		}
		for _, e := range engines {
			switch {
			case i%10 == 0 || i > 450:
				e.RecordSuccess(time.Duration(30+i%50) * time.Millisecond)
			case i%10 == 1:
				e.RecordTimeout(2 * time.Second)
			default:
				e.RecordFailure(time.Duration(i%300) * time.Millisecond)
			}
		}
		f := Failure{Priority: i%13 - 1, Attempt: i%5 - 1, NotRetryable: i%17 == 0}
		want := a.ShouldRetry(f.Priority, f.Attempt, !f.NotRetryable)
		require.Equal(t, want, b.Decide(f), "call %d: Decide(%+v)", i, f)
		got := Decision{Action: Retry, Delay: time.Hour, Reason: "stale", Fallback: true, CPS: 9, Floor: 11}
		c.DecideTo(&got, f)
		require.Equal(t, want, got, "call %d: DecideTo(%+v)", i, f)
		seen[want.Reason] = true
	}
	assert.Subset(t, slices.Collect(maps.Keys(seen)),
		[]string{ReasonRetry, ReasonNotRetryable, ReasonMaxRetries, ReasonCircuitOpen, ReasonBudgetExhausted},
		"the sequence went through the main paths")
	assert.Equal(t, a.Snapshot(), b.Snapshot(), "same state after the same calls")

	before := c.Snapshot().Decisions
	c.DecideTo(nil, Failure{Priority: 5, NotRetryable: true})
	c.DecideTo(nil, Failure{Priority: 5, Timeout: true})
	after := c.Snapshot().Decisions
	assert.Equal(t, before[NotRetryable]+1, after[NotRetryable], "a nil d still counts the decision")
	var total, totalBefore uint64
	for i := range after {
		total += after[i]
		totalBefore += before[i]
	}
	assert.Equal(t, totalBefore+2, total)
}

// TestDecideFailure asserts how Decide reads each field of Failure: NotRetryable is check 1
// even after a timeout (no token spent), Attempt at the limit is check 2, a negative Attempt
// counts as 0, Priority is clamped to 0..10, and Timeout changes only the price of a retry,
// not the decision.
func TestDecideFailure(t *testing.T) {
	tests := []struct {
		name       string
		f          Failure
		wantAction Action
		wantReason string
		wantPrio   int
	}{
		{"zero value: a retryable fast failure at priority 0", Failure{}, Retry, ReasonRetry, 0},
		{"not retryable after a timeout", Failure{Priority: 9, NotRetryable: true, Timeout: true}, NotRetryable, ReasonNotRetryable, 9},
		{"attempt limit after a timeout", Failure{Priority: 9, Attempt: 3, Timeout: true}, MaxRetriesExceeded, ReasonMaxRetries, 9},
		{"negative attempt", Failure{Priority: 9, Attempt: -7, Timeout: true}, Retry, ReasonRetry, 9},
		{"priority clamped up", Failure{Priority: -3}, Retry, ReasonRetry, MinPriority},
		{"priority clamped down", Failure{Priority: 99, Timeout: true}, Retry, ReasonRetry, MaxPriority},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTestEngine(t, func(c *Config) { c.BaselineLatency = 40 * time.Millisecond })
			e.RecordSuccess(60 * time.Millisecond) // S > 0: a timeout's retry costs more (floor still 0)
			twin, _ := newTestEngine(t, func(c *Config) { c.BaselineLatency = 40 * time.Millisecond })
			twin.RecordSuccess(60 * time.Millisecond)
			before := e.Snapshot().Tokens

			d := e.Decide(tc.f)
			assert.Equal(t, tc.wantAction, d.Action, "%v", d)
			assert.Equal(t, tc.wantReason, d.Reason)
			assert.Equal(t, tc.wantPrio, d.Priority)
			if d.Action != Retry {
				assert.Equal(t, before, e.Snapshot().Tokens, "only a retry spends tokens")
			}
			if tc.f.Attempt < 0 {
				zero := tc.f
				zero.Attempt = 0
				assert.Equal(t, twin.Decide(zero), d, "a negative attempt counts as 0")
				return
			}
			other := tc.f
			other.Timeout = !other.Timeout
			assert.Equal(t, d, twin.Decide(other), "Timeout changes no decision, only what a retry costs")
			if d.Action == Retry {
				assert.NotEqual(t, e.Snapshot().Tokens, twin.Snapshot().Tokens, "but the price differs")
			}
		})
	}
}

// TestRecordTimeout asserts what a timeout is to the engine: a failure in F (both spans), in
// the window's counts and in the latency window (P99), counted in Snapshot.Failed; it teaches
// the baseline and the tail nothing, leaves the slowdown S of recent successes alone and earns
// no refill; a negative latency counts as 0.
func TestRecordTimeout(t *testing.T) {
	e, clock := newTestEngine(t, func(c *Config) { c.CircuitFailureThreshold = 1 })
	for range 20 {
		clock.Advance(50 * time.Millisecond)
		e.RecordSuccess(40 * time.Millisecond)
	}
	for range 5 { // spend some tokens so that a success could earn refill
		require.Equal(t, Retry, e.ShouldRetry(MaxPriority, 0, true).Action)
	}
	s0 := e.Snapshot()
	require.Equal(t, 40*time.Millisecond, s0.Baseline)
	bl, recent, earned := e.bl, e.recentOK, e.tb.earned

	for range 5 {
		e.RecordTimeout(5 * time.Second)
	}
	e.RecordTimeout(-time.Second)
	s := e.Snapshot()
	assert.Equal(t, 26, s.Outcomes)
	assert.Equal(t, 6, s.Failures)
	assert.Equal(t, s0.Failed+6, s.Failed, "Snapshot.Failed counts timeouts")
	assert.Equal(t, s0.Successes, s.Successes)
	assert.InDelta(t, 6.0/26, s.Signals.F, 1e-12)
	assert.Equal(t, uint64(6), e.win.long.timeouts)
	assert.Equal(t, uint64(6), e.win.short.timeouts)
	assert.Zero(t, e.win.short.answeredFailureRate(), "timeouts are not answered failures")
	assert.Equal(t, 5*time.Second, s.P99, "5 of 26 outcomes took 5 s")
	assert.Equal(t, 1.0, s.Signals.L)
	assert.Equal(t, uint64(1), e.win.short.merged.bins[0].count, "the negative latency counts as 0")

	assert.Equal(t, bl, e.bl, "the baseline and the tail learn nothing from a timeout")
	assert.Equal(t, recent, e.recentOK, "S reads successes only")
	assert.Equal(t, earned, e.tb.earned, "a timeout earns no refill")
	assert.Equal(t, s0.Tokens, s.Tokens)
}

// TestArticleTimeoutIsFailure asserts that on ArticleConfig (TripOnTimeouts, no retry
// pricing) a timeout is exactly a failure: twin engines, one recording timeouts and asking
// Decide with Timeout, the other recording failures and asking ShouldRetry, make the same
// decisions and end in the same state, through trips and recoveries.
func TestArticleTimeoutIsFailure(t *testing.T) {
	a, clockA := newTestEngine(t, onArticle(nil))
	b, clockB := newTestEngine(t, onArticle(nil))
	opened := false
	for i := range 3000 {
		clockA.Advance(37 * time.Millisecond)
		clockB.Advance(37 * time.Millisecond)
		lat := time.Duration(i%700) * time.Millisecond
		if (i/500)%2 == 1 || i%7 == 0 { // incidents every other 500 calls
			a.RecordTimeout(lat)
			b.RecordFailure(lat)
		} else {
			a.RecordSuccess(lat / 10)
			b.RecordSuccess(lat / 10)
		}
		p, attempt := i%11, i%4
		require.Equal(t, b.ShouldRetry(p, attempt, true), a.Decide(Failure{Priority: p, Attempt: attempt, Timeout: true}), "call %d", i)
		opened = opened || a.Snapshot().Circuit == Open
	}
	require.True(t, opened, "the run went through a trip")
	assert.Equal(t, b.Snapshot(), a.Snapshot())
	assert.Equal(t, b.Transitions(), a.Transitions())
}

// TestPow2 asserts that the backoff's power of two is math.Ldexp(1, min(n, 64)), bit for bit,
// for every retry index a decision can see and beyond.
func TestPow2(t *testing.T) {
	for n := -70; n <= 200; n++ {
		want := math.Ldexp(1, min(n, 64))
		assert.Equal(t, math.Float64bits(want), math.Float64bits(pow2(n)), "pow2(%d)", n)
	}
}
