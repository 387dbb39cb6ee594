package upstream

import (
	"context"
	"time"
)

// waiter is a queued request: its handler goroutine parks on ready. Fields other than ready
// and ctx are guarded by Target.mu.
type waiter struct {
	ready    chan struct{}   // closed when the request gets a worker
	ctx      context.Context // the request's context: done when its client has gone
	assigned bool            // it got a worker (ready is closed)
	d        time.Duration   // its service time, drawn when it got the worker
}

// fifo is the queue: a growable ring of waiters. Admission keeps it at or under QueueLimit.
type fifo struct {
	buf        []*waiter
	head, size int
}

func (q *fifo) len() int { return q.size }

func (q *fifo) push(w *waiter) {
	if q.size == len(q.buf) {
		buf := make([]*waiter, max(16, 2*len(q.buf)))
		for i := 0; i < q.size; i++ {
			buf[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = buf, 0
	}
	q.buf[(q.head+q.size)%len(q.buf)] = w
	q.size++
}

// pop removes and returns the oldest waiter; the queue must not be empty.
func (q *fifo) pop() *waiter {
	w := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) % len(q.buf)
	q.size--
	return w
}
