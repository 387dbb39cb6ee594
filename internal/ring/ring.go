// Package ring is the one ring buffer of the project: a FIFO of T in a circular buffer that
// grows by doubling, optionally bounded. The simulator's service queue and timeouts, the
// embedded service's queue of waiting requests and the dashboard's per-second series are all
// rings.
package ring

// Ring is a FIFO of T. The zero value is an empty ring without a limit. It is not safe for
// concurrent use.
type Ring[T any] struct {
	buf        []T
	head, size int
	// limit, when > 0, is the most entries the ring will ever hold: its storage doubles as it
	// fills but never past limit, so a ring its user keeps at or under limit entries takes at
	// most limit entries of memory, not the next power of two.
	limit int
}

// New returns an empty ring that holds at most limit entries (no limit for limit <= 0).
func New[T any](limit int) Ring[T] { return Ring[T]{limit: max(limit, 0)} }

// Cap returns how many entries the ring's storage holds now.
func (r *Ring[T]) Cap() int { return len(r.buf) }

// Len returns how many entries the ring holds.
func (r *Ring[T]) Len() int { return r.size }

// Push appends v. Pushing onto a ring that holds its limit panics: its user keeps it under
// (the service admits no attempt past its queue limit); Keep drops the oldest instead.
func (r *Ring[T]) Push(v T) {
	if r.size == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.size)%len(r.buf)] = v
	r.size++
}

// grow doubles the storage (16 entries at first), at most to the limit.
func (r *Ring[T]) grow() {
	n := max(16, 2*len(r.buf))
	if r.limit > 0 {
		if r.size >= r.limit {
			panic("ring: push onto a ring at its limit")
		}
		n = min(n, r.limit)
	}
	buf := make([]T, n)
	for i := 0; i < r.size; i++ {
		buf[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	r.buf, r.head = buf, 0
}

// Keep appends v, dropping the oldest entry first when the ring holds its limit: a window of
// the newest limit entries. Without a limit it is Push.
func (r *Ring[T]) Keep(v T) {
	if r.limit > 0 && r.size == r.limit {
		r.Pop()
	}
	r.Push(v)
}

// Front returns the oldest entry; the ring must not be empty.
func (r *Ring[T]) Front() *T { return &r.buf[r.head] }

// Pop removes and returns the oldest entry; the ring must not be empty.
func (r *Ring[T]) Pop() T {
	v := r.buf[r.head]
	var zero T
	r.buf[r.head] = zero
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.size--
	return v
}

// Last returns the newest entry, the zero value when the ring is empty.
func (r *Ring[T]) Last() T {
	if r.size == 0 {
		var zero T
		return zero
	}
	return r.buf[(r.head+r.size-1)%len(r.buf)]
}

// Tail appends the newest n entries (all of them when it holds fewer), oldest first, to dst.
func (r *Ring[T]) Tail(dst []T, n int) []T {
	n = min(max(n, 0), r.size)
	for i := r.size - n; i < r.size; i++ {
		dst = append(dst, r.buf[(r.head+i)%len(r.buf)])
	}
	return dst
}

// Clear empties the ring, keeping its storage.
func (r *Ring[T]) Clear() {
	clear(r.buf)
	r.head, r.size = 0, 0
}
