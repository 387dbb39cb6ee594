package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestTokenBucket asserts the retry budget's arithmetic: takes spend one whole token, refill is
// continuous at the rate, success bonuses are capped at capacity, and capacity 0 disables it.
func TestTokenBucket(t *testing.T) {
	type op struct {
		at     time.Duration
		kind   string // "take", "credit"
		wantOK bool   // for take
	}
	tests := []struct {
		name       string
		capacity   int
		rate       float64
		bonus      int
		ops        []op
		readAt     time.Duration
		wantTokens float64
	}{
		{
			name: "starts full", capacity: 10, rate: 1,
			readAt: 0, wantTokens: 10,
		},
		{
			name: "each take spends one token", capacity: 10, rate: 0,
			ops:    []op{{0, "take", true}, {0, "take", true}, {0, "take", true}},
			readAt: 0, wantTokens: 7,
		},
		{
			name: "runs dry and refuses", capacity: 2, rate: 0,
			ops:    []op{{0, "take", true}, {0, "take", true}, {0, "take", false}, {time.Hour, "take", false}},
			readAt: time.Hour, wantTokens: 0,
		},
		{
			name: "refills at the rate", capacity: 10, rate: 4,
			ops:    []op{{0, "take", true}, {0, "take", true}, {0, "take", true}, {0, "take", true}},
			readAt: 500 * time.Millisecond, wantTokens: 6 + 4*0.5,
		},
		{
			name: "refill stops at capacity", capacity: 10, rate: 100,
			ops:    []op{{0, "take", true}},
			readAt: time.Minute, wantTokens: 10,
		},
		{
			name: "a fraction of a token is not enough", capacity: 1, rate: 1,
			ops:    []op{{0, "take", true}, {900 * time.Millisecond, "take", false}, {time.Second, "take", true}},
			readAt: time.Second, wantTokens: 0,
		},
		{
			name: "success bonus returns tokens", capacity: 10, rate: 0, bonus: 3,
			ops:    []op{{0, "take", true}, {0, "take", true}, {0, "take", true}, {0, "take", true}, {0, "credit", false}},
			readAt: 0, wantTokens: 6 + 3,
		},
		{
			name: "success bonus is capped at capacity", capacity: 10, rate: 0, bonus: 5,
			ops:    []op{{0, "take", true}, {0, "credit", false}},
			readAt: 0, wantTokens: 10,
		},
		{
			name: "capacity 0 disables the budget", capacity: 0, rate: 0,
			ops:    []op{{0, "take", true}, {0, "take", true}},
			readAt: 0, wantTokens: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newTokenBucket(tc.capacity, tc.rate, tc.bonus)
			for i, o := range tc.ops {
				switch o.kind {
				case "take":
					assert.Equal(t, o.wantOK, b.take(o.at), "op %d: take at %v", i, o.at)
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

// TestTokenBucketTimeBackwards asserts that time going backwards neither adds nor removes tokens.
func TestTokenBucketTimeBackwards(t *testing.T) {
	b := newTokenBucket(10, 1, 0)
	assert.True(t, b.take(5*time.Second))
	before := b.tokens
	b.refill(time.Second)
	assert.Equal(t, before, b.tokens)
}
