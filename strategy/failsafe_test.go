package strategy

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestFailsafeQueue asserts the prioritized limiter's admission: 20 permits at first; over them
// a call queues (held LIMIT_EXCEEDED, for about its place x the latest round trip / the limit,
// at least 1 ms) until the queue holds 3 x 20 = 60, then the next is refused LIMIT_EXCEEDED; a
// held call whose wait would reach its deadline is abandoned, so it never counts as queued.
func TestFailsafeQueue(t *testing.T) {
	f := must(NewFailsafe(newRand(1), DefaultFailsafeConfig()))
	for i := range 20 {
		require.True(t, f.Admit(t0, att(5, 0)).Admitted(), "permit %d", i)
	}
	f.lastRTT = 200 * time.Millisecond
	adm := f.Admit(t0, att(5, 0))
	require.True(t, adm.Held())
	assert.Equal(t, ReasonLimitExceeded, adm.Reason)
	assert.Equal(t, 10*time.Millisecond, adm.Wait, "first in the queue: 200 ms / 20")
	assert.Equal(t, 20*time.Millisecond, f.Admit(t0, att(5, 0)).Wait, "second: 2 x 200 ms / 20")
	late := att(5, 0)
	late.Deadline = t0.Add(time.Millisecond)
	assert.True(t, f.Admit(t0, late).Held())
	_, _, queued, _ := f.Limit(t0)
	assert.Equal(t, 2, queued, "the late one is not queued")
	for range 58 {
		require.True(t, f.Admit(t0, att(5, 0)).Held())
	}
	assert.Equal(t, Refuse(engine.Reject, ReasonLimitExceeded), f.Admit(t0, att(10, 0)), "60 queued: full")
	_, _, queued, _ = f.Limit(t0.Add(time.Hour))
	assert.Zero(t, queued, "the held calls have been asked again")
}

// TestFailsafeThreshold asserts the prioritizer's calibration, computed by hand: with 50 queued
// over a limit of 20 the rejection rate is (50 - 40) / (60 - 40) = 0.5, so the threshold is the
// median of the levels recorded while full: 25 priority-1 calls (levels 0-99) and 25 priority-9
// calls (400-499) put it in 0-99; a priority-9 call then always queues and a priority-0 call
// under the threshold is refused SHED_LOW_PRIORITY; under 40 queued the threshold is 0.
func TestFailsafeThreshold(t *testing.T) {
	f := must(NewFailsafe(newRand(1), DefaultFailsafeConfig()))
	f.nextCalib = t0.Add(time.Hour) // calibrate by hand below
	for range 20 {
		f.Admit(t0, att(5, 0))
	}
	f.lastRTT = time.Hour // the held calls stay queued
	for i := range 50 {
		require.True(t, f.Admit(t0, att(1+8*(i%2), 0)).Held())
	}
	f.nextCalib = t0
	f.calibrate(t0)
	_, _, _, threshold := f.Limit(t0)
	require.Less(t, threshold, 100)
	require.Positive(t, threshold)
	for range 5 {
		assert.True(t, f.Admit(t0, att(9, 0)).Held(), "high levels queue")
	}
	shed := 0
	for range 20 {
		if adm := f.Admit(t0, att(0, 0)); adm.Refused() {
			require.Equal(t, ReasonShed, adm.Reason)
			shed++
		}
	}
	assert.Positive(t, shed)
	g := must(NewFailsafe(newRand(1), DefaultFailsafeConfig()))
	g.levels.record(450)
	g.calibrate(t0)
	assert.Zero(t, g.threshold, "nothing queued: rate 0")
}

// TestFailsafeLimit asserts updateLimit, computed by hand (limit 20, lg 1, alpha 3, beta 6):
// the first window sets the baseline to its round trip (queue 0 < 3: 21); twice the round trip
// gives baseline 1.5 r, queue ceil(21 x 0.25) = 6, held; four times gives baseline 2.33 r, queue
// ceil(21 x 0.417) = 9 > 6: 20; with 2 in flight the limit is capped at 5 x 2 = 10, from above
// one step at a time (19).
func TestFailsafeLimit(t *testing.T) {
	f := must(NewFailsafe(newRand(1), DefaultFailsafeConfig()))
	r := float64(100 * time.Millisecond)
	f.updateLimit(r, 10)
	assert.Equal(t, 21.0, f.limit)
	f.updateLimit(2*r, 10)
	assert.Equal(t, 21.0, f.limit)
	f.updateLimit(4*r, 10)
	assert.Equal(t, 20.0, f.limit)
	f.updateLimit(4*r, 2)
	assert.Equal(t, 19.0, f.limit)
	assert.Equal(t, 19, f.size)
}

// TestFailsafeWindow asserts the recent window: no update before 50 samples; then the p90 of
// the window (through the median and the average, which pass a first value as is) goes to the
// limit once the window's time is over, and the next window lasts max(2 x its least round
// trip, 1 s).
func TestFailsafeWindow(t *testing.T) {
	f := must(NewFailsafe(newRand(1), DefaultFailsafeConfig()))
	now := t0
	for i := range 49 {
		f.Admit(now, att(5, 0))
		now = now.Add(10 * time.Millisecond)
		f.Record(now, att(5, 0), Success, time.Duration(i+1)*time.Millisecond)
	}
	assert.Equal(t, 0, f.baseline.count, "49 samples: no update")
	f.Admit(now, att(5, 0))
	f.Record(now.Add(time.Millisecond), att(5, 0), Success, 50*time.Millisecond)
	require.Equal(t, 1, f.baseline.count)
	assert.InDelta(t, 0.9*49*1e6+1e6, f.baseline.value, 1, "p90 of 1..50 ms, interpolated: 45.1 ms")
	assert.Equal(t, now.Add(time.Millisecond).Add(time.Second), f.nextUpdate)
}

// TestFailsafeBudget asserts the retry budget: retries at once, 2 at most; a retry is refused
// (BUDGET_EXHAUSTED) once 3 are in flight and they are more than 20% of the executions; a
// retry's outcome gives its permit back.
func TestFailsafeBudget(t *testing.T) {
	f := must(NewFailsafe(newRand(1), DefaultFailsafeConfig()))
	for range 10 {
		f.Admit(t0, att(5, 0))
	}
	for range 3 {
		assert.Equal(t, retryAfter(0), f.Decide(t0, att(5, 0), Timeout))
	}
	// 3 retries in flight; executions: the 10 requests in progress and the 3 permits.
	assert.Equal(t, Verdict{Action: engine.Reject, Reason: ReasonBudgetExhausted}, f.Decide(t0, att(5, 0), Timeout),
		"3 / 13 = 0.23 > 0.2")
	f.Record(t0, att(5, 1), Success, time.Millisecond)
	assert.True(t, f.Decide(t0, att(5, 0), Timeout).Retry, "2 in flight: under the minimum")
	assert.Equal(t, engine.MaxRetriesExceeded, f.Decide(t0, att(5, 2), Timeout).Action)
}

// TestQuantileSelects asserts that the recent window's quantile, found by selection, is the
// value of the sorted window's (interpolated between its neighbours) for every quantile,
// whatever the order and the repeats: random, sorted, reversed, few distinct values, all equal,
// a median-of-three killer's order, and sizes from 1 to 300.
func TestQuantileSelects(t *testing.T) {
	r := newRand(7)
	orders := map[string]func(n int) []float64{
		"random": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(r.IntN(1_000_000))
			}
			return xs
		},
		"sorted":   func(n int) []float64 { return ramp(n, 1) },
		"reversed": func(n int) []float64 { return ramp(n, -1) },
		"few": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(r.IntN(3))
			}
			return xs
		},
		"equal": func(n int) []float64 { return make([]float64, n) },
		"organ pipe": func(n int) []float64 {
			xs := ramp(n, 1)
			for i := n / 2; i < n; i++ {
				xs[i] = float64(n - i)
			}
			return xs
		},
	}
	for name, gen := range orders {
		for _, n := range []int{1, 2, 3, 5, 12, 13, 50, 51, 99, 300} {
			for _, q := range []float64{0, 0.1, 0.5, 0.9, 0.99, 1} {
				xs := gen(n)
				sorted := slices.Clone(xs)
				slices.Sort(sorted)
				pos := q * float64(n-1)
				i := int(pos)
				want := sorted[min(i, n-1)]
				if i+1 < n {
					want = sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
				}
				assert.Equal(t, want, quantile(xs, q), "%s, %d values, q %v", name, n, q)
				slices.Sort(xs)
				assert.Equal(t, sorted, xs, "%s, %d values: reordered, never changed", name, n)
			}
		}
	}
}

// ramp returns n values 0, 1, ... (dir 1) or n-1, ..., 0 (dir -1).
func ramp(n, dir int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
		if dir < 0 {
			xs[i] = float64(n - 1 - i)
		}
	}
	return xs
}
