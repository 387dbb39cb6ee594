package engine

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bucketOf builds a token bucket from the Config fields that shape it.
func bucketOf(capacity int, rate float64, bonus int, perSuccess float64) tokenBucket {
	c := Config{TokenBucketCapacity: capacity, TokenRefillRate: rate, TokenSuccessBonus: bonus, TokenRefillPerSuccess: perSuccess}
	return newTokenBucket(&c)
}

// bucketOp is one call on a token bucket: a take of cost tokens keeping a share reserve of the
// capacity (cost 0 means 1), or a credit (a success).
type bucketOp struct {
	at      time.Duration
	kind    string // "take", "credit"
	wantOK  bool   // for take
	cost    float64
	reserve float64
}

func take(at time.Duration, ok bool) bucketOp { return bucketOp{at: at, kind: "take", wantOK: ok} }

func credit(at time.Duration) bucketOp { return bucketOp{at: at, kind: "credit"} }

// TestTokenBucket asserts the retry budget's arithmetic: takes spend their cost (one token by
// default), at least one whole token is needed, a reserve share of the capacity must stay after
// a take, the flat refill is continuous at the rate, success bonuses are capped at capacity,
// and capacity 0 disables it.
func TestTokenBucket(t *testing.T) {
	tests := []struct {
		name       string
		capacity   int
		rate       float64
		bonus      int
		ops        []bucketOp
		readAt     time.Duration
		wantTokens float64
	}{
		{
			name: "starts full", capacity: 10, rate: 1,
			readAt: 0, wantTokens: 10,
		},
		{
			name: "each take spends one token", capacity: 10, rate: 0,
			ops:    []bucketOp{take(0, true), take(0, true), take(0, true)},
			readAt: 0, wantTokens: 7,
		},
		{
			name: "runs dry and refuses", capacity: 2, rate: 0,
			ops:    []bucketOp{take(0, true), take(0, true), take(0, false), take(time.Hour, false)},
			readAt: time.Hour, wantTokens: 0,
		},
		{
			name: "refills at the rate", capacity: 10, rate: 4,
			ops:    []bucketOp{take(0, true), take(0, true), take(0, true), take(0, true)},
			readAt: 500 * time.Millisecond, wantTokens: 6 + 4*0.5,
		},
		{
			name: "refill stops at capacity", capacity: 10, rate: 100,
			ops:    []bucketOp{take(0, true)},
			readAt: time.Minute, wantTokens: 10,
		},
		{
			name: "a fraction of a token is not enough", capacity: 1, rate: 1,
			ops:    []bucketOp{take(0, true), take(900*time.Millisecond, false), take(time.Second, true)},
			readAt: time.Second, wantTokens: 0,
		},
		{
			name: "success bonus returns tokens", capacity: 10, rate: 0, bonus: 3,
			ops:    []bucketOp{take(0, true), take(0, true), take(0, true), take(0, true), credit(0)},
			readAt: 0, wantTokens: 6 + 3,
		},
		{
			name: "success bonus is capped at capacity", capacity: 10, rate: 0, bonus: 5,
			ops:    []bucketOp{take(0, true), credit(0)},
			readAt: 0, wantTokens: 10,
		},
		{
			name: "capacity 0 disables the budget", capacity: 0, rate: 0,
			ops:    []bucketOp{take(0, true), take(0, true), {kind: "take", cost: 50, reserve: 1, wantOK: true}},
			readAt: 0, wantTokens: 0,
		},
		{
			name: "a take spends its cost, fractions included", capacity: 10, rate: 0,
			ops:    []bucketOp{{kind: "take", cost: 2.5, wantOK: true}, {kind: "take", cost: 4.25, wantOK: true}},
			readAt: 0, wantTokens: 10 - 2.5 - 4.25,
		},
		{
			name: "a cost above the tokens left is refused and spends nothing", capacity: 10, rate: 0,
			ops:    []bucketOp{{kind: "take", cost: 8, wantOK: true}, {kind: "take", cost: 2.5, wantOK: false}, {kind: "take", cost: 2, wantOK: true}},
			readAt: 0, wantTokens: 0,
		},
		{
			name: "a cost below one still needs one whole token", capacity: 10, rate: 0,
			ops:    []bucketOp{{kind: "take", cost: 9.5, wantOK: true}, {kind: "take", cost: 0.5, wantOK: false}},
			readAt: 0, wantTokens: 0.5,
		},
		{
			name: "a reserve keeps its share of the capacity", capacity: 10, rate: 0,
			ops: []bucketOp{
				{kind: "take", cost: 6, reserve: 0.4, wantOK: true},  // 4 stay: exactly the reserve
				{kind: "take", cost: 1, reserve: 0.4, wantOK: false}, // 3 would stay
				{kind: "take", cost: 1, reserve: 0.3, wantOK: true},  // 3 stay: a smaller reserve
				{kind: "take", cost: 3, reserve: 0, wantOK: true},    // no reserve: empties it
			},
			readAt: 0, wantTokens: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := bucketOf(tc.capacity, tc.rate, tc.bonus, 0)
			for i, o := range tc.ops {
				switch o.kind {
				case "take":
					cost := o.cost
					if cost == 0 {
						cost = 1
					}
					assert.Equal(t, o.wantOK, b.take(o.at, cost, o.reserve), "op %d: take %v at %v", i, cost, o.at)
				case "credit":
					b.credit(o.at)
				}
			}
			burn := b.burn(tc.readAt)
			assert.InDelta(t, tc.wantTokens, b.tokens, 1e-9)
			if tc.capacity == 0 {
				assert.Zero(t, burn, "a disabled budget never burns")
			} else {
				assert.InDelta(t, 1-tc.wantTokens/float64(tc.capacity), burn, 1e-9, "B = 1 - tokens/capacity")
			}
		})
	}
}

// TestTokenBucketRefillPerSuccess asserts the refill tied to successes (TokenRefillPerSuccess >
// 0): nothing refills without successes however long it waits; each success earns
// TokenRefillPerSuccess of refill, paid in no faster than TokenRefillRate and never more than
// earned; the credit banked is capped at one second of the rate (or one token); a success
// landing on a full bucket earns nothing; and the bonus still goes in at once.
func TestTokenBucketRefillPerSuccess(t *testing.T) {
	tests := []struct {
		name       string
		capacity   int
		rate       float64
		bonus      int
		perSuccess float64
		drain      int           // tokens taken at t=0, before anything else
		successes  int           // credits at t=0, after the drain
		creditAt   time.Duration // when the successes happen (default 0)
		readAt     time.Duration
		wantTokens float64
	}{
		{
			name: "no success, no refill", capacity: 100, rate: 10, perSuccess: 1,
			drain: 50, readAt: time.Hour, wantTokens: 50,
		},
		{
			name: "refill limited by the credit earned", capacity: 100, rate: 10, perSuccess: 1,
			drain: 50, successes: 3, readAt: time.Hour, wantTokens: 50 + 3,
		},
		{
			name: "refill per success scales the credit", capacity: 100, rate: 10, perSuccess: 0.5,
			drain: 50, successes: 3, readAt: time.Hour, wantTokens: 50 + 3*0.5,
		},
		{
			name: "refill limited by the rate", capacity: 100, rate: 10, perSuccess: 1,
			drain: 50, successes: 8, readAt: 300 * time.Millisecond, wantTokens: 50 + 10*0.3,
		},
		{
			name: "the rest of the credit is paid later", capacity: 100, rate: 10, perSuccess: 1,
			drain: 50, successes: 8, readAt: time.Second, wantTokens: 50 + 8,
		},
		{
			name: "banked credit capped at one second of the rate", capacity: 100, rate: 10, perSuccess: 1,
			drain: 50, successes: 1000, readAt: time.Hour, wantTokens: 50 + 10,
		},
		{
			name: "banked credit capped at one token below 1 token/s", capacity: 100, rate: 0.5, perSuccess: 1,
			drain: 50, successes: 10, readAt: time.Hour, wantTokens: 50 + 1,
		},
		{
			name: "a full bucket earns no credit", capacity: 100, rate: 10, perSuccess: 1,
			successes: 10, drain: 0, readAt: time.Hour, wantTokens: 100,
		},
		{
			name: "refill never above capacity", capacity: 100, rate: 10, perSuccess: 1,
			drain: 2, successes: 10, readAt: time.Hour, wantTokens: 100,
		},
		{
			name: "the bonus goes in at once", capacity: 100, rate: 10, bonus: 2, perSuccess: 1,
			drain: 50, successes: 3, readAt: 0, wantTokens: 50 + 3*2,
		},
		{
			name: "rate 0 refills nothing whatever was earned", capacity: 100, rate: 0, perSuccess: 1,
			drain: 50, successes: 10, readAt: time.Hour, wantTokens: 50,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := bucketOf(tc.capacity, tc.rate, tc.bonus, tc.perSuccess)
			for range tc.drain {
				require.True(t, b.take(0, 1, 0))
			}
			for range tc.successes {
				b.credit(tc.creditAt)
			}
			b.refill(tc.readAt)
			assert.InDelta(t, tc.wantTokens, b.tokens, 1e-9)
		})
	}
}

// TestTokenBucketTimeBackwards asserts that time going backwards neither adds nor removes tokens.
func TestTokenBucketTimeBackwards(t *testing.T) {
	b := bucketOf(10, 1, 0, 0)
	assert.True(t, b.take(5*time.Second, 1, 0))
	before := b.tokens
	b.refill(time.Second)
	assert.Equal(t, before, b.tokens)
}

// movingAverage is the moving average of latencies the spec prices retries with: the first
// latency, then each new one weighted recentAlpha.
func movingAverage(lat []time.Duration) float64 {
	var avg float64
	for i, l := range lat {
		if i == 0 {
			avg = float64(l)
		} else {
			avg += recentAlpha * (float64(l) - avg)
		}
	}
	return avg
}

// slowdownOf is S = min(1, max(0, (avg - base) / (3 base))).
func slowdownOf(avg float64, base time.Duration) float64 {
	return math.Min(1, math.Max(0, (avg-float64(base))/(3*float64(base))))
}

// TestRetryCost asserts the price of a retry: 1 + SlowdownCost*S tokens, 1 + 2*SlowdownCost*S
// after a timeout, S being the slowdown of the moving average of recent successes against the
// baseline (fixed, or learned from the first 20 healthy successes); S is 0 before any success
// or baseline and when successes are not slower than the baseline (a network loss), saturates
// at 1, and failures and timeouts do not move it. With SlowdownCost 0 (ArticleConfig) every
// retry costs one token.
func TestRetryCost(t *testing.T) {
	const base = 40 * time.Millisecond
	rep := func(n int, l time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = l
		}
		return out
	}
	learned := rep(baselineSeed, base) // forms a learned baseline of 40 ms
	tests := []struct {
		name      string
		mutate    func(c *Config)
		successes []time.Duration // recorded in this order at one instant
		thenFail  bool            // a failure and a timeout after them
		wantS     bool            // S > 0 expected
	}{
		{"no success yet", nil, nil, false, false},
		{"no baseline yet", nil, rep(5, 10*base), false, false},
		{"successes at the baseline", nil, learned, false, false},
		{"faster than the baseline", nil, append(append([]time.Duration{}, learned...), rep(10, base/2)...), false, false},
		{"learned baseline, slower successes", nil, append(append([]time.Duration{}, learned...), rep(3, 2*base)...), false, true},
		{"learned baseline, a long slow spell", nil, append(append([]time.Duration{}, learned...), rep(100, 2*base)...), false, true},
		{"fixed baseline, one slow success", func(c *Config) { c.BaselineLatency = base }, []time.Duration{100 * time.Millisecond}, false, true},
		{"fixed baseline, S saturates at 1", func(c *Config) { c.BaselineLatency = base }, []time.Duration{10 * base}, false, true},
		{"failures and timeouts leave S alone", func(c *Config) { c.BaselineLatency = base }, []time.Duration{100 * time.Millisecond}, true, true},
		{"article: one token whatever S", onArticle(func(c *Config) { c.BaselineLatency = base }), []time.Duration{10 * base}, false, true},
	}
	for _, tc := range tests {
		for _, timeout := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/timeout=%v", tc.name, timeout), func(t *testing.T) {
				e, _ := newTestEngine(t, tc.mutate)
				cfg := e.Config()
				for _, l := range tc.successes {
					e.RecordSuccess(l)
				}
				if tc.thenFail {
					e.RecordFailure(10 * time.Second)
					e.RecordTimeout(10 * time.Second)
				}
				s := e.Snapshot()
				var slowdown float64
				if s.Baseline > 0 && len(tc.successes) > 0 {
					require.Equal(t, base, s.Baseline)
					slowdown = slowdownOf(movingAverage(tc.successes), base)
				}
				require.Equal(t, tc.wantS, slowdown > 0, "S = %v", slowdown)
				extra := cfg.SlowdownCost * slowdown
				if timeout {
					extra *= 2
				}
				before := s.Tokens
				d := e.Decide(Failure{Priority: MaxPriority, Timeout: timeout})
				require.Equal(t, Retry, d.Action, "%v %s", d, d.Reason)
				// Within 1e-6: the engine reads the average as whole nanoseconds.
				assert.InDelta(t, 1+extra, before-e.Snapshot().Tokens, 1e-6, "S = %v", slowdown)
				if cfg.SlowdownCost == 0 {
					assert.Equal(t, 1.0, before-e.Snapshot().Tokens)
				}
			})
		}
	}
}

// TestBudgetRefillTiedToSuccesses asserts the default refill (TokenRefillPerSuccess > 0)
// through the engine: a drained budget does not refill while nothing succeeds, however long;
// successes earn TokenRefillPerSuccess each, paid in no faster than TokenRefillRate; a burst of
// successes banks at most one second of refill.
func TestBudgetRefillTiedToSuccesses(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	cfg := e.Config()
	require.Positive(t, cfg.TokenRefillPerSuccess, "the defaults tie the refill to successes")
	const spent = 300
	for i := range spent {
		require.Equal(t, Retry, e.ShouldRetry(MaxPriority, 0, true).Action, "retry %d", i)
	}
	full := float64(cfg.TokenBucketCapacity)
	require.Equal(t, full-spent, e.Snapshot().Tokens)

	clock.Advance(10 * time.Minute)
	assert.Equal(t, full-spent, e.Snapshot().Tokens, "no success, no refill")

	e.RecordSuccess(20 * time.Millisecond)
	e.RecordSuccess(20 * time.Millisecond)
	clock.Advance(time.Minute)
	assert.InDelta(t, full-spent+2*cfg.TokenRefillPerSuccess, e.Snapshot().Tokens, 1e-9, "two successes, two refills")

	before := e.Snapshot().Tokens
	for range 10 * int(cfg.TokenRefillRate) {
		e.RecordSuccess(20 * time.Millisecond)
	}
	clock.Advance(100 * time.Millisecond)
	assert.InDelta(t, before+cfg.TokenRefillRate/10, e.Snapshot().Tokens, 1e-9, "paid in at TokenRefillRate at most")
	clock.Advance(time.Hour)
	assert.InDelta(t, before+cfg.TokenRefillRate, e.Snapshot().Tokens, 1e-9, "one second of refill banked at most")
}

// TestBudgetReserve asserts BudgetReserve: a retry of priority p spends only while
// BudgetReserve*(10-p)/10 of the capacity stays after it. With a half-empty bucket on the
// defaults, analytics (1) gets BUDGET_EXHAUSTED while payment (9) still retries; priority 10
// may empty the bucket; BudgetReserve 0 (ArticleConfig) is first come, first served; the
// fallback path spends with no reserve and one token per retry.
func TestBudgetReserve(t *testing.T) {
	// halfEmpty spends half the capacity with priority-10 retries (no success: one token each).
	halfEmpty := func(t *testing.T, e *Engine) {
		t.Helper()
		for range e.Config().TokenBucketCapacity / 2 {
			require.Equal(t, Retry, e.ShouldRetry(MaxPriority, 0, true).Action)
		}
		require.Equal(t, float64(e.Config().TokenBucketCapacity)/2, e.Snapshot().Tokens)
	}
	for _, tc := range []struct {
		name    string
		mutate  func(c *Config)
		reserve float64
	}{
		{"defaults", nil, DefaultConfig().BudgetReserve},
		{"reserve 1", func(c *Config) { c.BudgetReserve = 1 }, 1},
		{"article: no reserve", onArticle(nil), 0},
	} {
		for p := MinPriority; p <= MaxPriority; p++ {
			t.Run(fmt.Sprintf("%s/priority %d", tc.name, p), func(t *testing.T) {
				e, _ := newTestEngine(t, tc.mutate)
				halfEmpty(t, e)
				s := e.Snapshot()
				cfg := e.Config()
				require.Less(t, s.Floor, 1, "nothing is shed by the CPS")
				keep := tc.reserve * float64(MaxPriority-p) / MaxPriority * float64(cfg.TokenBucketCapacity)
				d := e.ShouldRetry(p, 0, true)
				if s.Tokens-1 >= keep {
					assert.Equal(t, Retry, d.Action, "%v %s", d, d.Reason)
				} else {
					assert.Equal(t, ReasonBudgetExhausted, d.Reason, "%v", d)
					assert.Equal(t, s.Tokens, e.Snapshot().Tokens, "a refused retry spends nothing")
				}
			})
		}
	}

	t.Run("defaults: analytics stops, payment retries", func(t *testing.T) {
		e, _ := newTestEngine(t, nil)
		halfEmpty(t, e)
		assert.Equal(t, ReasonBudgetExhausted, e.ShouldRetry(1, 0, true).Reason)
		assert.Equal(t, Retry, e.ShouldRetry(9, 0, true).Action)
	})

	t.Run("priority 10 empties the bucket", func(t *testing.T) {
		e, _ := newTestEngine(t, nil)
		halfEmpty(t, e)
		for e.Snapshot().Tokens >= 1 {
			require.Equal(t, Retry, e.ShouldRetry(MaxPriority, 0, true).Action, "tokens %v", e.Snapshot().Tokens)
		}
		assert.Zero(t, e.Snapshot().Tokens)
		assert.Equal(t, ReasonBudgetExhausted, e.ShouldRetry(MaxPriority, 0, true).Reason)
	})

	t.Run("the fallback spends with no reserve, one token each", func(t *testing.T) {
		e, _ := newTestEngine(t, func(c *Config) { c.BaselineLatency = 40 * time.Millisecond })
		halfEmpty(t, e)
		e.RecordSuccess(400 * time.Millisecond) // S = 1: the unified path would charge 1 + 2*SlowdownCost
		const p = 5                             // above the floor the slow success raises
		require.Equal(t, ReasonBudgetExhausted, e.Decide(Failure{Priority: p, Timeout: true}).Reason)
		e.signalHook = func(Signals) Signals { panic("signal source failed") }
		before := e.Snapshot().Tokens
		d := e.Decide(Failure{Priority: p, Timeout: true})
		require.True(t, d.Fallback)
		assert.Equal(t, Retry, d.Action, "%v %s", d, d.Reason)
		assert.Equal(t, before-1, e.Snapshot().Tokens)
	})
}

// TestPricedNeverAboveTheBucket asserts that a retry's cost is never above what the bucket can
// spend above the priority reserve, and that a full bucket pays any price for every priority:
// the defect it fixes priced a timeout's retry at 39 tokens against a client's 25 after slow
// successes, so no retry below priority 10 could pass while the bucket was full.
func TestPricedNeverAboveTheBucket(t *testing.T) {
	tests := []struct {
		name               string
		cost, reserve, cap float64
		wantTake, wantKeep float64
	}{
		{name: "a cheap retry", cost: 1, reserve: 0.81, cap: 500, wantTake: 1, wantKeep: 405},
		{name: "a cost below one costs one", cost: 0.2, reserve: 0, cap: 500, wantTake: 1, wantKeep: 0},
		{name: "the reserve is rounded down", cost: 3, reserve: 0.81, cap: 25, wantTake: 3, wantKeep: 20},
		{name: "a price above what the reserve leaves is cut to it", cost: 39, reserve: 0.81, cap: 25, wantTake: 5, wantKeep: 20},
		{name: "a price above the capacity is cut to it", cost: 39, reserve: 0, cap: 25, wantTake: 25, wantKeep: 0},
		{name: "a reserve of the whole bucket still leaves one token", cost: 5, reserve: 1, cap: 25, wantTake: 1, wantKeep: 24},
		{name: "a one-token bucket", cost: 39, reserve: 0.9, cap: 1, wantTake: 1, wantKeep: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			take, keep := priced(tt.cost, tt.reserve, tt.cap)
			assert.Equal(t, tt.wantTake, take, "tokens taken")
			assert.Equal(t, tt.wantKeep, keep, "tokens kept")
			assert.LessOrEqual(t, take+keep, tt.cap, "a full bucket can pay it")
		})
	}
	for p := MinPriority; p <= MaxPriority; p++ {
		for _, timeout := range []bool{false, true} {
			cfg := DefaultConfig().Split(20) // 25 tokens, as a client of black-friday
			clock := NewManualClock(time.Unix(0, 0))
			cfg.Clock, cfg.Deterministic = clock, true
			e, err := New(cfg)
			require.NoError(t, err)
			for range 40 { // a baseline of 100 ms, then successes four times slower: S = 1
				clock.Advance(100 * time.Millisecond)
				e.RecordSuccess(100 * time.Millisecond)
			}
			for range 10 {
				e.RecordSuccess(2 * time.Second)
			}
			require.InDelta(t, 1, e.Snapshot().Slowdown, 1e-9, "the successes are slow: the price is at its highest")
			require.Equal(t, 25.0, e.Snapshot().Tokens, "the bucket is full")
			d := e.Decide(Failure{Priority: p, Timeout: timeout})
			assert.NotEqual(t, ReasonBudgetExhausted, d.Reason, "priority %d, timeout %v: a full bucket never refuses for budget", p, timeout)
			if p >= d.Floor {
				assert.Equal(t, Retry, d.Action, "priority %d at or above the floor %d, timeout %v: it retries", p, d.Floor, timeout)
			}
		}
	}
}

// Asserts that takeAt, the engine's take at a priority's price worked out once (pricesOf),
// answers and takes exactly what take does at that priority's reserve share: for small and large
// buckets, every priority and reserve, costs below one, fractional, at and above the bucket,
// and from a full, a half-empty and a nearly empty bucket.
func TestTakeAtIsTake(t *testing.T) {
	for _, capacity := range []int{1, 2, 3, 25, 100, 1 << 20} {
		for _, r := range []float64{0, 0.3, 0.9, 1} {
			for p := MinPriority; p <= MaxPriority; p++ {
				for _, cost := range []float64{0, 0.5, 1, 1.7, 7, 24.9, 25, 39, math.Inf(1)} {
					for _, fill := range []float64{1, 0.5, 0.04} {
						t.Run(fmt.Sprintf("cap%d/r%v/p%d/cost%v/fill%v", capacity, r, p, cost, fill), func(t *testing.T) {
							c := Config{TokenBucketCapacity: capacity, TokenRefillRate: 1, BudgetReserve: r}
							a, b := newTokenBucket(&c), newTokenBucket(&c)
							a.tokens, b.tokens = fill*a.capacity, fill*b.capacity
							okA := a.take(time.Second, cost, reserveOf(r, p))
							prices := pricesOf(&b, r)
							okB := b.takeAt(time.Second, cost, &prices[p])
							assert.Equal(t, okA, okB, "answers")
							assert.Equal(t, a.tokens, b.tokens, "tokens left")
						})
					}
				}
			}
		}
	}
}
