package engine

import (
	"math"
	"time"
)

// tokenBucket is the retry budget: capacity tokens; a retry takes cost tokens (1, more after a
// timeout). It refills at rate tokens per second and by bonus tokens per success, never above
// capacity. When perSuccess > 0 the rate is only a ceiling: each success earns perSuccess tokens
// of refill credit, and the refill pays out at most the credit earned, so a service that
// answers nothing refills nothing. The credit banked is capped at one second of refill (or one
// token), so a long healthy spell cannot save up a storm. A capacity of 0 disables the budget
// (every take succeeds, burn is 0). Time is the engine's elapsed time and must not go
// backwards. Not safe for concurrent use.
type tokenBucket struct {
	capacity   float64
	inverse    float64 // 1 / capacity (0 when disabled): burn multiplies instead of dividing
	rate       float64 // tokens per second (a ceiling when perSuccess > 0)
	perNs      float64 // rate per nanosecond: refill multiplies an elapsed time in ns
	bonus      float64 // tokens per success
	perSuccess float64 // refill credit per success; 0 = flat refill
	earned     float64 // refill earned by successes and not yet paid in
	earnedCap  float64
	tokens     float64
	last       time.Duration
}

// retryPrice is priced's answer for a retry of one priority of the engine's own (its reserve
// Config.BudgetReserve*(10-p)/10): the most tokens it takes (a cost is at most most) and the
// tokens it must leave. The capacity and the reserves never change, so the floor and the bounds
// are worked out once (pricesOf), not on every decision.
type retryPrice struct{ most, keep float64 }

// pricesOf returns the retry prices of bucket b by priority, with Config.BudgetReserve r.
func pricesOf(b *tokenBucket, r float64) (p [MaxPriority + 1]retryPrice) {
	for q := range p {
		p[q].most, p[q].keep = priced(math.Inf(1), reserveOf(r, q), b.capacity)
	}
	return p
}

func newTokenBucket(c *Config) tokenBucket {
	b := tokenBucket{
		capacity:   float64(c.TokenBucketCapacity),
		rate:       c.TokenRefillRate,
		perNs:      c.TokenRefillRate / float64(time.Second),
		bonus:      float64(c.TokenSuccessBonus),
		perSuccess: c.TokenRefillPerSuccess,
		earnedCap:  max(1, c.TokenRefillRate),
		tokens:     float64(c.TokenBucketCapacity),
	}
	if b.capacity > 0 {
		b.inverse = 1 / b.capacity
	}
	return b
}

// refill adds the tokens earned since the last call.
func (b *tokenBucket) refill(t time.Duration) {
	if t <= b.last {
		return
	}
	if b.tokens < b.capacity {
		add := b.perNs * float64(t-b.last)
		if b.perSuccess > 0 {
			add = min(add, b.earned)
			b.earned -= add
		}
		b.tokens = min(b.capacity, b.tokens+add)
	}
	b.last = t
}

// take removes cost tokens if there are that many and the share reserve of the capacity stays
// in the bucket after them (see priced); it reports whether it did.
func (b *tokenBucket) take(t time.Duration, cost, reserve float64) bool {
	if b.capacity == 0 {
		return true
	}
	b.refill(t)
	return b.pay(priced(cost, reserve, b.capacity))
}

// takeAt is take at the price p of the retry's priority (pricesOf): the same answer and the
// same tokens taken as take with that priority's reserve.
func (b *tokenBucket) takeAt(t time.Duration, cost float64, p *retryPrice) bool {
	if b.capacity == 0 {
		return true
	}
	b.refill(t)
	return b.pay(min(max(1, cost), p.most), p.keep)
}

// pay removes cost tokens if there are that many and keep tokens stay after them; it reports
// whether it did.
func (b *tokenBucket) pay(cost, keep float64) bool {
	if b.tokens < cost || b.tokens-cost < keep {
		return false
	}
	b.tokens -= cost
	return true
}

// priced returns what a retry of price cost actually takes from a bucket of capacity tokens
// whose priority reserve is the share reserve of it, and the tokens it must leave there: the
// reserve is rounded down to whole tokens and kept below the capacity, and the cost is at least
// one token and at most what the bucket can spend above the reserve. So a cost is never above
// what the bucket can hold, and a full bucket never refuses a retry of any priority at any
// price (a price of 39 tokens against a client's 25, after slow successes and a timeout, once
// refused every retry below priority 10 with the bucket full). Rounding down keeps a small
// bucket (a client's share of a large fleet) usable by every priority.
func priced(cost, reserve, capacity float64) (take, keep float64) {
	keep = min(math.Floor(reserve*capacity), capacity-1)
	return min(max(1, cost), max(1, capacity-keep)), max(0, keep)
}

// credit counts one success: the bonus goes into the bucket at once, the refill credit into the
// bank.
func (b *tokenBucket) credit(t time.Duration) {
	b.refill(t)
	b.tokens = min(b.capacity, b.tokens+b.bonus)
	if b.perSuccess > 0 && b.tokens < b.capacity {
		b.earned = min(b.earnedCap, b.earned+b.perSuccess)
	}
}

// burn returns B = 1 - tokens/capacity, 0 when the budget is disabled.
func (b *tokenBucket) burn(t time.Duration) float64 {
	if b.capacity == 0 {
		return 0
	}
	b.refill(t)
	return clamp01(1 - b.tokens*b.inverse)
}
