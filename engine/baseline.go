package engine

import (
	"slices"
	"time"
)

// baselineSeed is how many healthy successes form the first baseline (their median).
const baselineSeed = 20

// baselineStep is how far the learned baseline moves per window slice (1% of itself), towards
// the side of it where most of that slice's healthy successes fell: a slow streaming median.
const baselineStep = 0.01

// baseline is the baseline P50 latency used by signal L. Fixed when configured; otherwise the
// engine feeds it only the successes recorded while the circuit is CLOSED and F < 0.10, so an
// incident cannot drag it upward and hide itself. The first baselineSeed such successes form it
// (their median); after that it moves by baselineStep per window slice towards the median of
// new healthy successes. Not safe for concurrent use.
type baseline struct {
	fixed        bool
	value        time.Duration // 0 until formed
	seed         [baselineSeed]time.Duration
	n            int
	above, below uint64 // healthy successes above / below value since the last step
}

func newBaseline(fixed time.Duration) baseline {
	return baseline{fixed: fixed > 0, value: fixed}
}

// observe takes one healthy success.
func (b *baseline) observe(latency time.Duration) {
	switch {
	case b.fixed:
	case b.n < baselineSeed:
		b.seed[b.n] = latency
		b.n++
		if b.n == baselineSeed {
			s := b.seed
			slices.Sort(s[:])
			b.value = max(1, (s[baselineSeed/2-1]+s[baselineSeed/2])/2)
		}
	case latency > b.value:
		b.above++
	case latency < b.value:
		b.below++
	}
}

// step moves a formed, learned baseline one step towards the recent healthy median; the engine
// calls it once per window slice.
func (b *baseline) step() {
	if b.fixed || b.value == 0 {
		return
	}
	switch {
	case b.above > b.below:
		b.value = max(1, time.Duration(float64(b.value)*(1+baselineStep)))
	case b.below > b.above:
		b.value = max(1, time.Duration(float64(b.value)*(1-baselineStep)))
	}
	b.above, b.below = 0, 0
}

// discard forgets the healthy successes counted since the last step.
func (b *baseline) discard() { b.above, b.below = 0, 0 }

// deviation returns L = min(1, max(0, (p99 - base) / (3 base))), 0 until the baseline is formed.
func (b *baseline) deviation(p99 time.Duration) float64 {
	if b.value <= 0 {
		return 0
	}
	base := float64(b.value)
	return clamp01((float64(p99) - base) / (3 * base))
}
