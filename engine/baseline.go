package engine

import (
	"math"
	"slices"
	"time"
)

// baselineSeed is how many healthy successes form the first baseline (their median).
const baselineSeed = 20

// baselineStep is how far the learned baseline moves per window slice (1% of itself), towards
// the side of it where most of that slice's healthy successes fell: a slow streaming median.
const baselineStep = 0.01

// The learned tail (Config.LearnTail) is the P99 of a histogram of healthy successes whose
// counts decay by tailDecay per window slice (a memory of about 50 slices). Once per healthy
// slice, when the histogram holds at least tailMinSamples, its P99 forms the tail (the first
// time) or the tail moves by baselineStep towards it, the pace of the baseline itself.
const (
	tailMinSamples = 50
	tailDecay      = 0.98
)

// baseline is the baseline P50 latency used by signal L. Fixed when configured; otherwise the
// engine feeds it only the successes recorded while the circuit is CLOSED and F < 0.10, so an
// incident cannot drag it upward and hide itself. The first baselineSeed such successes form it
// (their median); after that it moves by baselineStep per window slice towards the median of
// new healthy successes. Not safe for concurrent use.
//
// With learnTail it also learns the healthy P99, the tail, from the same successes (see
// tailDecay), so that L measures the P99 against what a healthy P99 looks like.
type baseline struct {
	// The fields the signals read first, the arrays last (see Engine's layout).
	fixed        bool
	learnTail    bool
	value        time.Duration // 0 until formed; changed through set only
	scale        float64       // 1 / (3 value), 0 until formed
	tail         time.Duration // the healthy P99; 0 until formed
	n            int
	above, below uint64 // healthy successes above / below value since the last step

	seed    [baselineSeed]time.Duration
	healthy decayingHistogram
}

// decayingHistogram is a latency histogram whose counts and sums are scaled down by decay.
// The zero value is empty.
type decayingHistogram struct {
	bins [histBins]decayingBin
	n    float64
}

// decayingBin is one bin of a decayingHistogram, its count and sum side by side (histBin).
type decayingBin struct {
	count, sum float64
}

func (h *decayingHistogram) add(ns int64) {
	b := &h.bins[binOf(ns)]
	b.count++
	b.sum += float64(ns)
	h.n++
}

// decay scales every count and sum by f.
func (h *decayingHistogram) decay(f float64) {
	for i := range h.bins {
		h.bins[i].count *= f
		h.bins[i].sum *= f
	}
	h.n *= f
}

// p99 returns the mean latency of the bin holding the 99th percentile (as histogram.quantile
// does), 0 when empty.
func (h *decayingHistogram) p99() time.Duration {
	need := h.n * 0.01
	var cum float64
	for i := histBins - 1; i >= 0; i-- {
		if c := h.bins[i].count; c > 0 {
			cum += c
			if cum >= need {
				return time.Duration(h.bins[i].sum / c)
			}
		}
	}
	return 0
}

func newBaseline(fixed time.Duration, learnTail bool) baseline {
	b := baseline{fixed: fixed > 0, learnTail: learnTail}
	b.set(fixed)
	return b
}

// observe takes one healthy success.
func (b *baseline) observe(latency time.Duration) {
	if b.learnTail {
		b.healthy.add(int64(latency))
	}
	switch {
	case b.fixed:
	case b.n < baselineSeed:
		b.seed[b.n] = latency
		b.n++
		if b.n == baselineSeed {
			s := b.seed
			slices.Sort(s[:])
			b.set(max(1, (s[baselineSeed/2-1]+s[baselineSeed/2])/2))
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
		b.set(max(1, time.Duration(float64(b.value)*(1+baselineStep))))
	case b.below > b.above:
		b.set(max(1, time.Duration(float64(b.value)*(1-baselineStep))))
	}
	b.above, b.below = 0, 0
}

// discard forgets the healthy successes counted since the last step.
func (b *baseline) discard() { b.above, b.below = 0, 0 }

// stepTail moves the learned tail towards the P99 of the healthy successes (see tailDecay);
// the engine calls it after step when the window crossed slices (at least one) and the service
// is healthy. The histogram decays once per slice crossed, so sparse traffic does not make it
// remember longer.
func (b *baseline) stepTail(slices int64) {
	if !b.learnTail {
		return
	}
	if b.healthy.n >= tailMinSamples {
		p := b.healthy.p99()
		switch {
		case b.tail == 0:
			b.tail = p
		case p > b.tail:
			b.tail = max(1, time.Duration(float64(b.tail)*(1+baselineStep)))
		case p < b.tail:
			b.tail = max(1, time.Duration(float64(b.tail)*(1-baselineStep)))
		}
	}
	b.healthy.decay(math.Pow(tailDecay, float64(slices)))
}

// reference returns the latency L measures the P99 against: the learned tail once formed (and
// never below the baseline), the baseline P50 otherwise.
func (b *baseline) reference() time.Duration {
	if b.tail > b.value {
		return b.tail
	}
	return b.value
}

// deviation returns L = min(1, max(0, (p99 - ref) / (3 base))), ref the reference (the
// baseline P50, or the healthy tail), 0 until the baseline is formed.
func (b *baseline) deviation(p99 time.Duration) float64 {
	if b.value <= 0 {
		return 0
	}
	return clamp01((float64(p99) - float64(b.reference())) * b.scale)
}

// set makes v the baseline, with the scale 1/(3v) that deviation and slowdown multiply by
// (two signals per decision: a multiplication instead of a division).
func (b *baseline) set(v time.Duration) {
	b.value, b.scale = v, 0
	if v > 0 {
		b.scale = 1 / (3 * float64(v))
	}
}

// slowdown returns how much slower than the baseline the successes are: min(1, max(0,
// (mean - base) / (3 base))), mean the mean latency of recent successes; 0 until the baseline
// is formed or without successes.
func (b *baseline) slowdown(mean time.Duration) float64 {
	if b.value <= 0 || mean <= 0 {
		return 0
	}
	return clamp01((float64(mean) - float64(b.value)) * b.scale)
}
