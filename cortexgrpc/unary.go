package cortexgrpc

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cortex-tui/cortex-tui/strategy"
)

// unaryCall is what a unary call needs besides its arguments: the trailer its attempts fill in
// (where the pushback comes from) and the call options with the trailer's added. Pooled, so
// that a call allocates neither: the options are gRPC's to read during the call only.
type unaryCall struct {
	trailer metadata.MD
	opts    []grpc.CallOption
}

// trailerOf returns where the attempts of a call with opts leave their trailer: the caller's
// own grpc.Trailer, when it passed one (gRPC fills in every one), else c.trailer, asked for
// with an option added to c.opts. Asking costs gRPC two allocations per call (the trailer's
// copy, and its options' slice growing by one), which a caller's own option or MaxPushback 0
// (no trailer read) saves.
func (c *unaryCall) trailerOf(opts []grpc.CallOption, read bool) (*metadata.MD, []grpc.CallOption) {
	if !read {
		return nil, opts
	}
	for _, o := range opts {
		if t, ok := o.(grpc.TrailerCallOption); ok && t.TrailerAddr != nil {
			return t.TrailerAddr, opts
		}
	}
	c.opts = append(append(c.opts, opts...), grpc.TrailerCallOption{TrailerAddr: &c.trailer})
	return &c.trailer, c.opts
}

var unaryCalls = sync.Pool{New: func() any { return &unaryCall{opts: make([]grpc.CallOption, 0, 8)} }}

// release empties c and puts it back in the pool.
func (c *unaryCall) release() {
	clear(c.opts)
	c.opts, c.trailer = c.opts[:0], nil
	unaryCalls.Put(c)
}

// unary returns the unary interceptor; retriesOff declares gRPC's own retries off.
func (ic *Interceptor) unary(retriesOff bool) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return ic.invoke(retriesOff, ctx, method, req, reply, cc, invoker, opts)
	}
}

// invoke sends a unary call through invoker, retrying it as the strategy decides (see the
// package doc). It returns nil, the last attempt's error, a *RefusedError when the strategy's
// Admit refused an attempt (or held it past the deadline), or the context's status when it
// ended during a hold or the wait for a retry.
func (ic *Interceptor) invoke(retriesOff bool, ctx context.Context, method string, req, reply any,
	cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts []grpc.CallOption) error {
	prio := ic.priority(ctx)
	c := unaryCalls.Get().(*unaryCall)
	defer c.release()
	trailer, opts := c.trailerOf(opts, ic.maxPushback > 0)
	var last error
	for retry := 0; ; retry++ {
		a := Attempt{Method: method, Retry: retry, Priority: prio}
		sa, start, now, err := ic.admitted(ctx, &a, last)
		if err != nil {
			return err
		}
		if trailer != nil {
			*trailer = nil
		}
		actx, cancel := ctx, context.CancelFunc(nil)
		if ic.attemptTimeout > 0 {
			actx, cancel = context.WithTimeout(ctx, ic.attemptTimeout)
		}
		err = invoker(actx, method, req, reply, cc, opts...)
		if cancel != nil {
			cancel()
		}
		a.Sent, a.Err = true, err
		a.Latency, now = ic.d.End(start)
		if err == nil {
			a.Outcome, a.End = strategy.Success, EndSuccess
			ic.record(now, sa, &a)
			ic.emit(&a)
			return nil
		}
		a.Code = status.Code(err)
		if ic.ended(ctx, &a, func(o strategy.Outcome) { ic.tell(now, sa, o, a.Latency) }) {
			ic.emit(&a)
			return err
		}
		a.Outcome = classify(a.Code, ic.retryAborted)
		ic.record(now, sa, &a)
		var md metadata.MD
		if trailer != nil {
			md = *trailer
		}
		// The service config is read after the attempt: a new channel has none before it
		// resolves its target, which the first attempt waits for.
		ic.decide(ctx, now, sa, &a, standsAside(retriesOff, cc, method), true, md)
		ic.emit(&a)
		if a.End != EndRetry {
			return err
		}
		if werr := ic.wait(ctx, a.Delay); werr != nil {
			return werr
		}
		last = err
	}
}
