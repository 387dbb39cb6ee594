package engine

import (
	"fmt"
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

// spanSum returns the outcome counts and merged histogram of the live slices from epoch from to
// epoch to (inclusive), summed bucket by bucket: the oracle the running spans must equal.
func spanSum(w *slidingWindow, from, to int64) (s span) {
	for e := max(0, from); e <= to; e++ {
		b := &w.buckets[e%windowBuckets]
		if b.epoch != e && b.successes+b.failures > 0 {
			panic("a live slice holds another slice's outcomes")
		}
		s.successes += b.successes
		s.failures += b.failures
		s.timeouts += b.timeouts
		for k := range s.merged.bins {
			s.merged.bins[k].count += b.hist.bins[k].count
			s.merged.bins[k].sum += b.hist.bins[k].sum
		}
	}
	return s
}

// requireSpansConsistent asserts that the long tally equals the counts of the whole ring and
// the short span the sum of its last recent slices, that its top bounds every occupied bin, and
// that P99 from top equals a full scan. It compares plainly first and reports through require
// only on a mismatch (the fuzz target calls it often).
func requireSpansConsistent(t *testing.T, w *slidingWindow, format string, args ...any) {
	if long := spanSum(w, w.head-windowBuckets+1, w.head).tally; w.long != long {
		t.Helper()
		require.Equal(t, long, w.long, "%s: long tally", fmt.Sprintf(format, args...))
	}
	for _, sp := range []struct {
		name string
		got  *span
		want span
	}{
		{"short", &w.short, spanSum(w, w.head-w.recent+1, w.head)},
	} {
		got, want := *sp.got, sp.want
		want.top = got.top
		occupiedAboveTop := false
		for k := got.top + 1; k < histBins; k++ {
			occupiedAboveTop = occupiedAboveTop || got.merged.bins[k].count != 0
		}
		p99 := got.merged.quantile(0.99, got.outcomes())
		if got == want && !occupiedAboveTop && p99 == got.p99() {
			continue
		}
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		require.Equal(t, want.successes, got.successes, "%s: %s successes", msg, sp.name)
		require.Equal(t, want.failures, got.failures, "%s: %s failures", msg, sp.name)
		require.Equal(t, want.timeouts, got.timeouts, "%s: %s timeouts", msg, sp.name)
		require.Equal(t, want.merged, got.merged, "%s: %s merged histogram", msg, sp.name)
		require.False(t, occupiedAboveTop, "%s: %s has samples above top %d", msg, sp.name, got.top)
		require.Equal(t, p99, got.p99(), "%s: %s P99 from top", msg, sp.name)
		require.Fail(t, "spans differ", "%s: %s", msg, sp.name)
	}
}

// TestSlidingWindowHorizon asserts how FailureHorizon becomes the short span's slice count:
// rounded up to whole slices, at least one, at most the whole window, 0 meaning the window.
func TestSlidingWindowHorizon(t *testing.T) {
	tests := []struct {
		name            string
		window, horizon time.Duration
		wantRecent      int64
	}{
		{"0 means the whole window", time.Minute, 0, windowBuckets},
		{"whole slices", time.Minute, 5 * time.Second, 5},
		{"rounded up to whole slices", time.Minute, 4500 * time.Millisecond, 5},
		{"at least one slice", time.Minute, time.Nanosecond, 1},
		{"the whole window", time.Minute, time.Minute, windowBuckets},
		{"never more than the window", time.Minute, time.Hour, windowBuckets},
		{"slices of a short window", 6 * time.Second, time.Second, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newSlidingWindow(tc.window, tc.horizon)
			assert.Equal(t, tc.wantRecent, w.recent)
		})
	}
}

// TestSlidingWindowExpiry asserts that outcomes count in the long span for one window and in
// the short span for the horizon, then expire slice by slice, and that jumps longer than the
// horizon (short span emptied, long span kept) or than the whole window (both emptied) expire
// what they must and nothing else.
func TestSlidingWindowExpiry(t *testing.T) {
	const window, horizon = 60 * time.Second, 5 * time.Second
	slice := window / windowBuckets
	tests := []struct {
		name                string
		recordAt            []time.Duration // one failure at each time
		readAt              time.Duration
		wantLong, wantShort uint64
	}{
		{"all inside both spans", []time.Duration{0, time.Second, 4 * time.Second}, 4 * time.Second, 3, 3},
		{"older than the horizon: long span only", []time.Duration{0, 10 * time.Second, 59 * time.Second}, 59 * time.Second, 3, 1},
		{"the first slice leaves the short span after the horizon", []time.Duration{0, 3 * time.Second}, horizon, 2, 1},
		{"still in the short span one nanosecond before", []time.Duration{0, 3 * time.Second}, horizon - 1, 2, 2},
		{"the first slice expires after one window", []time.Duration{0, 30 * time.Second}, window, 1, 0},
		{"still there one nanosecond before", []time.Duration{0, 30 * time.Second}, window - 1, 2, 0},
		{"a jump of exactly the horizon empties the short span", []time.Duration{0, slice, 2 * slice}, 2*slice + horizon, 3, 0},
		{"a jump just short of the horizon keeps its last slice", []time.Duration{0, slice, 2 * slice}, 2*slice + horizon - slice, 3, 1},
		{"a jump longer than the horizon keeps the long span", []time.Duration{0, slice, 2 * slice}, 30 * time.Second, 3, 0},
		{"a jump past the window empties both", []time.Duration{0, 30 * time.Second}, 200 * time.Second, 0, 0},
		{"a jump of exactly the window empties both", []time.Duration{0}, window, 0, 0},
		{"late slice survives a partial expiry", []time.Duration{0, slice, 2 * slice}, window + slice, 1, 0},
		{"record after a jump past the window counts alone", []time.Duration{0, time.Second, 500 * time.Second}, 500 * time.Second, 1, 1},
		{"record after a jump past the horizon counts alone in the short span", []time.Duration{0, time.Second, 20 * time.Second}, 20 * time.Second, 3, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newSlidingWindow(window, horizon)
			for _, at := range tc.recordAt {
				w.advance(at)
				w.record(failed, time.Second)
			}
			w.advance(tc.readAt)
			assert.Equal(t, tc.wantLong, w.long.outcomes(), "long span")
			assert.Equal(t, tc.wantShort, w.short.outcomes(), "short span")
			assert.Equal(t, tc.wantShort, w.short.merged.countAll(), "short merged histogram holds the same outcomes")
			requireSpansConsistent(t, &w, "%s", tc.name)
		})
	}
}

// TestSlidingWindowRunningTotals asserts the invariant behind cheap reads: after any sequence of
// records (successes, failures, timeouts) and time steps (small ones, jumps past the horizon,
// jumps past the window), both spans' running totals and merged histograms equal the sum of the
// live slices they cover, and the rates are computed from them.
func TestSlidingWindowRunningTotals(t *testing.T) {
	for _, horizon := range []time.Duration{0, time.Second, 3 * time.Second, 10 * time.Second} {
		t.Run(fmt.Sprintf("horizon %v", horizon), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			w := newSlidingWindow(10*time.Second, horizon)
			var now time.Duration
			for i := range 20000 {
				now += time.Duration(r.Int64N(int64(300 * time.Millisecond)))
				switch i % 5000 {
				case 0:
					now += 30 * time.Second // a gap longer than the window
				case 2500:
					now += horizon + time.Duration(r.Int64N(int64(time.Second))) // longer than the horizon
				}
				w.advance(now)
				w.record(outcome(r.IntN(3)), time.Duration(r.Int64N(int64(10*time.Second))))

				if i%997 == 0 {
					requireSpansConsistent(t, &w, "step %d", i)
					for _, p := range []*tally{&w.long, &w.short.tally} {
						n := float64(p.successes + p.failures)
						require.InDelta(t, float64(p.failures)/n, p.failureRate(), 1e-12)
						if answers := float64(p.successes + p.failures - p.timeouts); answers > 0 {
							require.InDelta(t, float64(p.failures-p.timeouts)/answers, p.answeredFailureRate(), 1e-12)
						}
					}
				}
			}
		})
	}
}

func (h *histogram) countAll() uint64 {
	var n uint64
	for _, b := range h.bins {
		n += b.count
	}
	return n
}

// TestSpanRates asserts the span's rates: F counts every failure (timeouts included) over every
// outcome, the answered failure rate is the share of answers that said no (timeouts left out of
// both sides, so refusals with timeouts and no success read 1), and an empty span reads 0.
func TestSpanRates(t *testing.T) {
	tests := []struct {
		name                          string
		successes, failures, timeouts int
		wantF, wantAnswered           float64
	}{
		{"empty", 0, 0, 0, 0, 0},
		{"successes only", 5, 0, 0, 0, 0},
		{"answered failures count in both", 5, 5, 0, 0.5, 0.5},
		{"timeouts count in F only", 5, 2, 3, 0.5, 2.0 / 7},
		{"timeouts only", 0, 0, 4, 1, 0},
		{"refusals and timeouts, no success", 0, 3, 3, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newSlidingWindow(time.Minute, 5*time.Second)
			w.advance(0)
			for range tc.successes {
				w.record(succeeded, 20*time.Millisecond)
			}
			for range tc.failures {
				w.record(failed, time.Second)
			}
			for range tc.timeouts {
				w.record(timedOut, 5*time.Second)
			}
			for _, p := range []*tally{&w.long, &w.short.tally} {
				assert.InDelta(t, tc.wantF, p.failureRate(), 1e-12, "F")
				assert.InDelta(t, tc.wantAnswered, p.answeredFailureRate(), 1e-12, "answered failure rate")
				assert.Equal(t, uint64(tc.timeouts), p.timeouts)
				assert.Equal(t, uint64(tc.failures+tc.timeouts), p.failures, "a timeout is a failure")
			}
		})
	}
}

// TestSlidingWindowTop asserts that the short span's P99 scan starts from a bin that follows
// the slowest latency still in that span, down as well as up, so P99 matches a full scan; and
// that the short span forgets a slow outcome once the horizon has passed while the long tally
// counts it for the whole window.
func TestSlidingWindowTop(t *testing.T) {
	w := newSlidingWindow(60*time.Second, 5*time.Second)
	w.advance(0)
	w.record(failed, 5*time.Second)
	assert.Equal(t, binOf(int64(5*time.Second)), w.short.top)
	w.advance(30 * time.Second)
	for range 200 {
		w.record(succeeded, 40*time.Millisecond)
	}
	assert.Equal(t, binOf(int64(40*time.Millisecond)), w.short.top, "the 5 s failure left the short span")
	assert.Equal(t, w.short.merged.quantile(0.99, w.short.outcomes()), w.short.p99())
	assert.Equal(t, 40*time.Millisecond, w.short.p99())
	assert.Equal(t, uint64(1), w.long.failures, "but not the long tally")
	w.advance(61 * time.Second) // the 5 s failure expires
	assert.Zero(t, w.long.failures)
	assert.Equal(t, uint64(200), w.long.successes)
}

// TestShortSpanP99 asserts that P99 over the short span follows the latency of the last
// horizon: slow outcomes raise it at once and it falls back once they are older than the
// horizon, while the long tally still counts them.
func TestShortSpanP99(t *testing.T) {
	const fast, slow = 30 * time.Millisecond, 2 * time.Second
	w := newSlidingWindow(60*time.Second, 5*time.Second)
	var now time.Duration
	step := func(n int, lat time.Duration, o outcome) {
		for range n {
			now += 100 * time.Millisecond
			w.advance(now)
			w.record(o, lat)
		}
	}
	step(300, fast, succeeded) // 30 s healthy
	require.Equal(t, fast, w.short.p99())
	step(10, slow, timedOut) // 1 s of slow timeouts: 10 of ~50 in the short span
	assert.Equal(t, slow, w.short.p99(), "slow outcomes raise the short P99 at once")
	step(60, fast, succeeded) // 6 s healthy again: more than the horizon
	assert.Equal(t, fast, w.short.p99(), "the short P99 forgets after the horizon")
	assert.Equal(t, uint64(10), w.long.timeouts, "the long tally keeps them for the window")
}
