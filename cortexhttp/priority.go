package cortexhttp

import (
	"context"
	"net/http"

	"github.com/cortex-tui/cortex-tui/priority"
)

// WithPriority returns a copy of ctx carrying the priority p (0 analytics ... 9 payment, 10
// health check; clamped to 0..10) for the requests made with it. It takes precedence over the
// priority header. It is priority.With: cortexgrpc reads the same value, so one priority set on
// a context rides on the HTTP and the gRPC calls made with it.
func WithPriority(ctx context.Context, p int) context.Context { return priority.With(ctx, p) }

// PriorityFrom returns the priority WithPriority set on ctx, and whether one was set.
func PriorityFrom(ctx context.Context) (int, bool) { return priority.From(ctx) }

// priority is req's priority: from its context, else from the header, else the default.
func (t *Transport) priority(req *http.Request) int {
	if p, ok := priority.From(req.Context()); ok {
		return p
	}
	if t.header != "" {
		if v := req.Header[t.header]; len(v) > 0 {
			if p, ok := priority.Parse(v[0]); ok {
				return p
			}
		}
	}
	return t.defaultPriority
}
