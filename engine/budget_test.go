package engine

import (
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
