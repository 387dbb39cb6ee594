package sim

// parkHeap holds the hold timers of parked attempts (park.go), one per parked request, in the
// same (at, seq) order as eventHeap and with sequence numbers from the timers heap, so that the
// two heaps together pop in the order one heap would. Unlike eventHeap it tracks where each
// request's timer is: a parked attempt that its strategy wakes (most of them, long before their
// wait ends) has its timer removed at once instead of left in the heap to fire as a stale no-op.
// Left in, those timers were most of the heap under CORTEX's pacer (46k entries in the storm
// benchmark, a fifth of its instructions in heap operations).
type parkHeap struct {
	h   []timed
	pos []int32 // by request index: 1 + the index in h of its timer, 0 for none
}

func (q *parkHeap) len() int { return len(q.h) }

// min returns the earliest entry; the heap must not be empty.
func (q *parkHeap) min() *timed { return &q.h[0] }

// has reports whether request ri has a timer in the heap.
func (q *parkHeap) has(ri int32) bool { return int(ri) < len(q.pos) && q.pos[ri] != 0 }

// push adds e (at, seq already set) for request e.idx, which must have no timer in the heap.
func (q *parkHeap) push(e timed) {
	for int(e.idx) >= len(q.pos) {
		q.pos = append(q.pos, 0)
	}
	q.h = append(q.h, e)
	q.up(len(q.h) - 1)
}

// pop removes the earliest entry.
func (q *parkHeap) pop() { q.removeAt(0) }

// remove removes request ri's timer, if it has one.
func (q *parkHeap) remove(ri int32) {
	if q.has(ri) {
		q.removeAt(int(q.pos[ri]) - 1)
	}
}

func (q *parkHeap) removeAt(i int) {
	h := q.h
	q.pos[h[i].idx] = 0
	n := len(h) - 1
	if i != n {
		h[i] = h[n]
		q.pos[h[i].idx] = int32(i + 1)
	}
	q.h = h[:n]
	if i < n {
		if !q.down(i) {
			q.up(i)
		}
	}
}

func (q *parkHeap) clear() {
	for _, e := range q.h {
		q.pos[e.idx] = 0
	}
	q.h = q.h[:0]
}

// up moves entry i towards the root while it comes before its parent, parents moving down into
// the hole (one store and one position update per level, not a swap's two).
func (q *parkHeap) up(i int) {
	h := q.h
	e := h[i]
	for i > 0 {
		p := (i - 1) / heapArity
		if h[p].before(&e) {
			break
		}
		h[i] = h[p]
		q.pos[h[i].idx] = int32(i + 1)
		i = p
	}
	h[i] = e
	q.pos[e.idx] = int32(i + 1)
}

// down moves entry i away from the root while a child comes before it, the earliest child
// moving up into the hole; it reports whether the entry moved. The earliest child of a full
// node is chosen without a branch on the comparisons (earlier, as eventHeap.pop does): which of
// four parked attempts' timers comes first is random, and a branch on it was mispredicted about
// half the time, at every level of a heap of thousands of parked attempts.
func (q *parkHeap) down(i int) bool {
	h := q.h
	i0, n, e := i, len(h), h[i]
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m, mat := c, h[c].at
		if c+heapArity <= n { // a full node, unrolled
			k := h[c : c+heapArity]
			j, jat := earlier(k, 0, mat, 1)
			j, jat = earlier(k, j, jat, 2)
			j, _ = earlier(k, j, jat, 3)
			m = c + j
		} else {
			for j := c + 1; j < n; j++ {
				m, mat = earlier(h, m, mat, j)
			}
		}
		if e.before(&h[m]) {
			break
		}
		h[i] = h[m]
		q.pos[h[i].idx] = int32(i + 1)
		i = m
	}
	h[i] = e
	q.pos[e.idx] = int32(i + 1)
	return i > i0
}

// before reports whether e pops before o: earlier, or as early and sequenced first (sequence
// numbers are unique, so of two entries exactly one is before the other).
func (e *timed) before(o *timed) bool { return e.at < o.at || e.at == o.at && e.seq < o.seq }
