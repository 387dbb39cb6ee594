package ring

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that a ring is a FIFO across its growth and its wrap-around: entries come out in the
// order they went in, whatever the interleaving of pushes and pops.
func TestFIFO(t *testing.T) {
	var r Ring[int]
	next, want := 0, 0
	for round := range 50 {
		for range round % 7 * 5 {
			r.Push(next)
			next++
		}
		for range round % 5 * 4 {
			if r.Len() == 0 {
				break
			}
			require.Equal(t, want, *r.Front())
			require.Equal(t, want, r.Pop())
			want++
		}
		require.Equal(t, next-want, r.Len())
	}
	r.Clear()
	assert.Zero(t, r.Len())
}

// Asserts that a bounded ring grows only to its limit, panics when pushed past it, and that
// Keep keeps the newest limit entries, which Last and Tail read oldest first.
func TestLimitAndKeep(t *testing.T) {
	r := New[int](20)
	for i := range 20 {
		r.Push(i)
	}
	assert.Len(t, r.buf, 20, "storage at most the limit, not 32")
	assert.Panics(t, func() { r.Push(20) })

	w := New[float64](3)
	assert.Zero(t, w.Last())
	assert.Empty(t, w.Tail(nil, 5))
	for i := range 10 {
		w.Keep(float64(i))
	}
	assert.Equal(t, 3, w.Len())
	assert.Equal(t, 9.0, w.Last())
	assert.Equal(t, []float64{7, 8, 9}, w.Tail(nil, 5))
	assert.Equal(t, []float64{8, 9}, w.Tail(nil, 2))
	assert.Equal(t, []float64{1, 9}, w.Tail([]float64{1}, 1))
}

// TestRingLimit asserts that a ring with a limit keeps FIFO order, grows its storage by
// doubling but never past the limit (1000 entries take 1000 slots, not 1024), and refuses a
// push beyond it; without a limit it grows as before.
func TestRingLimit(t *testing.T) {
	tests := []struct {
		limit, fill int
		wantCap     int
	}{
		{limit: 1000, fill: 1000, wantCap: 1000},
		{limit: 1000, fill: 600, wantCap: 1000}, // 512 slots are not enough for 600
		{limit: 1000, fill: 500, wantCap: 512},
		{limit: 10, fill: 10, wantCap: 10}, // below the first allocation of 16
		{limit: 0, fill: 1000, wantCap: 1024},
	}
	for _, tt := range tests {
		r := New[int](tt.limit)
		for i := range tt.fill {
			r.Push(i)
		}
		assert.Equal(t, tt.wantCap, r.Cap(), "limit %d, %d entries", tt.limit, tt.fill)
		// Cycle through the ring many times at its fill: the order holds and it does not grow.
		next := 0
		for i := range 5 * tt.fill {
			require.Equal(t, next, r.Pop())
			next++
			r.Push(tt.fill + i)
		}
		assert.Equal(t, tt.wantCap, r.Cap(), "limit %d: cycling does not grow the ring", tt.limit)
		if tt.limit > 0 && tt.fill == tt.limit {
			assert.Panics(t, func() { r.Push(-1) }, "a push past the limit")
		}
	}
}
