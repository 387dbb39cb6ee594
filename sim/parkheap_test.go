package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParkHeapRemove asserts that the park heap pops what is left after removals in (at, seq)
// order, whichever timers are removed (none, some, most, the earliest ones), with many ties in
// time and few, and that a removed request has no timer left.
func TestParkHeapRemove(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		spread int64
		remove func(i int) bool
	}{
		{"no removals", 500, 1000, func(int) bool { return false }},
		{"every third", 500, 1000, func(i int) bool { return i%3 == 0 }},
		{"most, many ties", 500, 7, func(i int) bool { return i%5 != 0 }},
		{"the first half", 200, 1 << 40, func(i int) bool { return i < 100 }},
		{"one entry", 1, 10, func(int) bool { return false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var q parkHeap
			var want []timed
			for i := range tt.n {
				e := timed{at: rng.Int64N(tt.spread), seq: uint64(i+1) << kindBits, idx: int32(tt.n - 1 - i)}
				q.push(e)
				if !tt.remove(i) {
					want = append(want, e)
				}
			}
			for i := range tt.n {
				if tt.remove(i) {
					ri := int32(tt.n - 1 - i)
					q.remove(ri)
					assert.False(t, q.has(ri))
				}
			}
			slices.SortFunc(want, func(a, b timed) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
			require.Equal(t, len(want), q.len())
			for _, w := range want {
				require.Equal(t, w, *q.min())
				q.pop()
				assert.False(t, q.has(w.idx))
			}
			assert.Zero(t, q.len())
		})
	}
}
