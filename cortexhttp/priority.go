package cortexhttp

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/cortex-tui/cortex-tui/engine"
)

// priorityKey is the context key of a request's priority.
type priorityKey struct{}

// WithPriority returns a copy of ctx carrying the priority p (0 analytics ... 9 payment, 10
// health check; clamped to 0..10) for the requests made with it. It takes precedence over the
// priority header.
func WithPriority(ctx context.Context, p int) context.Context {
	return context.WithValue(ctx, priorityKey{}, clampPriority(p))
}

// PriorityFrom returns the priority WithPriority set on ctx, and whether one was set.
func PriorityFrom(ctx context.Context) (int, bool) {
	p, ok := ctx.Value(priorityKey{}).(int)
	return p, ok
}

// clampPriority clamps p to the engine's range, 0..10.
func clampPriority(p int) int { return min(engine.MaxPriority, max(engine.MinPriority, p)) }

// parsePriority reads a priority header's value: a decimal integer, spaces around it allowed,
// clamped to 0..10. ok is false for anything else (the value is then ignored).
func parsePriority(s string) (p int, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) > 20 { // longer than any int64: not a priority, and not worth parsing
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return clampPriority(n), true
}

// priority is req's priority: from its context, else from the header, else the default.
func (t *Transport) priority(req *http.Request) int {
	if p, ok := PriorityFrom(req.Context()); ok {
		return p
	}
	if t.header != "" {
		if v := req.Header[t.header]; len(v) > 0 {
			if p, ok := parsePriority(v[0]); ok {
				return p
			}
		}
	}
	return t.defaultPriority
}
