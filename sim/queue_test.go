package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventHeapOrder asserts that the event heap pops its entries in (at, seq) order, ties in
// time broken by insertion order, whatever the interleaving of pushes and pops and the heap's
// size (empty, a single node, several levels).
func TestEventHeapOrder(t *testing.T) {
	tests := []struct {
		name      string
		pushes    int
		spread    int64 // at is drawn in [0, spread): a small spread makes many ties
		popChance int   // percent of steps that pop instead of push
	}{
		{"single entries", 50, 1000, 50},
		{"many ties", 2000, 10, 30},
		{"deep heap", 5000, 1 << 40, 10},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 9))
			var q eventHeap
			var live []timed  // what the heap holds, in no order
			floor := int64(0) // pops never go back in time: pushes are at or after the last pop
			pushed := 0
			for pushed < tt.pushes || q.len() > 0 {
				if q.len() > 0 && (pushed == tt.pushes || r.IntN(100) < tt.popChance) {
					want := slices.MinFunc(live, func(a, b timed) int {
						return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
					})
					got := q.pop()
					require.Equal(t, want, got, "pop returns the earliest entry")
					live = slices.DeleteFunc(live, func(e timed) bool { return e.seq == got.seq })
					floor = got.at
					continue
				}
				q.push(timed{at: floor + r.Int64N(tt.spread), idx: int32(pushed)})
				live = append(live, q.h[slices.IndexFunc(q.h, func(e timed) bool { return e.idx == int32(pushed) })])
				pushed++
				assert.Equal(t, len(live), q.len(), "the heap holds every entry pushed and not popped")
			}
		})
	}
}
