package sim

// timed is an entry of a time-ordered heap: at is virtual time in ns (>= 0), seq breaks ties in
// insertion order so the order of events never depends on anything but the run itself. seq's
// two low bits hold the entry's kind (a timer's: timerRetry, ...), the rest the sequence number,
// so that an entry is 24 bytes, not 32: the heaps move a quarter less memory.
type timed struct {
	at  int64
	seq uint64
	idx int32
	gen uint32
}

// kindBits is how many low bits of timed.seq hold the kind.
const kindBits = 2

// kind returns the entry's kind.
func (e *timed) kind() uint8 { return uint8(e.seq & (1<<kindBits - 1)) }

// timer is a timer entry of kind k at at for (idx, gen): its sequence number is given by push.
func timer(at int64, k uint8, idx int32, gen uint32) timed {
	return timed{at: at, seq: uint64(k), idx: idx, gen: gen}
}

// eventHeap is a 4-ary min-heap of timed entries, ordered by (at, seq). Sequence numbers are
// unique within a heap, so the order is total and the pop order does not depend on the heap's
// shape. Four children per node halve the depth of a binary heap, and entries move into a hole
// instead of being swapped: the simulator pops every retry, think time and service completion.
type eventHeap struct {
	h   []timed
	seq uint64
}

// heapArity is the number of children of a node of eventHeap.
const heapArity = 4

func (q *eventHeap) len() int { return len(q.h) }

// min returns the earliest entry; the heap must not be empty.
func (q *eventHeap) min() *timed { return &q.h[0] }

// push adds e with the heap's next sequence number (above its kind bits).
func (q *eventHeap) push(e timed) {
	q.seq++
	e.seq |= q.seq << kindBits
	// e is compared through its key and stored field by field: taking its address would
	// spill it with 8-byte stores and then copy it with 16-byte loads, which stall on amd64.
	q.h = append(q.h, timed{})
	h := q.h
	at, seq := e.at, e.seq
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / heapArity
		if pa := h[p].at; at > pa || at == pa && seq > h[p].seq { // !e.before(&h[p]), inlined by hand: seq is unique
			break
		}
		h[i] = h[p]
		i = p
	}
	x := &h[i]
	x.at, x.seq, x.idx, x.gen = at, seq, e.idx, e.gen
}

// pop removes the earliest entry (min); the heap must not be empty. It returns nothing: every
// caller reads the entry in place through min first, and a 24-byte result the caller drops was
// still copied out (a tenth of a pop).
func (q *eventHeap) pop() {
	h := q.h
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.h = h
	if n == 0 {
		return
	}
	// The smallest child is tracked by its key in locals (no reload per comparison), and is
	// chosen without a branch on the comparison (earlier): which child comes first is
	// random, so such a branch is mispredicted about half the time, and the simulator pops
	// every service completion, retry and think time (cachegrind on the storm benchmark:
	// about 8 mispredicted branches per pop before, 1 after).
	lat, lseq := last.at, last.seq
	i := 0
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m, mat := c, h[c].at
		if c+heapArity <= n { // a full node, unrolled (every node but the last one)
			k := h[c : c+heapArity] // one bounds check for the four children
			j, jat := earlier(k, 0, mat, 1)
			j, jat = earlier(k, j, jat, 2)
			j, jat = earlier(k, j, jat, 3)
			m, mat = c+j, jat
		} else {
			for j := c + 1; j < n; j++ {
				m, mat = earlier(h, m, mat, j)
			}
		}
		if mat > lat || mat == lat && h[m].seq > lseq { // !h[m].before(&last), inlined by hand: seq is unique
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = last
}

// earlier returns whichever of h[m] (whose time is mat) and h[j] comes first in (at, seq)
// order, with its time. Equal times are rare (and their branch predictable); otherwise the
// choice is arithmetic: d = a-mat is negative exactly when h[j] is earlier (virtual times are
// never negative, so the difference cannot overflow), and d>>63, all ones then and 0
// otherwise, masks the moves to j and to a. (min(mat, a) would compile to a branch here.)
func earlier(h []timed, m int, mat int64, j int) (int, int64) {
	a := h[j].at
	if a == mat {
		if h[j].seq < h[m].seq {
			m = j
		}
		return m, mat
	}
	d := a - mat
	mask := d >> 63 // -1 if a < mat, else 0
	return m + (j-m)&int(mask), mat + d&mask
}

func (q *eventHeap) clear() { q.h = q.h[:0] }
