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
	bins [histBins]histBin
}

// histBin is one bin of a histogram: its count and the sum of its latencies side by side, so
// that a record touches one cache line of each histogram instead of two (the engines of a
// simulated fleet miss the L1 cache on every record otherwise).
type histBin struct {
	count uint64
	sum   uint64 // nanoseconds
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
	b := &h.bins[i]
	b.count++
	b.sum += uint64(ns)
}

// sub removes every sample of o from h; o must be a subset of h.
func (h *histogram) sub(o *histogram) {
	for i := range h.bins {
		h.bins[i].count -= o.bins[i].count
		h.bins[i].sum -= o.bins[i].sum
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
		c := h.bins[i].count
		if c == 0 {
			continue
		}
		cum += c
		if cum >= need {
			return time.Duration(h.bins[i].sum / c)
		}
	}
	return 0
}

// bucket is one time slice of the sliding window.
type bucket struct {
	epoch     int64 // index of the slice since the window's origin
	successes uint64
	failures  uint64
	timeouts  uint64 // the failures that were timeouts
	hist      histogram
}

// tally counts the outcomes of a run of consecutive slices, added to on record and subtracted
// from when a slice leaves the run.
type tally struct {
	successes uint64
	failures  uint64
	timeouts  uint64 // the failures that were timeouts
}

// count counts one outcome.
func (p *tally) count(o outcome) {
	switch o {
	case succeeded:
		p.successes++
	case timedOut:
		p.timeouts++
		p.failures++
	default:
		p.failures++
	}
}

// forget removes the outcomes of slice b, which the tally holds.
func (p *tally) forget(b *bucket) {
	p.successes -= b.successes
	p.failures -= b.failures
	p.timeouts -= b.timeouts
}

// span is a tally with the merged latency histogram of its slices, for P99: the window's short
// span (the long one needs only its counts, so it keeps no histogram).
type span struct {
	tally
	top    int // no bin of merged above this one holds a sample (P99 scans down from it)
	merged histogram
}

// add counts one outcome whose latency ns falls in bin i.
func (p *span) add(o outcome, i int, ns int64) {
	p.count(o)
	p.merged.addAt(i, ns)
	p.top = max(p.top, i)
}

// drop removes the outcomes of slice b, which the span holds.
func (p *span) drop(b *bucket) {
	p.forget(b)
	p.merged.sub(&b.hist)
}

// settle lowers top past the bins that dropped emptied.
func (p *span) settle() {
	for p.top > 0 && p.merged.bins[p.top].count == 0 {
		p.top--
	}
}

// outcomes returns the number of outcomes in the tally.
func (p *tally) outcomes() uint64 { return p.successes + p.failures }

// failureRate returns failures / outcomes in the tally, 0 when empty.
func (p *tally) failureRate() float64 {
	n := p.successes + p.failures
	if n == 0 {
		return 0
	}
	return float64(p.failures) / float64(n)
}

// answeredFailureRate returns the share of the tally's answers that said no: failures that were
// not timeouts (refused, 5xx, 429) over successes plus those failures, 0 without answers.
// Timeouts are left out of both sides: a mix of refusals and timeouts with no success is a
// failure rate of 1, a run of timeouts alone is no evidence either way.
func (p *tally) answeredFailureRate() float64 {
	no := p.failures - p.timeouts
	n := p.successes + no
	if n == 0 {
		return 0
	}
	return float64(no) / float64(n)
}

// p99 returns the 99th percentile latency of the span, 0 when empty.
func (p *span) p99() time.Duration {
	return p.merged.quantileFrom(0.99, p.outcomes(), p.top)
}

// slidingWindow counts outcomes over the last windowBuckets time slices (the long span, a tally)
// and, inside it, outcomes and latencies over the last recent slices (the short span, the
// engine's FailureHorizon, which signal L reads). Recording is O(1): the totals and the short
// span's merged histogram are kept running (added on record, subtracted when a slice leaves the
// span), so reading F or P99 never merges the buckets. Time is the elapsed time since the engine's origin and must not go
// backwards (the engine guarantees it). Not safe for concurrent use: the engine's mutex guards
// it.
type slidingWindow struct {
	// The fields every record and decision reads come first, in two cache lines, and the
	// slices last (see Engine's layout).
	width    time.Duration // length of one slice
	recent   int64         // slices in the short span, 1..windowBuckets
	head     int64         // epoch of the newest slice
	nextEdge time.Duration // start of slice head+1
	cur      int           // index in buckets of slice head
	prev     tally         // the outcomes of slice head-1 (zero when it is older or before the origin)
	long     tally         // the last windowBuckets slices
	short    span          // the last recent slices
	buckets  [windowBuckets]bucket
}

// newSlidingWindow returns an empty window of windowBuckets slices of window/windowBuckets each
// (at least 1 ns, so a window below 60 ns lasts 60 ns), whose short span covers horizon
// (rounded up to whole slices, at least one, at most the whole window; 0 means the whole window).
func newSlidingWindow(window, horizon time.Duration) slidingWindow {
	var s slidingWindow
	s.init(window, horizon)
	return s
}

// init empties the window in place and sets its length and short horizon; elapsed time starts
// again at 0.
func (s *slidingWindow) init(window, horizon time.Duration) {
	if s.width != 0 { // a used window (a fresh one is already zero: skip clearing ~155 KB)
		*s = slidingWindow{}
	}
	s.width = max(window/windowBuckets, 1)
	s.nextEdge = s.width
	s.recent = windowBuckets
	if horizon > 0 {
		s.recent = min(windowBuckets, max(1, int64((horizon+s.width-1)/s.width)))
	}
}

// advance expires the slices that fell out of the window at elapsed time t and returns how many
// slice boundaries were crossed (0 on the fast path).
func (s *slidingWindow) advance(t time.Duration) int64 {
	if t < s.nextEdge {
		return 0
	}
	cur := int64(t / s.width)
	crossed := cur - s.head
	switch {
	case crossed >= windowBuckets:
		clear(s.buckets[:])
		s.long, s.short = tally{}, span{}
	case crossed >= s.recent:
		// The short span empties: every slice it held has left it.
		s.short = span{}
		s.expire(cur, false)
	default:
		s.expire(cur, true)
	}
	s.short.settle()
	s.prev = tally{}
	if crossed == 1 { // the slice that was current is the previous one now
		b := &s.buckets[s.cur]
		s.prev = tally{successes: b.successes, failures: b.failures, timeouts: b.timeouts}
	}
	s.head = cur
	s.cur = int(cur % windowBuckets)
	s.buckets[s.cur].epoch = cur
	s.nextEdge = time.Duration(cur+1) * s.width
	return crossed
}

// expire moves the window from slice head to slice cur (less than windowBuckets later): for
// each new slice e, the slice e-recent leaves the short span (when short is set) and the slice
// e-windowBuckets, which shares e's place in the ring, leaves the window.
func (s *slidingWindow) expire(cur int64, short bool) {
	for e := s.head + 1; e <= cur; e++ {
		if short && e-s.recent >= 0 {
			s.short.drop(&s.buckets[(e-s.recent)%windowBuckets])
		}
		b := &s.buckets[e%windowBuckets]
		s.long.forget(b)
		*b = bucket{}
	}
}

// recentTally returns the outcomes of the current slice and of the one before it (between one
// and two slices of time: two seconds of the default window), what the breaker trips on: the
// previous slice's counts kept as the window moved (prev) and the current slice's, read from
// its bucket at the index advance keeps (cur), so a record pays a few additions.
func (s *slidingWindow) recentTally() tally {
	b := &s.buckets[s.cur]
	return tally{successes: s.prev.successes + b.successes, failures: s.prev.failures + b.failures,
		timeouts: s.prev.timeouts + b.timeouts}
}

// outcome is how a recorded request ended.
type outcome uint8

const (
	succeeded outcome = iota
	failed            // an answer that says no, or no answer at all (refused, 5xx, 429)
	timedOut          // no answer within the caller's timeout
)

// record adds one outcome to the current slice; advance(t) must have been called.
func (s *slidingWindow) record(o outcome, latency time.Duration) {
	b := &s.buckets[s.cur]
	ns := int64(latency)
	switch o {
	case succeeded:
		b.successes++
	case timedOut:
		b.timeouts++
		b.failures++
	default:
		b.failures++
	}
	i := binOf(ns)
	b.hist.addAt(i, ns)
	s.long.count(o)
	s.short.add(o, i, ns)
}
