package tui

// ring is a bounded buffer of float64 that keeps the newest cap values; the zero value holds
// nothing (use newRing). It is not safe for concurrent use.
type ring struct {
	buf  []float64
	next int // index the next push writes
	n    int // values held
}

// newRing returns a ring that keeps the newest size values (size >= 1).
func newRing(size int) *ring { return &ring{buf: make([]float64, max(size, 1))} }

// push appends v, dropping the oldest value once full.
func (r *ring) push(v float64) {
	r.buf[r.next] = v
	r.next = (r.next + 1) % len(r.buf)
	if r.n < len(r.buf) {
		r.n++
	}
}

// len returns how many values the ring holds.
func (r *ring) len() int { return r.n }

// last returns the newest value, or 0 if empty.
func (r *ring) last() float64 {
	if r.n == 0 {
		return 0
	}
	return r.buf[(r.next-1+len(r.buf))%len(r.buf)]
}

// tail appends the newest n values (fewer if the ring holds fewer), oldest first, to dst.
func (r *ring) tail(dst []float64, n int) []float64 {
	n = min(n, r.n)
	start := (r.next - n + len(r.buf)) % len(r.buf)
	for i := range n {
		dst = append(dst, r.buf[(start+i)%len(r.buf)])
	}
	return dst
}
