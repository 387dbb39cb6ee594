package cortexgrpc

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/driver"
	"github.com/cortex-tui/cortex-tui/priority"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Interceptor drives one strategy for the calls of its unary and stream interceptors (see the
// package doc). Build it with New. It is safe for concurrent use, and may serve several
// channels; calls into a strategy that is not safe for concurrent use are serialised.
type Interceptor struct {
	d *driver.Driver

	defaultPriority int
	key             string // metadata key of the priority, "" for none
	maxRetries      int
	attemptTimeout  time.Duration
	maxPushback     time.Duration
	retryAborted    bool
	replay          int
	retriesOff      bool
	onAttempt       func(Attempt)
}

// New returns an Interceptor configured by cfg, or an error naming every invalid field (see
// Config.Validate) or why the default strategy could not be built.
func New(cfg Config) (*Interceptor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := driver.New("cortexgrpc", cfg.Strategy, cfg.Clock, cfg.ConcurrentStrategy, cfg.Engine)
	if err != nil {
		return nil, err
	}
	return &Interceptor{
		d:               d,
		defaultPriority: cfg.DefaultPriority,
		key:             cfg.PriorityKey,
		maxRetries:      cfg.MaxRetries,
		attemptTimeout:  cfg.AttemptTimeout,
		maxPushback:     cfg.MaxPushback,
		retryAborted:    cfg.RetryAborted,
		replay:          cfg.StreamReplay,
		retriesOff:      cfg.RetriesDisabled,
		onAttempt:       cfg.OnAttempt,
	}, nil
}

// Unary returns a unary client interceptor configured by cfg, for
// grpc.WithChainUnaryInterceptor. Each call of Unary builds its own Interceptor (and, with
// cfg.Strategy nil, its own CORTEX engine): to share one strategy between the unary and the
// stream calls of a channel, build one with New and use its methods. When cfg is invalid, every
// call through the interceptor fails with INTERNAL and the error naming each bad field.
func Unary(cfg Config) grpc.UnaryClientInterceptor {
	ic, err := New(cfg)
	if err != nil {
		st := status.New(codes.Internal, fmt.Sprintf("cortexgrpc: invalid Config: %v", err))
		return func(context.Context, string, any, any, *grpc.ClientConn, grpc.UnaryInvoker, ...grpc.CallOption) error {
			return st.Err()
		}
	}
	return ic.Unary()
}

// Stream returns a stream client interceptor configured by cfg, for
// grpc.WithChainStreamInterceptor; see Unary.
func Stream(cfg Config) grpc.StreamClientInterceptor {
	ic, err := New(cfg)
	if err != nil {
		st := status.New(codes.Internal, fmt.Sprintf("cortexgrpc: invalid Config: %v", err))
		return func(context.Context, *grpc.StreamDesc, *grpc.ClientConn, string, grpc.Streamer, ...grpc.CallOption) (grpc.ClientStream, error) {
			return nil, st.Err()
		}
	}
	return ic.Stream()
}

// Unary returns the unary client interceptor. A method whose service config has a retryPolicy
// is left to gRPC's retries unless Config.RetriesDisabled (see the package doc).
func (ic *Interceptor) Unary() grpc.UnaryClientInterceptor { return ic.unary(ic.retriesOff) }

// Stream returns the stream client interceptor, on the same strategy as Unary.
func (ic *Interceptor) Stream() grpc.StreamClientInterceptor { return ic.stream(ic.retriesOff) }

// DialOptions returns what a channel needs for CORTEX to retry every one of its calls:
// grpc.WithDisableRetry(), so that gRPC's own retry policy never multiplies CORTEX's attempts
// whatever the service config says (gRPC's transparent retries of attempts that never reached
// the server stay), and the unary and stream interceptors, which then retry every method.
func (ic *Interceptor) DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDisableRetry(),
		grpc.WithChainUnaryInterceptor(ic.unary(true)),
		grpc.WithChainStreamInterceptor(ic.stream(true)),
	}
}

// Strategy returns the interceptor's strategy, for reading its state (a CORTEX strategy
// implements strategy.EngineHolder, whose engine's Snapshot is safe to call at any time). A
// strategy that is not safe for concurrent use must not be called while calls are in flight.
func (ic *Interceptor) Strategy() strategy.Strategy { return ic.d.Strategy() }

// Pending returns the number of calls waiting for a retry (sleeping on a delay > 0); it is what
// the strategy's SetPending is told (CORTEX's queue signal Q). Safe for concurrent use.
func (ic *Interceptor) Pending() int { return ic.d.Pending() }

// WithPriority returns a copy of ctx carrying the priority p (0 analytics ... 9 payment, 10
// health check; clamped to 0..10) for the calls made with it. It takes precedence over the
// priority metadata. It is priority.With, which cortexhttp.WithPriority is too: one priority
// set on a context rides on the gRPC and the HTTP calls made with it.
func WithPriority(ctx context.Context, p int) context.Context { return priority.With(ctx, p) }

// priority is a call's priority: from its context, else from its outgoing metadata, else the
// default.
func (ic *Interceptor) priority(ctx context.Context) int {
	if p, ok := priority.From(ctx); ok {
		return p
	}
	if ic.key != "" {
		if v := metadata.ValueFromOutgoingContext(ctx, ic.key); len(v) > 0 {
			if p, ok := priority.Parse(v[0]); ok {
				return p
			}
		}
	}
	return ic.defaultPriority
}

// standsAside reports whether gRPC's own retries cover method on cc: its service config has a
// retryPolicy, and the channel's retries are not declared off.
func standsAside(retriesOff bool, cc *grpc.ClientConn, method string) bool {
	return !retriesOff && cc != nil && cc.GetMethodConfig(method).RetryPolicy != nil
}

// admitted asks the strategy to admit attempt a of a call with ctx, through its holds (each
// reported as an EndHeld attempt). It returns the attempt as the strategy knows it, its start
// and the strategy's now; or the call's error: a *RefusedError when the strategy refused the
// attempt or held it past the deadline (a is reported EndNotAdmitted), the context's status
// when it ended during a hold. last is the previous attempt's error (nil for an original).
func (ic *Interceptor) admitted(ctx context.Context, a *Attempt, last error) (strategy.Attempt, time.Time, strategy.Time, error) {
	held := func(adm strategy.Admission) {
		a.Admission, a.End, a.Delay = adm, EndHeld, adm.Wait
		ic.emit(a)
	}
	sa, start, now, adm, err := ic.d.Admitted(ctx, a.Priority, a.Retry, held)
	a.End, a.Delay = EndRetry, 0
	if err != nil {
		return sa, start, now, contextStatus(ctx)
	}
	if adm.Admitted() {
		a.Admission = strategy.Admission{}
		return sa, start, now, nil
	}
	a.Admission, a.End = adm, EndNotAdmitted
	ic.emit(a)
	return sa, start, now, ic.refused(a, last)
}

// ended fills in the end of attempt a (sa to the strategy) when the call's own context is
// done, and tells the strategy through tell: a deadline that passed is a Timeout (recorded:
// the client gave up waiting, as in the simulator), a cancel is Canceled (not recorded: it says
// nothing of the service; the strategy only releases the attempt). It reports whether the
// context was done. A deadline that has passed counts even before the context's timer says
// so: the server's answer to it (its own deadline, from the grpc-timeout the client sent) can
// come back first.
func (ic *Interceptor) ended(ctx context.Context, a *Attempt, tell func(strategy.Outcome)) bool {
	if !callOver(ctx) {
		return false
	}
	a.End = EndCanceled
	o := strategy.Canceled
	if ctx.Err() != context.Canceled {
		o, a.End, a.Outcome, a.Recorded = strategy.Timeout, EndDeadline, strategy.Timeout, true
	}
	tell(o)
	return true
}

// callOver reports whether ctx is done or its deadline has passed.
func callOver(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// decide fills in what follows the failed attempt a (sa to the strategy), whose outcome is
// recorded: the end when gRPC's retries cover the method (aside), the stream cannot be
// replayed, the retry cap is reached or the server's pushback (from trailer) says not to
// retry; otherwise the strategy's verdict, the delay (raised to the pushback) and the
// deadline. a.End stays EndRetry for a retry after a.Delay.
func (ic *Interceptor) decide(ctx context.Context, now strategy.Time, sa strategy.Attempt, a *Attempt, aside, replayable bool, trailer metadata.MD) {
	if aside {
		a.End = EndStandAside
		return
	}
	if a.Outcome.Retryable() {
		switch {
		case !replayable:
			a.End = EndCommitted
			return
		case a.Retry >= ic.maxRetries:
			a.End = EndMaxRetries
			return
		}
		if ic.maxPushback > 0 {
			pb, present, stop := pushback(trailer)
			if stop {
				a.End = EndPushback
				return
			}
			if present {
				a.Pushback = min(pb, ic.maxPushback)
			}
		}
	}
	a.Decided = true
	a.Verdict = ic.d.Decide(now, sa, a.Outcome)
	if !a.Verdict.Retry {
		a.End = EndRefused
		return
	}
	delay := max(a.Verdict.Delay, a.Pushback, 0)
	if !driver.Fits(ctx, delay) {
		a.End = EndDeadline // the retry would start at or after the deadline: give up now
		return
	}
	a.Delay = delay
}

// record tells the strategy a's outcome and latency.
func (ic *Interceptor) record(now strategy.Time, sa strategy.Attempt, a *Attempt) {
	a.Recorded = true
	ic.d.Record(now, sa, a.Outcome, a.Latency)
}

// tell gives the strategy the end of an attempt it admitted: its outcome and latency, or its
// release when it ended without one (strategy.Canceled).
func (ic *Interceptor) tell(now strategy.Time, sa strategy.Attempt, o strategy.Outcome, latency time.Duration) {
	if o == strategy.Canceled {
		ic.d.Release(now, sa)
		return
	}
	ic.d.Record(now, sa, o, latency)
}

// refused is the error of a call whose attempt a the strategy's Admit refused (or held past
// the deadline); last is the previous attempt's error (nil for an original).
func (ic *Interceptor) refused(a *Attempt, last error) error {
	r := Refusal{Strategy: ic.d.Strategy().Name(), Method: a.Method, Action: a.Admission.Action,
		Reason: a.Admission.Reason, Priority: a.Priority, Retry: a.Retry}
	if a.Admission.Held() {
		r.Action, r.Wait = engine.Reject, a.Admission.Wait
	}
	if r.Reason == "" {
		r.Reason = ReasonNotAdmitted
	}
	return &RefusedError{Refusal: r, Last: last}
}

// wait sleeps the delay before a retry within ctx; a ctx done first gives its status error
// (CANCELED or DEADLINE_EXCEEDED), as gRPC reports a context's end.
func (ic *Interceptor) wait(ctx context.Context, d time.Duration) error {
	if ic.d.Wait(ctx, d) != nil {
		return contextStatus(ctx)
	}
	return nil
}

// contextStatus is the status error of a call whose context ended: CANCELED or
// DEADLINE_EXCEEDED, as gRPC reports it.
func contextStatus(ctx context.Context) error { return status.FromContextError(ctx.Err()).Err() }

// emit hands a to Config.OnAttempt, if set.
func (ic *Interceptor) emit(a *Attempt) {
	if ic.onAttempt != nil {
		ic.onAttempt(*a)
	}
}
