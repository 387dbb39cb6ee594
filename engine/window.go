package engine

import (
	"math/bits"
	"time"
)

// The latency histogram is log-linear (like HDR histograms): each power of two from 2^16 ns
// (65.5 µs) to 2^36 ns (68.7 s) is split into 4 equal sub-bins, so a bin is at most 25% wide.
// Latencies below the range land in bin 0, above it in the last bin. Every bin keeps its count
// and the sum of its latencies, so a quantile is reported as the mean of the bin that holds it:
// exact when the latencies in that bin are equal, never off by more than the bin's width.
const (
	histMinOctave = 16
	histSubBits   = 2
	histOctaves   = 20
	histBins      = histOctaves << histSubBits // 80
)

// windowBuckets is the number of time buckets of the sliding window (60 × 1 s by default).
const windowBuckets = 60

// histogram counts latencies in log-linear bins. The zero value is empty.
type histogram struct {
	counts [histBins]uint64
	sums   [histBins]uint64 // nanoseconds
}

// binOf returns the histogram bin of a latency of ns nanoseconds (ns >= 0).
func binOf(ns int64) int {
	if ns < 1<<histMinOctave {
		return 0
	}
	oct := bits.Len64(uint64(ns)) - 1
	if oct >= histMinOctave+histOctaves {
		return histBins - 1
	}
	sub := int(uint64(ns)>>(oct-histSubBits)) & (1<<histSubBits - 1)
	return (oct-histMinOctave)<<histSubBits | sub
}

func (h *histogram) add(ns int64) { h.addAt(binOf(ns), ns) }

// addAt adds a latency of ns nanoseconds whose bin is i.
func (h *histogram) addAt(i int, ns int64) {
	h.counts[i]++
	h.sums[i] += uint64(ns)
}

// sub removes every sample of o from h; o must be a subset of h.
func (h *histogram) sub(o *histogram) {
	for i := range h.counts {
		h.counts[i] -= o.counts[i]
		h.sums[i] -= o.sums[i]
	}
}

// quantile returns the q-quantile (0 < q <= 1) of the n samples of h, as the mean latency of the
// bin holding the sample of rank ceil(q*n). It scans from the top bin down, so high quantiles
// cost a few bins. It returns 0 when n is 0.
func (h *histogram) quantile(q float64, n uint64) time.Duration {
	return h.quantileFrom(q, n, histBins-1)
}

// quantileFrom is quantile with the scan starting at bin top; every bin above top must be empty.
func (h *histogram) quantileFrom(q float64, n uint64, top int) time.Duration {
	if n == 0 {
		return 0
	}
	rank := uint64(q * float64(n))
	if float64(rank) < q*float64(n) {
		rank++
	}
	rank = max(1, min(rank, n))
	need := n - rank + 1 // samples at or above the rank
	var cum uint64
	for i := top; i >= 0; i-- {
		c := h.counts[i]
		if c == 0 {
			continue
		}
		cum += c
		if cum >= need {
			return time.Duration(h.sums[i] / c)
		}
	}
	return 0
}

// bucket is one time slice of the sliding window.
type bucket struct {
	epoch     int64 // index of the slice since the window's origin
	successes uint64
	failures  uint64
	hist      histogram
}

// slidingWindow counts outcomes and latencies over the last windowBuckets time slices. Recording
// is O(1); the totals and the merged histogram are kept running (added on record, subtracted
// when a slice expires), so reading F or P99 never merges the buckets. Time is the elapsed time
// since the engine's origin and must not go backwards (the engine guarantees it). Not safe for
// concurrent use: the engine's mutex guards it.
type slidingWindow struct {
	width     time.Duration // length of one slice
	head      int64         // epoch of the newest slice
	nextEdge  time.Duration // start of slice head+1
	buckets   [windowBuckets]bucket
	successes uint64
	failures  uint64
	merged    histogram
	top       int // no bin of merged above this one holds a sample (P99 scans down from it)
}

// newSlidingWindow returns an empty window of windowBuckets slices of window/windowBuckets each
// (at least 1 ns, so a window below 60 ns lasts 60 ns).
func newSlidingWindow(window time.Duration) slidingWindow {
	var s slidingWindow
	s.init(window)
	return s
}

// init empties the window in place and sets its length; elapsed time starts again at 0.
func (s *slidingWindow) init(window time.Duration) {
	if s.width != 0 { // a used window (a fresh one is already zero: skip clearing ~78 KB)
		*s = slidingWindow{}
	}
	s.width = max(window/windowBuckets, 1)
	s.nextEdge = s.width
}

// advance expires the slices that fell out of the window at elapsed time t and returns how many
// slice boundaries were crossed (0 on the fast path).
func (s *slidingWindow) advance(t time.Duration) int64 {
	if t < s.nextEdge {
		return 0
	}
	cur := int64(t / s.width)
	crossed := cur - s.head
	if crossed >= windowBuckets {
		for i := range s.buckets {
			s.buckets[i] = bucket{}
		}
		s.successes, s.failures, s.merged, s.top = 0, 0, histogram{}, 0
	} else {
		for e := s.head + 1; e <= cur; e++ {
			b := &s.buckets[e%windowBuckets]
			s.successes -= b.successes
			s.failures -= b.failures
			s.merged.sub(&b.hist)
			*b = bucket{}
		}
	}
	for s.top > 0 && s.merged.counts[s.top] == 0 {
		s.top--
	}
	s.head = cur
	s.buckets[cur%windowBuckets].epoch = cur
	s.nextEdge = time.Duration(cur+1) * s.width
	return crossed
}

// record adds one outcome to the current slice; advance(t) must have been called.
func (s *slidingWindow) record(ok bool, latency time.Duration) {
	b := &s.buckets[s.head%windowBuckets]
	ns := int64(latency)
	if ok {
		b.successes++
		s.successes++
	} else {
		b.failures++
		s.failures++
	}
	i := binOf(ns)
	b.hist.addAt(i, ns)
	s.merged.addAt(i, ns)
	s.top = max(s.top, i)
}

// outcomes returns the number of outcomes in the window.
func (s *slidingWindow) outcomes() uint64 { return s.successes + s.failures }

// failureRate returns failures / outcomes in the window, 0 when empty.
func (s *slidingWindow) failureRate() float64 {
	n := s.successes + s.failures
	if n == 0 {
		return 0
	}
	return float64(s.failures) / float64(n)
}

// p99 returns the 99th percentile latency over the window, 0 when empty.
func (s *slidingWindow) p99() time.Duration {
	return s.merged.quantileFrom(0.99, s.outcomes(), s.top)
}
