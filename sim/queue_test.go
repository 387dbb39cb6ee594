package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// TestEventHeapOrder asserts that the event heap pops its entries in (at, seq) order, ties in
// time broken by insertion order, whatever the interleaving of pushes and pops, the heap's size
// and the spread of times (many ties, times within a bucket, times far apart), pushes at the
// time of the last pop, and times going back once the heap has been emptied (as goDown does).
func TestEventHeapOrder(t *testing.T) {
	// Thousands of pushes and pops of one heap on one goroutine: nothing for the race detector
	// to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	tests := []struct {
		name      string
		pushes    int
		spread    int64 // at is drawn in [floor, floor+spread): a small spread makes many ties
		popChance int   // percent of steps that pop instead of push
		drain     int   // percent of pops that empty the heap, after which times may go back
	}{
		{"single entries", 50, 1000, 50, 0},
		{"many ties", 2000, 10, 30, 0},
		{"deep heap", 5000, 1 << 40, 10, 0},
		{"service times", 5000, 200_000_000, 45, 0},
		{"drained and back in time", 5000, 1 << 30, 40, 5},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 9))
			var q eventHeap
			var live []timed  // what the heap holds, in no order
			floor := int64(0) // pops never go back in time: pushes are at or after the last pop
			pushed := 0
			pop := func() {
				want := slices.MinFunc(live, func(a, b timed) int {
					return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
				})
				got := *q.min()
				require.Equal(t, want, got, "min is the earliest entry")
				q.pop()
				live = slices.DeleteFunc(live, func(e timed) bool { return e.seq == got.seq })
				floor = got.at
			}
			for pushed < tt.pushes || q.len() > 0 {
				if q.len() > 0 && (pushed == tt.pushes || r.IntN(100) < tt.popChance) {
					if r.IntN(100) < tt.drain {
						for q.len() > 0 {
							pop()
						}
						floor = r.Int64N(floor + 1) // an empty heap takes any time
						continue
					}
					pop()
					continue
				}
				at := floor
				if r.IntN(10) > 0 {
					at += r.Int64N(tt.spread)
				}
				q.push(timed{at: at, idx: int32(pushed)})
				live = append(live, timed{at: at, seq: q.seq << kindBits, idx: int32(pushed)})
				pushed++
				assert.Equal(t, len(live), q.len(), "the heap holds every entry pushed and not popped")
			}
		})
	}
}
