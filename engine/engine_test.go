package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// newTestEngine builds an engine on a manual clock in deterministic mode, after mutate.
func newTestEngine(t testing.TB, mutate func(c *Config)) (*Engine, *ManualClock) {
	t.Helper()
	clock := NewManualClock(epoch)
	cfg := DefaultConfig()
	cfg.Clock = clock
	cfg.Seed = 1
	cfg.Deterministic = true
	if mutate != nil {
		mutate(&cfg)
	}
	e, err := New(cfg)
	require.NoError(t, err)
	return e, clock
}

// onArticle returns a mutate for newTestEngine that starts from ArticleConfig (the article's
// parameters: one 60 s window, flat refill plus success bonus, 10 s sustained trip, 15 s
// cooldown, no reserve, no retry pricing, L against the P50) instead of the tuned defaults,
// keeping the test clock, seed and deterministic mode, then applies mutate (may be nil).
func onArticle(mutate func(c *Config)) func(c *Config) {
	return func(c *Config) {
		a := ArticleConfig()
		a.Clock, a.Seed, a.Deterministic = c.Clock, c.Seed, c.Deterministic
		*c = a
		if mutate != nil {
			mutate(c)
		}
	}
}

// queueOnly makes CPS equal to Q = depth/QueueCapacity exactly, to steer it in tests.
func queueOnly(c *Config) { c.Weights = Weights{Q: 1} }

// tripCircuit records failures at 10 per second until the circuit opens, and returns when.
func tripCircuit(t testing.TB, e *Engine, clock *ManualClock) time.Time {
	t.Helper()
	for range 10_000 {
		clock.Advance(100 * time.Millisecond)
		e.RecordFailure(time.Second)
		if e.Snapshot().Circuit == Open {
			return clock.Now()
		}
	}
	require.FailNow(t, "the circuit never opened")
	return time.Time{}
}

// closeCircuit waits out the cooldown and sends the probes; the circuit must end CLOSED.
func closeCircuit(t testing.TB, e *Engine, clock *ManualClock) {
	t.Helper()
	cfg := e.Config()
	clock.Advance(cfg.CircuitCooldown)
	require.Equal(t, HalfOpen, e.Snapshot().Circuit)
	for range cfg.HalfOpenProbes {
		d := e.ShouldRetry(MaxPriority, 0, true)
		require.Equal(t, Retry, d.Action, "probe: %v %s", d, d.Reason)
		e.RecordSuccess(10 * time.Millisecond)
	}
	require.Equal(t, Closed, e.Snapshot().Circuit)
}

// TestDecisionString asserts the Java original's format, priority=<priority>/<floor>.
func TestDecisionString(t *testing.T) {
	d := Decision{Action: Retry, Delay: 523 * time.Millisecond, CPS: 0.04, State: Healthy, Priority: 9}
	assert.Equal(t, "RetryDecision[RETRY, delay=523ms, CPS=0.0400, state=HEALTHY, priority=9/0]", d.String())
	d = Decision{Action: Reject, CPS: 0.4123, State: Degraded, Priority: 1, Floor: 4}
	assert.Equal(t, "RetryDecision[REJECT, delay=0ms, CPS=0.4123, state=DEGRADED, priority=1/4]", d.String())
	assert.True(t, Decision{Action: Retry}.ShouldRetry())
	for _, a := range Actions[1:] {
		assert.False(t, Decision{Action: a}.ShouldRetry(), a.String())
	}
}

// TestEveryActionAndReason asserts that each Action and each Reason of the pipeline is reachable
// and produced by the check the spec assigns it to, and that Snapshot counts decisions by action.
func TestEveryActionAndReason(t *testing.T) {
	tests := []struct {
		name       string
		mutate     func(c *Config)
		setup      func(t testing.TB, e *Engine, clock *ManualClock)
		priority   int
		attempt    int
		retryable  bool
		wantAction Action
		wantReason string
	}{
		{
			name: "check 5: retry", retryable: true, priority: 5,
			wantAction: Retry, wantReason: ReasonRetry,
		},
		{
			name: "check 1: not retryable, before everything else", retryable: false, priority: 5,
			setup:      func(_ testing.TB, e *Engine, _ *ManualClock) { e.ForceOpen() },
			wantAction: NotRetryable, wantReason: ReasonNotRetryable,
		},
		{
			name: "check 2: attempt limit", retryable: true, priority: 10, attempt: 3,
			setup:      func(_ testing.TB, e *Engine, _ *ManualClock) { e.ForceOpen() },
			wantAction: MaxRetriesExceeded, wantReason: ReasonMaxRetries,
		},
		{
			name: "check 3: emergency", retryable: true, priority: 10, mutate: queueOnly,
			setup:      func(_ testing.TB, e *Engine, _ *ManualClock) { e.SetQueueDepth(e.Config().QueueCapacity) },
			wantAction: CircuitOpen, wantReason: ReasonEmergency,
		},
		{
			name: "check 3: circuit open", retryable: true, priority: 10,
			setup:      func(_ testing.TB, e *Engine, _ *ManualClock) { e.ForceOpen() },
			wantAction: CircuitOpen, wantReason: ReasonCircuitOpen,
		},
		{
			name: "check 3: half-open probes busy", retryable: true, priority: 10,
			mutate: func(c *Config) { c.HalfOpenProbes = 1 },
			setup: func(t testing.TB, e *Engine, clock *ManualClock) {
				e.ForceOpen()
				clock.Advance(e.Config().CircuitCooldown)
				d := e.ShouldRetry(10, 0, true)
				require.Equal(t, Retry, d.Action, "the first probe should be admitted: %v", d)
			},
			wantAction: CircuitOpen, wantReason: ReasonHalfOpenProbesBusy,
		},
		{
			name: "check 4: shed low priority", retryable: true, priority: 2, mutate: queueOnly,
			setup:      func(_ testing.TB, e *Engine, _ *ManualClock) { e.SetQueueDepth(e.Config().QueueCapacity * 3 / 10) },
			wantAction: Reject, wantReason: ReasonShedLowPriority,
		},
		{
			name: "check 4: recovery ramp", retryable: true, priority: 5, mutate: queueOnly,
			setup: func(t testing.TB, e *Engine, clock *ManualClock) {
				tripCircuit(t, e, clock)
				clock.Advance(e.Config().CircuitCooldown)
				for range e.Config().HalfOpenProbes {
					e.ShouldRetry(10, 0, true)
					e.RecordSuccess(time.Millisecond)
				}
			},
			wantAction: Reject, wantReason: ReasonRecoveryRamp,
		},
		{
			// Priority 10 may spend the last token whatever BudgetReserve keeps for it.
			name: "check 4: budget exhausted", retryable: true, priority: 10,
			mutate: func(c *Config) { c.TokenBucketCapacity, c.TokenRefillRate = 1, 0 },
			setup: func(t testing.TB, e *Engine, _ *ManualClock) {
				d := e.ShouldRetry(10, 0, true)
				require.Equal(t, Retry, d.Action, "the only token should be granted: %v", d)
			},
			wantAction: Reject, wantReason: ReasonBudgetExhausted,
		},
	}
	seen := map[Action]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, tc.mutate)
			if tc.setup != nil {
				tc.setup(t, e, clock)
			}
			before := e.Snapshot().Decisions
			d := e.ShouldRetry(tc.priority, tc.attempt, tc.retryable)
			assert.Equal(t, tc.wantAction, d.Action, "%v", d)
			assert.Equal(t, tc.wantReason, d.Reason)
			assert.False(t, d.Fallback)
			assert.Equal(t, tc.priority, d.Priority)
			if d.Action != Retry {
				assert.Zero(t, d.Delay, "only a retry has a delay")
			}
			after := e.Snapshot().Decisions
			for _, a := range Actions {
				want := before[a]
				if a == tc.wantAction {
					want++
				}
				assert.Equal(t, want, after[a], "decision count of %v", a)
			}
			if tc.wantReason == ReasonEmergency {
				assert.Equal(t, Open, e.Snapshot().Circuit, "an emergency forces the circuit open")
				assert.Equal(t, TransitionEmergency, e.Snapshot().LastTransition.Reason)
			}
			seen[d.Action] = true
		})
	}
	for _, a := range Actions {
		assert.True(t, seen[a], "action %v reached", a)
	}
}

// TestStateFor asserts the band edges: each band includes its lower edge and excludes its upper.
func TestStateFor(t *testing.T) {
	below := func(x float64) float64 { return math.Nextafter(x, 0) }
	for _, thr := range []float64{0.75, 0.80} {
		tests := []struct {
			cps  float64
			want State
		}{
			{0, Healthy},
			{below(0.25), Healthy},
			{0.25, Degraded},
			{below(0.50), Degraded},
			{0.50, Critical},
			{below(thr), Critical},
			{thr, Emergency},
			{1, Emergency},
		}
		for _, tc := range tests {
			assert.Equal(t, tc.want, StateFor(tc.cps, thr), "cps=%v threshold=%v", tc.cps, thr)
		}
	}
}

// TestFloorAtBandEdges asserts floor(CPS*10) at every tenth and just below it, and that the
// floor is what sheds: priority floor-1 is rejected, priority floor is retried.
func TestFloorAtBandEdges(t *testing.T) {
	const capacity = 1000
	for k := 1; k <= 7; k++ {
		for _, depth := range []int{k * capacity / 10, k*capacity/10 - 1} {
			t.Run(fmt.Sprintf("depth %d", depth), func(t *testing.T) {
				e, _ := newTestEngine(t, func(c *Config) {
					queueOnly(c)
					c.QueueCapacity = capacity
				})
				e.SetQueueDepth(depth)
				cps := float64(depth) / capacity
				wantFloor := depth * 10 / capacity // integer arithmetic: floor(depth/capacity*10)
				s := e.Snapshot()
				require.InDelta(t, cps, s.CPS, 1e-12)
				assert.Equal(t, wantFloor, s.Floor)
				assert.Equal(t, StateFor(cps, e.Config().EmergencyThreshold), s.State)
				if wantFloor > 0 {
					d := e.ShouldRetry(wantFloor-1, 0, true)
					assert.Equal(t, ReasonShedLowPriority, d.Reason, "%v", d)
					assert.Equal(t, wantFloor, d.Floor)
				}
				d := e.ShouldRetry(wantFloor, 0, true)
				assert.Equal(t, Retry, d.Action, "%v %s", d, d.Reason)
			})
		}
	}
}

// TestBackoff asserts the CPS-modulated backoff: in deterministic mode the delay is the midpoint
// of [0, base*2^attempt*(1+10 CPS)], it doubles per attempt until the cap, and never exceeds it;
// with randomness every delay stays within its range and the draws differ.
func TestBackoff(t *testing.T) {
	const base, maxDelay = 100 * time.Millisecond, 10 * time.Second
	for _, depth := range []int{0, 200, 450} {
		t.Run(fmt.Sprintf("queue %d", depth), func(t *testing.T) {
			e, _ := newTestEngine(t, func(c *Config) {
				queueOnly(c)
				c.BackoffBaseDelay, c.BackoffMaxDelay, c.MaxRetryAttempts = base, maxDelay, 12
			})
			e.SetQueueDepth(depth)
			prev := time.Duration(0)
			for a := range 12 {
				d := e.ShouldRetry(10, a, true)
				require.Equal(t, Retry, d.Action)
				ceiling := float64(base) * math.Pow(2, float64(a)) * (1 + 10*d.CPS)
				want := time.Duration(math.Min(float64(maxDelay), ceiling/2))
				assert.InDelta(t, float64(want), float64(d.Delay), 1, "attempt %d", a)
				assert.LessOrEqual(t, d.Delay, maxDelay)
				if prev > 0 && d.Delay < maxDelay {
					assert.InDelta(t, float64(2*prev), float64(d.Delay), 2, "doubles per attempt")
				}
				prev = d.Delay
			}
			assert.Equal(t, maxDelay, prev, "the cap is reached")
		})
	}

	t.Run("random draws", func(t *testing.T) {
		e, _ := newTestEngine(t, func(c *Config) {
			queueOnly(c)
			c.Deterministic = false
			c.TokenBucketCapacity = 0
			c.BackoffBaseDelay, c.BackoffMaxDelay = base, maxDelay
		})
		e.SetQueueDepth(300)
		seen := map[time.Duration]bool{}
		for i := range 300 {
			a := i % 3
			d := e.ShouldRetry(10, a, true)
			require.Equal(t, Retry, d.Action)
			ceiling := math.Min(float64(maxDelay), float64(base)*math.Pow(2, float64(a))*(1+10*d.CPS))
			assert.GreaterOrEqual(t, d.Delay, time.Duration(0))
			assert.LessOrEqual(t, float64(d.Delay), ceiling)
			seen[d.Delay] = true
		}
		assert.Greater(t, len(seen), 250, "random delays differ")
	})
}

// script drives an engine through a fixed mix of calls and returns every decision.
func script(e *Engine, clock *ManualClock) []Decision {
	var out []Decision
	for i := range 3000 {
		clock.Advance(time.Duration(7+i%13) * time.Millisecond)
		switch {
		case i%4 == 0:
			e.RecordFailure(time.Duration(100+i%900) * time.Millisecond)
		case i%4 == 1:
			e.RecordSuccess(time.Duration(20+i%40) * time.Millisecond)
		default:
			e.SetQueueDepth(i % 700)
			out = append(out, e.ShouldRetry(i%11, i%4, i%17 != 0))
		}
	}
	return out
}

// TestDeterministicRepeatability asserts that two engines built from the same config and seed
// make byte-identical decisions on the same inputs, with and without deterministic mode, and
// that Reset replays the run.
func TestDeterministicRepeatability(t *testing.T) {
	for _, det := range []bool{true, false} {
		t.Run(fmt.Sprintf("deterministic=%v", det), func(t *testing.T) {
			mutate := func(c *Config) { c.Deterministic, c.Seed = det, 42 }
			a, ca := newTestEngine(t, mutate)
			b, cb := newTestEngine(t, mutate)
			da, db := script(a, ca), script(b, cb)
			require.NotEmpty(t, da)
			assert.Equal(t, da, db)
			a.Reset()
			assert.Equal(t, da, script(a, ca), "Reset gives the freshly built engine back")
		})
	}
	t.Run("different seeds differ", func(t *testing.T) {
		a, ca := newTestEngine(t, func(c *Config) { c.Deterministic, c.Seed = false, 1 })
		b, cb := newTestEngine(t, func(c *Config) { c.Deterministic, c.Seed = false, 2 })
		assert.NotEqual(t, script(a, ca), script(b, cb))
	})
}

// TestBudgetDryAndRefill asserts the article's budget: it runs dry after capacity retries,
// rejected retries spend no token, and it refills with time (flat refill) and with success
// bonuses. It runs on ArticleConfig: the tuned defaults refill only through successes and keep
// a reserve (TestBudgetRefillTiedToSuccesses, TestBudgetReserve).
func TestBudgetDryAndRefill(t *testing.T) {
	const capacity, rate, bonus = 5, 2.0, 1
	e, clock := newTestEngine(t, onArticle(func(c *Config) {
		queueOnly(c)
		c.TokenBucketCapacity, c.TokenRefillRate, c.TokenSuccessBonus = capacity, rate, bonus
	}))
	for i := range capacity {
		require.Equal(t, Retry, e.ShouldRetry(9, 0, true).Action, "retry %d", i)
	}
	assert.Equal(t, ReasonBudgetExhausted, e.ShouldRetry(9, 0, true).Reason)
	assert.Zero(t, e.Snapshot().Tokens)
	assert.Equal(t, 1.0, e.Snapshot().Signals.B, "an empty bucket burns fully")

	clock.Advance(time.Duration(float64(time.Second) / rate)) // one token
	e.SetQueueDepth(e.Config().QueueCapacity / 2)
	assert.Equal(t, ReasonShedLowPriority, e.ShouldRetry(1, 0, true).Reason)
	assert.InDelta(t, 1, e.Snapshot().Tokens, 1e-9, "a shed retry spent no token")
	assert.Equal(t, Retry, e.ShouldRetry(9, 0, true).Action)
	assert.Equal(t, ReasonBudgetExhausted, e.ShouldRetry(9, 0, true).Reason)

	e.RecordSuccess(time.Millisecond)
	assert.InDelta(t, bonus, e.Snapshot().Tokens, 1e-9, "a success returns the bonus")
	clock.Advance(time.Hour)
	s := e.Snapshot()
	assert.Equal(t, float64(capacity), s.Tokens, "refill stops at capacity")
	assert.Zero(t, s.Signals.B)
}

// TestCircuitLifecycle asserts that the engine's circuit opens once the failure rate has been
// sustained, fails retries fast while OPEN, goes HALF_OPEN after the cooldown, closes after the
// probes, and that each transition is recorded with its time.
func TestCircuitLifecycle(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	cfg := e.Config()
	var firstAbove time.Time
	for firstAbove.IsZero() || e.Snapshot().Circuit == Closed {
		clock.Advance(100 * time.Millisecond)
		e.RecordFailure(time.Second)
		s := e.Snapshot()
		if firstAbove.IsZero() && s.Outcomes >= cfg.CircuitMinRequests && s.Signals.F >= cfg.CircuitFailureThreshold {
			firstAbove = clock.Now()
		}
		require.False(t, clock.Now().Sub(epoch) > time.Minute, "the circuit never opened")
	}
	openedAt := clock.Now()
	assert.Equal(t, firstAbove.Add(cfg.CircuitSustainedDuration), openedAt, "opens once the rate held for the sustained duration")
	assert.Equal(t, CircuitOpen, e.ShouldRetry(10, 0, true).Action)

	clock.Advance(cfg.CircuitCooldown - time.Millisecond)
	assert.Equal(t, Open, e.Snapshot().Circuit, "still cooling down")
	clock.Advance(time.Millisecond)
	assert.Equal(t, HalfOpen, e.Snapshot().Circuit)

	// A failed probe re-opens; the next cooldown leads to probing again.
	require.Equal(t, Retry, e.ShouldRetry(10, 0, true).Action)
	e.RecordFailure(time.Second)
	assert.Equal(t, Open, e.Snapshot().Circuit)
	closeCircuit(t, e, clock)

	tr := e.Transitions()
	want := []struct {
		from, to CircuitState
		reason   string
	}{
		{Closed, Open, TransitionFailureRate},
		{Open, HalfOpen, TransitionCooldownElapsed},
		{HalfOpen, Open, TransitionProbeFailed},
		{Open, HalfOpen, TransitionCooldownElapsed},
		{HalfOpen, Closed, TransitionProbesSucceeded},
	}
	require.Len(t, tr, len(want))
	for i, w := range want {
		assert.Equal(t, w.from, tr[i].From, "transition %d", i)
		assert.Equal(t, w.to, tr[i].To, "transition %d", i)
		assert.Equal(t, w.reason, tr[i].Reason, "transition %d", i)
	}
	assert.Equal(t, openedAt, tr[0].At)
	assert.Equal(t, openedAt.Add(cfg.CircuitCooldown), tr[1].At)
	assert.Equal(t, uint64(len(want)), e.Snapshot().TransitionCount)
	assert.Equal(t, tr[len(tr)-1], e.Snapshot().LastTransition)

	tr[0].Reason = "changed"
	assert.Equal(t, TransitionFailureRate, e.Transitions()[0].Reason, "Transitions returns a copy")
}

// TestCircuitTripsOnRecord asserts that the circuit trips as outcomes are recorded, with no
// decision or snapshot asked for: the transition carries the time of the failure that tripped it.
func TestCircuitTripsOnRecord(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	cfg := e.Config()
	const every = 100 * time.Millisecond
	for range 400 {
		clock.Advance(every)
		e.RecordFailure(time.Second)
	}
	tr := e.Transitions()
	require.NotEmpty(t, tr)
	// F is 1 from the first failure; the trip condition holds from the CircuitMinRequests-th.
	firstAbove := epoch.Add(time.Duration(cfg.CircuitMinRequests) * every)
	assert.Equal(t, Transition{At: firstAbove.Add(cfg.CircuitSustainedDuration), From: Closed, To: Open, Reason: TransitionFailureRate}, tr[0])
}

// TestRecoveryRamp asserts that after the circuit closes the ramp admits a linearly rising share
// of retries, highest priorities first: 9 and 10 at once, every priority at the end.
func TestRecoveryRamp(t *testing.T) {
	e, clock := newTestEngine(t, queueOnly)
	ramp := e.Config().RecoveryRamp
	tripCircuit(t, e, clock)
	closeCircuit(t, e, clock)
	closedAt := clock.Now()

	prevAdmitted := 0
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 0.999} {
		clock.Set(closedAt.Add(time.Duration(f * float64(ramp))))
		share := e.Snapshot().RecoveryShare
		assert.InDelta(t, 0.1+0.9*f, share, 1e-6, "share at %.0f%% of the ramp", f*100)
		admitted := 0
		for p := MaxPriority; p >= MinPriority; p-- {
			d := e.ShouldRetry(p, 0, true)
			if d.Action == Retry {
				assert.Equal(t, MaxPriority-p, admitted, "priority %d admitted only if every higher one is", p)
				admitted++
			} else {
				assert.Equal(t, ReasonRecoveryRamp, d.Reason, "%v", d)
			}
		}
		assert.GreaterOrEqual(t, admitted, prevAdmitted, "the ramp never narrows")
		if f == 0 {
			assert.Equal(t, 2, admitted, "at 10%% only priorities 10 and 9")
		}
		prevAdmitted = admitted
	}
	clock.Set(closedAt.Add(ramp))
	assert.Equal(t, 1.0, e.Snapshot().RecoveryShare)
	assert.Equal(t, Retry, e.ShouldRetry(MinPriority, 0, true).Action, "after the ramp everything is admitted")
}

// TestFallback asserts the fallback guarantee: when the signal computation panics or yields a
// non-finite CPS, ShouldRetry answers from the breaker, the budget and plain exponential backoff
// with full jitter, flagged Fallback, and never panics.
func TestFallback(t *testing.T) {
	hooks := map[string]func(Signals) Signals{
		"panic":    func(Signals) Signals { panic("signal source failed") },
		"NaN":      func(s Signals) Signals { s.L = math.NaN(); return s },
		"infinity": func(s Signals) Signals { s.F = math.Inf(1); return s },
	}
	for name, hook := range hooks {
		t.Run(name, func(t *testing.T) {
			e, clock := newTestEngine(t, func(c *Config) { c.TokenBucketCapacity, c.TokenRefillRate = 2, 0 })
			e.signalHook = hook
			cfg := e.Config()
			for a := range cfg.MaxRetryAttempts - 1 {
				d := e.ShouldRetry(0, a, true)
				require.Equal(t, Retry, d.Action, "a priority-0 retry passes: no CPS, no shedding")
				assert.True(t, d.Fallback)
				ceiling := math.Min(float64(cfg.BackoffMaxDelay), float64(cfg.BackoffBaseDelay)*math.Pow(2, float64(a)))
				assert.InDelta(t, ceiling/2, float64(d.Delay), 1, "plain backoff, midpoint in deterministic mode")
			}
			d := e.ShouldRetry(5, 0, true)
			assert.Equal(t, ReasonBudgetExhausted, d.Reason, "then the budget")
			assert.True(t, d.Fallback)

			e.ForceOpen()
			d = e.ShouldRetry(5, 0, true)
			assert.Equal(t, CircuitOpen, d.Action, "then the breaker")
			assert.True(t, d.Fallback)

			clock.Advance(cfg.CircuitCooldown)
			assert.Equal(t, NotRetryable, e.ShouldRetry(5, 0, false).Action, "checks 1 and 2 need no CPS")
			assert.Equal(t, uint64(cfg.MaxRetryAttempts+1), e.Snapshot().Fallbacks)
		})
	}

	t.Run("random jitter", func(t *testing.T) {
		e, _ := newTestEngine(t, func(c *Config) { c.Deterministic, c.TokenBucketCapacity = false, 0 })
		e.signalHook = hooks["panic"]
		cfg := e.Config()
		for i := range 200 {
			d := e.ShouldRetry(3, i%3, true)
			require.True(t, d.Fallback)
			ceiling := math.Min(float64(cfg.BackoffMaxDelay), float64(cfg.BackoffBaseDelay)*math.Pow(2, float64(i%3)))
			assert.LessOrEqual(t, float64(d.Delay), ceiling)
		}
	})
}

// TestBaselineIgnoresIncident asserts that the baseline P50 does not learn from an incident:
// during a minute of slow failures and slow successes it stays at the healthy median and L stays
// at 1; when healthy it does adapt, slowly.
func TestBaselineIgnoresIncident(t *testing.T) {
	const healthy = 40 * time.Millisecond
	e, clock := newTestEngine(t, func(c *Config) { c.CircuitFailureThreshold = 1 }) // keep the circuit CLOSED
	for range 100 {
		clock.Advance(100 * time.Millisecond)
		e.RecordSuccess(healthy)
	}
	require.Equal(t, healthy, e.Snapshot().Baseline)
	require.Zero(t, e.Snapshot().Signals.L)

	// The first outcomes of the incident still find F < 0.10 and may nudge the baseline by a
	// step or two; once F >= 0.10 it must not move at all.
	var frozen time.Duration
	for i := range 600 {
		clock.Advance(100 * time.Millisecond)
		if i%2 == 0 {
			e.RecordFailure(2 * time.Second)
		} else {
			e.RecordSuccess(1500 * time.Millisecond)
		}
		s := e.Snapshot()
		if i >= 10 { // from the moment slow outcomes are more than 1% of the window
			require.Equal(t, 1.0, s.Signals.L, "L stays high at %v", clock.Now().Sub(epoch))
		}
		require.Equal(t, Closed, s.Circuit)
		if s.Signals.F >= healthyFailureRate && frozen == 0 {
			frozen = s.Baseline
			assert.LessOrEqual(t, float64(frozen), float64(healthy)*1.05, "at most a step or two before F rose")
		}
		if frozen != 0 {
			require.Equal(t, frozen, s.Baseline, "the baseline learns nothing while F >= 0.10, at %v", clock.Now().Sub(epoch))
		}
	}
	require.NotZero(t, frozen)

	// Healthy but slower for 30 s: the baseline follows, at most 1% per window slice.
	e2, clock2 := newTestEngine(t, nil)
	for range 100 {
		clock2.Advance(100 * time.Millisecond)
		e2.RecordSuccess(healthy)
	}
	for range 300 {
		clock2.Advance(100 * time.Millisecond)
		e2.RecordSuccess(2 * healthy)
	}
	b := e2.Snapshot().Baseline
	assert.Greater(t, b, healthy, "a healthy shift is learned")
	assert.LessOrEqual(t, float64(b), float64(healthy)*math.Pow(1+baselineStep, 31), "slowly")
}

// TestSnapshot asserts that Snapshot reports what was recorded (the retry spent its price,
// 1 + SlowdownCost*S, S from the moving average of the successes' latency against the fixed
// baseline), and that the hot paths allocate nothing.
func TestSnapshot(t *testing.T) {
	const base = 50 * time.Millisecond
	e, clock := newTestEngine(t, func(c *Config) { c.BaselineLatency = base })
	var recent float64 // the moving average of the successes' latency, as the spec defines it
	for i := range 90 {
		clock.Advance(10 * time.Millisecond)
		lat := time.Duration(10+i) * time.Millisecond
		e.RecordSuccess(lat)
		if i == 0 {
			recent = float64(lat)
		} else {
			recent += recentAlpha * (float64(lat) - recent)
		}
	}
	for range 10 {
		e.RecordFailure(3 * time.Second)
	}
	e.SetQueueDepth(250)
	e.ShouldRetry(9, 0, true)
	s := e.Snapshot()
	cfg := e.Config()
	assert.Equal(t, uint64(90), s.Successes)
	assert.Equal(t, uint64(10), s.Failed)
	assert.Equal(t, 100, s.Outcomes)
	assert.Equal(t, 10, s.Failures)
	assert.InDelta(t, 0.1, s.Signals.F, 1e-12)
	assert.InDelta(t, 250.0/float64(cfg.QueueCapacity), s.Signals.Q, 1e-12)
	assert.Equal(t, 50*time.Millisecond, s.Baseline, "a fixed baseline is reported as is")
	assert.InEpsilon(t, float64(3*time.Second), float64(s.P99), 0.25, "P99 is among the slow failures")
	assert.InDelta(t, 1, s.Signals.L, 1e-12)
	assert.Equal(t, cfg.TokenBucketCapacity, s.TokenCapacity)
	slowdown := math.Min(1, math.Max(0, (recent-float64(base))/(3*float64(base))))
	require.Greater(t, slowdown, 0.0, "the latest successes were slower than the baseline")
	// Within 1e-6: the engine reads the average as whole nanoseconds.
	assert.InDelta(t, float64(cfg.TokenBucketCapacity)-(1+cfg.SlowdownCost*slowdown), s.Tokens, 1e-6)
	assert.Equal(t, DefaultWeights(), s.Weights)
	assert.InDelta(t, s.Weights.dot(&s.Signals), s.CPS, 1e-12)
	assert.Equal(t, StateFor(s.CPS, cfg.EmergencyThreshold), s.State)
	assert.Equal(t, uint64(1), s.Decisions[Retry])
	assert.Equal(t, 1.0, s.RecoveryShare)
	assert.Equal(t, Closed, s.Circuit)
	assert.Zero(t, s.TransitionCount)

	var d Decision
	allocs := testing.AllocsPerRun(100, func() {
		clock.Advance(time.Millisecond)
		e.RecordSuccess(time.Millisecond)
		e.RecordFailure(time.Millisecond)
		e.RecordTimeout(time.Second)
		e.ShouldRetry(9, 0, true)
		e.ShouldRetryTo(&d, 9, 1, true)
		_ = e.Decide(Failure{Priority: 9, Attempt: 1, Timeout: true})
		e.DecideTo(&d, Failure{Priority: 10, Timeout: true})
		e.DecideTo(nil, Failure{Priority: 5})
		_ = e.Snapshot()
	})
	assert.Zero(t, allocs, "the hot paths allocate nothing")
}

// TestControls asserts the run-time controls: queue depth, weights (validated, renormalised,
// kept by Reset), adaptive switch (bounds), ForceOpen and Reset.
func TestControls(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	cfg := e.Config()

	e.SetQueueDepth(-5)
	assert.Zero(t, e.Snapshot().Signals.Q, "a negative depth counts as 0")
	e.SetQueueDepth(cfg.QueueCapacity * 3)
	assert.Equal(t, 1.0, e.Snapshot().Signals.Q, "Q is clamped to 1")

	err := e.SetWeights(Weights{F: -1, L: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Weights.F")
	assert.Equal(t, DefaultWeights(), e.Snapshot().Weights, "a refused change changes nothing")

	require.NoError(t, e.SetWeights(Weights{F: 2, L: 1, Q: 1}))
	assert.Equal(t, Weights{F: 0.5, L: 0.25, Q: 0.25}, e.Snapshot().Weights)

	e.SetAdaptive(true)
	s := e.Snapshot()
	assert.True(t, s.Adaptive)
	assert.InDelta(t, 1, s.Weights.sum(), 1e-12)
	for _, v := range s.Weights.Array() {
		assert.GreaterOrEqual(t, v, AdaptiveMinWeight-1e-12, "adaptive weights are kept within bounds")
		assert.LessOrEqual(t, v, AdaptiveMaxWeight+1e-12)
	}
	e.SetAdaptive(false)
	assert.False(t, e.Snapshot().Adaptive)

	e.ForceOpen()
	s = e.Snapshot()
	assert.Equal(t, Open, s.Circuit)
	assert.Equal(t, TransitionForced, s.LastTransition.Reason)
	assert.Equal(t, clock.Now(), s.LastTransition.At)

	e.RecordFailure(time.Second)
	e.ShouldRetry(5, 0, true)
	clock.Advance(time.Second)
	e.Reset()
	s = e.Snapshot()
	assert.Equal(t, Closed, s.Circuit)
	assert.Zero(t, s.Outcomes)
	assert.Zero(t, s.Successes+s.Failed)
	assert.Equal(t, [5]uint64{}, s.Decisions)
	assert.Zero(t, s.Signals.Q, "queue depth is cleared")
	assert.Equal(t, float64(cfg.TokenBucketCapacity), s.Tokens)
	assert.Equal(t, Weights{F: 0.5, L: 0.25, Q: 0.25}, s.Weights, "Reset keeps the weights set by SetWeights")
	assert.Equal(t, uint64(1), s.TransitionCount, "the history restarts with the reset itself")
	assert.Equal(t, Transition{At: clock.Now(), From: Open, To: Closed, Reason: TransitionReset}, s.LastTransition)
}

// TestAdaptiveEngine asserts that, with adaptive weights on, a latency rise that precedes a
// failure spike raises L's weight, visible in Snapshot, within bounds.
func TestAdaptiveEngine(t *testing.T) {
	e, clock := newTestEngine(t, func(c *Config) { c.AdaptiveWeights = true })
	for range 100 {
		clock.Advance(100 * time.Millisecond)
		e.RecordSuccess(40 * time.Millisecond)
	}
	for range 50 { // latency climbs first
		clock.Advance(100 * time.Millisecond)
		e.RecordSuccess(400 * time.Millisecond)
	}
	require.GreaterOrEqual(t, e.Snapshot().Signals.L, alarmOn[1])
	for range 400 { // then errors
		clock.Advance(100 * time.Millisecond)
		e.RecordFailure(time.Second)
	}
	w := e.Snapshot().Weights
	assert.Greater(t, w.L, DefaultWeights().L, "the early-warning signal gained weight: %v", w)
	assert.InDelta(t, 1, w.sum(), 1e-12)
}

// TestInputClamping asserts that out-of-range inputs are clamped as the spec says: priorities to
// 0..10, negative attempts to 0, negative latencies to 0.
func TestInputClamping(t *testing.T) {
	e, _ := newTestEngine(t, func(c *Config) { c.TokenBucketCapacity = 0 }) // retries spend no token, so B stays put
	assert.Equal(t, MinPriority, e.ShouldRetry(-4, 0, true).Priority)
	assert.Equal(t, MaxPriority, e.ShouldRetry(99, 0, true).Priority)
	assert.Equal(t, MaxPriority, e.ShouldRetry(99, 0, false).Priority, "checks 1 and 2 carry the clamped priority")
	assert.Equal(t, e.ShouldRetry(5, 0, true).Delay, e.ShouldRetry(5, -3, true).Delay, "a negative attempt counts as 0")

	e.RecordFailure(-time.Second)
	s := e.Snapshot()
	assert.Equal(t, 1, s.Outcomes)
	assert.Less(t, s.P99, time.Millisecond, "a negative latency counts as 0")
}

// TestClockBackwards asserts that a clock going backwards is treated as no time passing.
func TestClockBackwards(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	clock.Advance(time.Minute)
	e.RecordFailure(time.Second)
	clock.Set(epoch)
	e.RecordFailure(time.Second)
	assert.Equal(t, 2, e.Snapshot().Outcomes, "both outcomes are in the window")
	clock.Set(epoch.Add(time.Minute + e.Config().Window))
	assert.Zero(t, e.Snapshot().Outcomes, "and expire together")
}

// TestShouldRetryTo asserts that ShouldRetryTo writes exactly the decision ShouldRetry gives
// (every field, overwriting what *d held), on twin engines driven through the same outcomes,
// clock and calls (healthy, shedding, budget exhausted, circuit open, attempt limit, not
// retryable), and that a nil d still counts the decision.
func TestShouldRetryTo(t *testing.T) {
	a, clockA := newTestEngine(t, func(c *Config) { c.TokenBucketCapacity = 3 })
	b, clockB := newTestEngine(t, func(c *Config) { c.TokenBucketCapacity = 3 })
	seen := map[string]bool{}
	for i := range 400 {
		for _, c := range []*ManualClock{clockA, clockB} {
			c.Advance(50 * time.Millisecond)
		}
		ok := i%5 == 0 || i > 300
		for _, e := range []*Engine{a, b} {
			if ok {
				e.RecordSuccess(30 * time.Millisecond)
			} else {
				e.RecordFailure(2 * time.Second)
			}
		}
		p, attempt, retryable := i%11, i%5, i%13 != 0
		want := a.ShouldRetry(p, attempt, retryable)
		got := Decision{Action: Retry, Delay: time.Hour, Reason: "stale", Fallback: true, CPS: 9}
		b.ShouldRetryTo(&got, p, attempt, retryable)
		require.Equal(t, want, got, "call %d", i)
		seen[want.Reason] = true
	}
	assert.Subset(t, slices.Collect(maps.Keys(seen)), []string{ReasonRetry, ReasonNotRetryable, ReasonMaxRetries, ReasonCircuitOpen},
		"the sequence went through the main paths")
	before := b.Snapshot().Decisions
	b.ShouldRetryTo(nil, 5, 0, false)
	after := b.Snapshot().Decisions
	assert.Equal(t, before[NotRetryable]+1, after[NotRetryable], "a nil d still counts the decision")
}
