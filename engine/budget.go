package engine

import "time"

// tokenBucket is the retry budget: capacity tokens, refilled continuously at rate tokens per
// second and by bonus tokens per success, never above capacity; each retry takes one whole
// token. A capacity of 0 disables the budget (every take succeeds, burn is 0). Time is the
// engine's elapsed time and must not go backwards. Not safe for concurrent use.
type tokenBucket struct {
	capacity float64
	rate     float64 // tokens per second
	bonus    float64 // tokens per success
	tokens   float64
	last     time.Duration
}

func newTokenBucket(capacity int, rate float64, bonus int) tokenBucket {
	return tokenBucket{capacity: float64(capacity), rate: rate, bonus: float64(bonus), tokens: float64(capacity)}
}

// refill adds the tokens earned since the last call.
func (b *tokenBucket) refill(t time.Duration) {
	if t <= b.last {
		return
	}
	if b.tokens < b.capacity {
		b.tokens = min(b.capacity, b.tokens+b.rate*(t-b.last).Seconds())
	}
	b.last = t
}

// take removes one token if there is one and reports whether it did.
func (b *tokenBucket) take(t time.Duration) bool {
	if b.capacity == 0 {
		return true
	}
	b.refill(t)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// credit returns the success bonus to the bucket.
func (b *tokenBucket) credit(t time.Duration) {
	b.refill(t)
	b.tokens = min(b.capacity, b.tokens+b.bonus)
}

// burn returns B = 1 - tokens/capacity, 0 when the budget is disabled.
func (b *tokenBucket) burn(t time.Duration) float64 {
	if b.capacity == 0 {
		return 0
	}
	b.refill(t)
	return clamp01(1 - b.tokens/b.capacity)
}
