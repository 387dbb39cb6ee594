package strategy

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFullJitterBounds asserts that full jitter draws in [0, min(cap, base*2^n)) and uses the
// whole range (the largest of many draws comes close to the ceiling).
func TestFullJitterBounds(t *testing.T) {
	tests := []struct {
		name      string
		base, cap time.Duration
		n         int
		ceiling   time.Duration // hand-computed
	}{
		{"first retry", 100 * time.Millisecond, 20 * time.Second, 0, 100 * time.Millisecond},
		{"fourth retry", 100 * time.Millisecond, 20 * time.Second, 3, 800 * time.Millisecond},
		{"capped", 100 * time.Millisecond, 20 * time.Second, 8, 20 * time.Second}, // 25.6s > 20s
		{"negative n is 0", 100 * time.Millisecond, 20 * time.Second, -2, 100 * time.Millisecond},
		{"huge n saturates", time.Second, 20 * time.Second, 10_000, 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRand(7)
			var hi time.Duration
			for range 2000 {
				d := fullJitter(r, tt.base, tt.cap, 2, tt.n)
				require.GreaterOrEqual(t, d, time.Duration(0))
				require.Less(t, d, tt.ceiling)
				hi = max(hi, d)
			}
			assert.Greater(t, hi, tt.ceiling*95/100, "draws should cover the range")
		})
	}
}

// TestPowOfTwo asserts that pow gives exactly math.Pow's result: for 2^n on the shortcut (every
// n it takes) and for other bases, so the shortcut changes no delay of any run.
func TestPowOfTwo(t *testing.T) {
	for n := range 70 {
		require.Equal(t, math.Pow(2, float64(n)), pow(2, n), "2^%d", n)
		require.Equal(t, math.Pow(1.5, float64(n)), pow(1.5, n), "1.5^%d", n)
	}
}

// TestRollingWindow asserts that the rolling window counts what was added in its last n
// buckets, forgets older buckets, counts a time in the past in the newest bucket, and empties
// after a jump longer than the window.
func TestRollingWindow(t *testing.T) {
	w := newRolling(10, time.Second)
	w.add(t0, 1, 0)
	w.add(t0.Add(5*time.Second), 1, 1)
	w.add(t0.Add(2*time.Second), 1, 0) // in the past: counted in the newest bucket (t0+5s)

	tests := []struct {
		at      time.Duration
		a, b    int64
		comment string
	}{
		{9*time.Second + 999*time.Millisecond, 3, 1, "all three still inside"},
		{10 * time.Second, 2, 1, "the bucket of t0 expired"},
		{14*time.Second + 999*time.Millisecond, 2, 1, "the bucket of t0+5s still inside"},
		{15 * time.Second, 0, 0, "everything expired"},
	}
	for _, tt := range tests {
		a, b := w.sums(t0.Add(tt.at))
		assert.Equal(t, tt.a, a, tt.comment)
		assert.Equal(t, tt.b, b, tt.comment)
	}

	w.add(t0.Add(20*time.Second), 4, 4)
	a, _ := w.sums(t0.Add(time.Hour))
	assert.Zero(t, a, "a jump past the whole window empties it")
	w.add(t0.Add(time.Hour), 2, 1)
	w.reset()
	a, b := w.sums(t0.Add(time.Hour))
	assert.Zero(t, a+b, "reset empties the window")
}

// TestRollingWindowAnyTime asserts that the window rolls the same way from any starting time
// (the origin, a negative Time, one near the largest), and that a time before the first one is
// counted without an index panic.
func TestRollingWindowAnyTime(t *testing.T) {
	for _, start := range []Time{0, -3e18 + 500, math.MaxInt64 - Time(time.Hour)} {
		w := newRolling(3, time.Second)
		w.add(start, 1, 0)
		w.add(start.Add(-time.Hour), 0, 1) // before the first time: newest bucket
		w.add(start.Add(time.Second), 1, 0)
		a, b := w.sums(start.Add(2 * time.Second))
		assert.Equal(t, int64(2), a, "start %v", start)
		assert.Equal(t, int64(1), b, "start %v", start)
		a, _ = w.sums(start.Add(3 * time.Second))
		assert.Equal(t, int64(1), a, "the first bucket expired (start %v)", start)
	}
}

// TestRollingWindowMatchesReference asserts that the window's totals (with its fast path for a
// time inside the newest bucket) equal a direct count of what was added in the buckets
// floor((t - origin) / width) within the last n, over random times that mostly move forward
// by less than a bucket, sometimes jump or go back, from t0, the origin and a negative Time.
func TestRollingWindowMatchesReference(t *testing.T) {
	type entry struct {
		bucket int64
		a, b   int64
	}
	starts := []Time{t0, 0, -3e18 + 500}
	for si, start := range starts {
		r := newRand(uint64(si) + 1)
		const n, width = 5, 300 * time.Millisecond
		w := newRolling(n, width)
		var log []entry
		head := int64(0)
		now, origin := start, start
		for i := range 3000 {
			switch k := r.IntN(100); {
			case k < 80:
				now = now.Add(time.Duration(r.IntN(int(width / 3))))
			case k < 90:
				now = now.Add(-time.Duration(r.IntN(int(2 * width))))
			case k < 98:
				now = now.Add(time.Duration(r.IntN(int(3 * n * width))))
			default:
				now = now.Add(0)
			}
			if i == 0 {
				origin = now // the window's buckets count from the first time it sees
			}
			idx := floorDiv(int64(now-origin), int64(width))
			head = max(head, idx)
			if r.IntN(2) == 0 {
				a, b := int64(r.IntN(3)), int64(r.IntN(3))
				w.add(now, a, b)
				log = append(log, entry{head, a, b})
			}
			var wantA, wantB int64
			for _, e := range log {
				if e.bucket > head-n {
					wantA += e.a
					wantB += e.b
				}
			}
			a, b := w.sums(now)
			require.Equal(t, [2]int64{wantA, wantB}, [2]int64{a, b}, "start %d, step %d", si, i)
		}
	}
}
