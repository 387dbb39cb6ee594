// Package priority carries a call's priority in its context: the one value that cortexhttp (for
// HTTP requests) and cortexgrpc (for gRPC calls) both read, so that a service sets it once on
// the context of the work it is doing and every call that work makes, over either protocol,
// carries it. A priority runs from engine.MinPriority (0, shed first) to engine.MaxPriority
// (10, shed last); by convention 1 is analytics, 9 a payment, 10 a health check.
package priority

import (
	"context"
	"strconv"
	"strings"

	"github.com/cortex-tui/cortex-tui/engine"
)

// key is the context key of a call's priority.
type key struct{}

// With returns a copy of ctx carrying the priority p, clamped to 0..10, for the calls made with
// it. cortexhttp.WithPriority and cortexgrpc.WithPriority are this function.
func With(ctx context.Context, p int) context.Context {
	return context.WithValue(ctx, key{}, Clamp(p))
}

// From returns the priority With set on ctx, and whether one was set.
func From(ctx context.Context) (int, bool) {
	p, ok := ctx.Value(key{}).(int)
	return p, ok
}

// Clamp clamps p to the engine's range, 0..10.
func Clamp(p int) int { return min(engine.MaxPriority, max(engine.MinPriority, p)) }

// Parse reads a priority sent as text (an HTTP header, gRPC metadata): a decimal integer,
// spaces around it allowed, clamped to 0..10. ok is false for anything else, which the callers
// then ignore.
func Parse(s string) (p int, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) > 20 { // longer than any int64: not a priority, and not worth parsing
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return Clamp(n), true
}
