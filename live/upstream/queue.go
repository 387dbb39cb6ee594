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
