package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinOf asserts that histogram bins are monotonic in latency, within range, and at most
// 25% wide (relative to their lower edge) inside the covered range.
func TestBinOf(t *testing.T) {
	prev := 0
	for ns := int64(1); ns < 1<<40; ns = ns*9/8 + 1 {
		b := binOf(ns)
		require.GreaterOrEqual(t, b, prev, "bin of %d ns went down", ns)
		require.Less(t, b, histBins)
		prev = b
	}
	tests := []struct {
		name string
		ns   int64
		want int
	}{
		{"zero goes to the first bin", 0, 0},
		{"below the range goes to the first bin", 1000, 0},
		{"start of the range", 1 << histMinOctave, 0},
		{"second sub-bin of the first octave", 1<<histMinOctave + 1<<(histMinOctave-histSubBits), 1},
		{"second octave", 1 << (histMinOctave + 1), 1 << histSubBits},
		{"top of the range", 1<<(histMinOctave+histOctaves) - 1, histBins - 1},
		{"above the range goes to the last bin", 1 << 50, histBins - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, binOf(tc.ns))
		})
	}
}

// TestHistogramQuantile asserts that the histogram's quantiles stay within one bin width (25%)
// of the exact quantile of the samples, and are exact when all samples are equal.
func TestHistogramQuantile(t *testing.T) {
	tests := []struct {
		name string
		gen  func(r *rand.Rand) time.Duration
	}{
		{"constant 40ms", func(*rand.Rand) time.Duration { return 40 * time.Millisecond }},
		{"uniform 10-200ms", func(r *rand.Rand) time.Duration {
			return 10*time.Millisecond + time.Duration(r.Int64N(int64(190*time.Millisecond)))
		}},
		{"lognormal around 50ms", func(r *rand.Rand) time.Duration {
			return time.Duration(float64(50*time.Millisecond) * (1 + r.ExpFloat64()))
		}},
		{"bimodal: 98% fast, 2% 5s timeouts", func(r *rand.Rand) time.Duration {
			if r.IntN(100) < 2 {
				return 5 * time.Second
			}
			return 30 * time.Millisecond
		}},
	}
	for _, tc := range tests {
		for _, q := range []float64{0.5, 0.9, 0.99, 1} {
			t.Run(tc.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(1, 2))
				var h histogram
				var xs []time.Duration
				for range 5000 {
					x := tc.gen(r)
					xs = append(xs, x)
					h.add(int64(x))
				}
				slices.Sort(xs)
				rank := int(q*float64(len(xs)) + 0.999999)
				exact := xs[max(0, rank-1)]
				got := h.quantile(q, uint64(len(xs)))
				assert.InEpsilon(t, float64(exact), float64(got), 0.25, "q=%v exact=%v got=%v", q, exact, got)
			})
		}
	}
	var empty histogram
	assert.Zero(t, empty.quantile(0.99, 0), "an empty histogram has no quantile")
}

// TestSlidingWindowExpiry asserts that outcomes count for one window and then expire, slice by
// slice, and that a jump longer than the window empties it.
func TestSlidingWindowExpiry(t *testing.T) {
	const window = 60 * time.Second
	slice := window / windowBuckets
	tests := []struct {
		name         string
		recordAt     []time.Duration // one failure at each time
		readAt       time.Duration
		wantOutcomes uint64
	}{
		{"all inside the window", []time.Duration{0, 10 * time.Second, 59 * time.Second}, 59 * time.Second, 3},
		{"the first slice expires after one window", []time.Duration{0, 30 * time.Second}, window, 1},
		{"still there one nanosecond before", []time.Duration{0, 30 * time.Second}, window - 1, 2},
		{"a jump past the window empties it", []time.Duration{0, 30 * time.Second}, 200 * time.Second, 0},
		{"late slice survives a partial expiry", []time.Duration{0, slice, 2 * slice}, window + slice, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newSlidingWindow(window)
			for _, at := range tc.recordAt {
				w.advance(at)
				w.record(false, time.Second)
			}
			w.advance(tc.readAt)
			assert.Equal(t, tc.wantOutcomes, w.outcomes())
			assert.Equal(t, tc.wantOutcomes, w.merged.countAll(), "merged histogram holds the same outcomes")
		})
	}
}

// TestSlidingWindowRunningTotals asserts the invariant behind cheap reads: after any sequence of
// records and time steps, the running totals and merged histogram equal the sum of the live
// slices, and F is failures/outcomes.
func TestSlidingWindowRunningTotals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	w := newSlidingWindow(10 * time.Second)
	var now time.Duration
	for i := range 20000 {
		now += time.Duration(r.Int64N(int64(300 * time.Millisecond)))
		if i%5000 == 0 {
			now += 30 * time.Second // a gap longer than the window
		}
		w.advance(now)
		w.record(r.IntN(3) == 0, time.Duration(r.Int64N(int64(10*time.Second))))

		if i%997 == 0 {
			var s, f uint64
			var h histogram
			for b := range w.buckets {
				s += w.buckets[b].successes
				f += w.buckets[b].failures
				for k := range h.counts {
					h.counts[k] += w.buckets[b].hist.counts[k]
					h.sums[k] += w.buckets[b].hist.sums[k]
				}
			}
			require.Equal(t, s, w.successes)
			require.Equal(t, f, w.failures)
			require.Equal(t, h, w.merged)
			require.InDelta(t, float64(f)/float64(s+f), w.failureRate(), 1e-12)
		}
	}
}

func (h *histogram) countAll() uint64 {
	var n uint64
	for _, c := range h.counts {
		n += c
	}
	return n
}

// TestSlidingWindowTop asserts that the P99 scan's starting bin follows the slowest latency
// still in the window, down as well as up, so P99 matches a full scan.
func TestSlidingWindowTop(t *testing.T) {
	w := newSlidingWindow(60 * time.Second)
	w.advance(0)
	w.record(false, 5*time.Second)
	assert.Equal(t, binOf(int64(5*time.Second)), w.top)
	w.advance(30 * time.Second)
	for range 200 {
		w.record(true, 40*time.Millisecond)
	}
	assert.Equal(t, w.merged.quantile(0.99, w.outcomes()), w.p99())
	w.advance(61 * time.Second) // the 5 s timeout expires
	assert.Equal(t, binOf(int64(40*time.Millisecond)), w.top)
	assert.Equal(t, 40*time.Millisecond, w.p99())
}
