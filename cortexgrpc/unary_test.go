package cortexgrpc_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/priority"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts that every status code a server answers with is recorded as its outcome class, that
// the retryable classes are retried (here once, then the server answers OK) and that the others
// are not: the strategy's verdict for them is NOT_RETRYABLE and the caller gets the status.
func TestStatusCodes(t *testing.T) {
	tests := []struct {
		code    codes.Code
		aborted bool // Config.RetryAborted
		want    strategy.Outcome
		retry   bool
	}{
		{codes.Unavailable, false, strategy.FastFail, true},
		{codes.ResourceExhausted, false, strategy.Throttled, true},
		{codes.DeadlineExceeded, false, strategy.Timeout, true},
		{codes.Aborted, false, strategy.BadRequest, false},
		{codes.Aborted, true, strategy.ServerError, true},
		{codes.Canceled, false, strategy.BadRequest, false},
		{codes.Unknown, false, strategy.BadRequest, false},
		{codes.InvalidArgument, false, strategy.BadRequest, false},
		{codes.NotFound, false, strategy.BadRequest, false},
		{codes.AlreadyExists, false, strategy.BadRequest, false},
		{codes.PermissionDenied, false, strategy.BadRequest, false},
		{codes.FailedPrecondition, false, strategy.BadRequest, false},
		{codes.OutOfRange, false, strategy.BadRequest, false},
		{codes.Unimplemented, false, strategy.BadRequest, false},
		{codes.Internal, false, strategy.BadRequest, false},
		{codes.DataLoss, false, strategy.BadRequest, false},
		{codes.Unauthenticated, false, strategy.BadRequest, false},
	}
	ts := startServer(t)
	for _, tc := range tests {
		name := tc.code.String()
		if tc.aborted {
			name += "/RetryAborted"
		}
		t.Run(name, func(t *testing.T) {
			ts.flaky.play(fail(tc.code))
			cfg := spyConfig()
			cfg.RetryAborted = tc.aborted
			s := newSpy(0, 3)
			c := newClient(t, ts, cfg, s)

			got, err := c.call(context.Background())

			as := c.seen.list()
			require.NotEmpty(t, as)
			assert.Equal(t, tc.want, as[0].Outcome, "outcome of the first attempt")
			assert.Equal(t, tc.code, as[0].Code)
			assert.True(t, as[0].Recorded)
			if tc.retry {
				require.NoError(t, err)
				assert.Equal(t, "re: x", got)
				assert.Equal(t, []strategy.Outcome{tc.want, strategy.Success}, s.outcomes())
				assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndSuccess}, c.seen.ends())
				return
			}
			assert.Equal(t, tc.code, status.Code(err), "the caller gets the server's status")
			assert.Equal(t, []strategy.Outcome{tc.want}, s.outcomes(), "sent once")
			require.True(t, as[0].Decided)
			assert.Equal(t, engine.NotRetryable, as[0].Verdict.Action)
			assert.Equal(t, cortexgrpc.EndRefused, as[0].End)
			ts.flaky.play() // nothing left over for the next case
		})
	}
	t.Run("OK", func(t *testing.T) {
		s := newSpy(0, 3)
		c := newClient(t, ts, spyConfig(), s)
		_, err := c.call(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []strategy.Outcome{strategy.Success}, s.outcomes())
		assert.Empty(t, s.decides, "no decision after a success")
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndSuccess}, c.seen.ends())
	})
}

// Asserts that grpc-retry-pushback-ms is a floor on the delay before a retry (the server sees
// the retry no sooner), that a longer verdict delay is kept, that the floor is capped by
// MaxPushback, that a negative, malformed or repeated pushback ends the call without asking
// the strategy, that MaxPushback 0 ignores it, and that it is not read for a final status.
func TestPushback(t *testing.T) {
	tests := []struct {
		name        string
		pushback    []string
		code        codes.Code
		verdict     time.Duration // the spy's delay
		maxPushback time.Duration
		end         cortexgrpc.End // of the first attempt
		wantPB      time.Duration
		wantDelay   time.Duration
	}{
		{"floor", []string{"60"}, codes.Unavailable, 0, time.Minute, cortexgrpc.EndRetry, 60 * time.Millisecond, 60 * time.Millisecond},
		{"verdict longer", []string{"10"}, codes.ResourceExhausted, 80 * time.Millisecond, time.Minute, cortexgrpc.EndRetry, 10 * time.Millisecond, 80 * time.Millisecond},
		{"capped", []string{"100000"}, codes.Unavailable, 0, 30 * time.Millisecond, cortexgrpc.EndRetry, 30 * time.Millisecond, 30 * time.Millisecond},
		{"zero", []string{"0"}, codes.Unavailable, 5 * time.Millisecond, time.Minute, cortexgrpc.EndRetry, 0, 5 * time.Millisecond},
		{"negative", []string{"-1"}, codes.Unavailable, 0, time.Minute, cortexgrpc.EndPushback, 0, 0},
		{"malformed", []string{"soon"}, codes.Unavailable, 0, time.Minute, cortexgrpc.EndPushback, 0, 0},
		{"out of range", []string{"99999999999999999999"}, codes.Unavailable, 0, time.Minute, cortexgrpc.EndPushback, 0, 0},
		{"several", []string{"10", "20"}, codes.Unavailable, 0, time.Minute, cortexgrpc.EndPushback, 0, 0},
		{"ignored", []string{"-1"}, codes.Unavailable, 0, 0, cortexgrpc.EndRetry, 0, 0},
		{"final status", []string{"10"}, codes.Internal, 0, time.Minute, cortexgrpc.EndRefused, 0, 0},
	}
	ts := startServer(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts.flaky.play(fail(tc.code, tc.pushback...))
			before := len(ts.flaky.seen())
			cfg := spyConfig()
			cfg.MaxPushback = tc.maxPushback
			s := newSpy(tc.verdict, 3)
			c := newClient(t, ts, cfg, s)

			_, err := c.call(context.Background())

			as := c.seen.list()
			require.NotEmpty(t, as)
			a := as[0]
			assert.Equal(t, tc.end, a.End)
			assert.Equal(t, tc.wantPB, a.Pushback)
			assert.Equal(t, tc.wantDelay, a.Delay)
			calls := len(ts.flaky.seen()) - before
			if tc.end != cortexgrpc.EndRetry {
				assert.Equal(t, tc.code, status.Code(err))
				assert.Equal(t, 1, calls, "not retried")
				assert.Equal(t, tc.end == cortexgrpc.EndRefused, a.Decided, "the strategy is asked only when the server allows a retry")
				ts.flaky.play()
				return
			}
			require.NoError(t, err)
			require.Equal(t, 2, calls)
			gaps := ts.flaky.gaps()
			assert.GreaterOrEqual(t, gaps[len(gaps)-1], tc.wantDelay, "the server saw the retry no sooner than the delay")
		})
	}
}

// Asserts that the pushback is read from the caller's own grpc.Trailer when it passes one (no
// second trailer asked for), and that the caller still gets its trailer.
func TestPushbackCallersTrailer(t *testing.T) {
	ts := startServer(t)
	ts.flaky.play(fail(codes.Unavailable, "-1"))
	c := newClient(t, ts, spyConfig(), newSpy(0, 3))
	var md metadata.MD

	err := c.conn.Invoke(context.Background(), methodCall, wrapperspb.String("x"), new(wrapperspb.StringValue), grpc.Trailer(&md))

	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndPushback}, c.seen.ends())
	assert.Equal(t, []string{"-1"}, md.Get(cortexgrpc.PushbackKey), "the caller's trailer is filled in")
}

// Asserts that the call's deadline is obeyed: a retry whose delay would end past it is not
// waited for (the call ends at once with the last status), an attempt the deadline ends is
// recorded as a Timeout and not retried, and Config.AttemptTimeout bounds each attempt alone
// (a Timeout that is retried).
func TestDeadline(t *testing.T) {
	ts := startServer(t)
	t.Run("retry past the deadline", func(t *testing.T) {
		ts.flaky.play(fail(codes.Unavailable, "60000"))
		s := newSpy(0, 3)
		c := newClient(t, ts, spyConfig(), s)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()

		_, err := c.call(ctx)

		assert.Equal(t, codes.Unavailable, status.Code(err), "the last status, not the deadline's")
		assert.Less(t, time.Since(start), 30*time.Second)
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndDeadline}, c.seen.ends())
		assert.Equal(t, 0, c.ic.Pending())
	})
	t.Run("deadline during the attempt", func(t *testing.T) {
		ts.flaky.reset() // the deadline may pass before the server takes the step
		ts.flaky.play(step{hold: true})
		s := newSpy(0, 3)
		c := newClient(t, ts, spyConfig(), s)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()

		_, err := c.call(ctx)

		assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
		assert.Equal(t, []strategy.Outcome{strategy.Timeout}, s.outcomes(), "recorded as a Timeout")
		assert.Empty(t, s.decides, "no retry is asked for: %+v", c.seen.list())
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndDeadline}, c.seen.ends())
	})
	t.Run("attempt timeout", func(t *testing.T) {
		ts.flaky.reset()
		ts.flaky.play(step{hold: true})
		cfg := spyConfig()
		cfg.AttemptTimeout = 200 * time.Millisecond
		s := newSpy(0, 5) // a retry may also run out of 200 ms on a loaded machine
		c := newClient(t, ts, cfg, s)

		got, err := c.call(context.Background())

		require.NoError(t, err)
		assert.Equal(t, "re: x", got)
		out := s.outcomes()
		assert.Equal(t, strategy.Timeout, out[0])
		assert.Equal(t, strategy.Success, out[len(out)-1])
	})
}

// Asserts that a cancel stops the call at once: during the wait for a retry (the call returns
// CANCELED long before the strategy's minute-long delay, and nothing waits any more) and during
// an attempt (not recorded: a cancel says nothing about the service).
func TestCancel(t *testing.T) {
	ts := startServer(t)
	t.Run("during the wait", func(t *testing.T) {
		ts.flaky.play(fail(codes.Unavailable))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cfg := spyConfig()
		var pending atomic.Int32
		var ic atomic.Pointer[cortexgrpc.Interceptor]
		seen := &attempts{}
		cfg.OnAttempt = func(a cortexgrpc.Attempt) {
			seen.add(a)
			if a.End == cortexgrpc.EndRetry {
				go func() {
					for ic.Load() == nil || ic.Load().Pending() == 0 {
						time.Sleep(time.Millisecond)
					}
					pending.Store(int32(ic.Load().Pending()))
					cancel()
				}()
			}
		}
		c := newClient(t, ts, cfg, newSpy(time.Minute, 3))
		ic.Store(c.ic)
		start := time.Now()

		_, err := c.call(ctx)

		assert.Equal(t, codes.Canceled, status.Code(err))
		assert.Less(t, time.Since(start), 30*time.Second)
		assert.Equal(t, int32(1), pending.Load(), "the call waited as pending")
		assert.Equal(t, 0, c.ic.Pending(), "and waits no more")
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndRetry}, seen.ends())
	})
	t.Run("during the attempt", func(t *testing.T) {
		ts.flaky.reset()
		ts.flaky.play(step{hold: true})
		before := len(ts.flaky.seen())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			for len(ts.flaky.seen()) == before {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		s := newSpy(0, 3)
		c := newClient(t, ts, spyConfig(), s)

		_, err := c.call(ctx)

		assert.Equal(t, codes.Canceled, status.Code(err))
		assert.Empty(t, s.outcomes(), "a cancel is not recorded")
		assert.Equal(t, 1, s.released(), "the attempt is released")
		s.balanced(t)
		as := c.seen.list()
		require.Len(t, as, 1)
		assert.Equal(t, cortexgrpc.EndCanceled, as[0].End)
		assert.False(t, as[0].Recorded)
	})
}

// Asserts that a call the strategy refuses to send fails locally with a typed status:
// UNAVAILABLE, a *RefusedError (errors.Is ErrNotAdmitted) whose ErrorInfo detail carries the
// reason, the server never called; that a refused retry wraps the previous attempt's status;
// and that the refusal survives a hop: a service that returns it from its handler gives its
// own client the same reason.
func TestRefused(t *testing.T) {
	ts := startServer(t)
	t.Run("original", func(t *testing.T) {
		before := len(ts.flaky.seen())
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission {
			return strategy.Refuse(engine.CircuitOpen, engine.ReasonCircuitOpen)
		}
		c := newClient(t, ts, spyConfig(), s)

		_, err := c.call(priority.With(context.Background(), 2))

		require.Error(t, err)
		assert.Equal(t, codes.Unavailable, status.Code(err))
		assert.ErrorIs(t, err, cortexgrpc.ErrNotAdmitted)
		var re *cortexgrpc.RefusedError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, cortexgrpc.Refusal{Strategy: "spy", Method: methodCall, Action: engine.CircuitOpen,
			Reason: engine.ReasonCircuitOpen, Priority: 2}, re.Refusal)
		st, _ := status.FromError(err)
		require.Len(t, st.Details(), 1)
		info, ok := st.Details()[0].(*errdetails.ErrorInfo)
		require.True(t, ok)
		assert.Equal(t, cortexgrpc.ErrorDomain, info.GetDomain())
		assert.Equal(t, engine.ReasonCircuitOpen, info.GetReason())
		assert.Equal(t, "CIRCUIT_OPEN", info.GetMetadata()["action"])
		assert.Contains(t, st.Message(), "the spy strategy refused the call to "+methodCall)
		assert.Equal(t, before, len(ts.flaky.seen()), "nothing was sent")
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndNotAdmitted}, c.seen.ends())
	})
	t.Run("retry", func(t *testing.T) {
		ts.flaky.play(fail(codes.Unavailable))
		s := newSpy(0, 3)
		s.admit = func(_, retry int) strategy.Admission {
			if retry == 0 {
				return strategy.Admission{}
			}
			return strategy.Refuse(engine.Reject, "LIMIT_EXCEEDED")
		}
		c := newClient(t, ts, spyConfig(), s)

		_, err := c.call(context.Background())

		var re *cortexgrpc.RefusedError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, 1, re.Retry)
		assert.Equal(t, "LIMIT_EXCEEDED", re.Reason)
		s.balanced(t)
		require.Error(t, re.Last)
		assert.Equal(t, codes.Unavailable, status.Code(errors.Unwrap(err)), "the previous attempt's status")
		assert.Contains(t, err.Error(), "refused retry 1")
	})
	t.Run("across a hop", func(t *testing.T) {
		relayed := &cortexgrpc.Refusal{Strategy: "cortex", Method: "/down.Stream/Get", Action: engine.CircuitOpen,
			Reason: engine.ReasonCircuitOpen, Priority: 7}
		ts.flaky.play(step{refuse: relayed})
		c := newClient(t, ts, spyConfig(), newSpy(0, 0))

		_, err := c.call(context.Background())

		assert.Equal(t, codes.Unavailable, status.Code(err))
		got, ok := cortexgrpc.RefusalOf(err)
		require.True(t, ok, "the refusal is read from the status details")
		assert.Equal(t, *relayed, got)
		_, ok = cortexgrpc.RefusalOf(status.Error(codes.Unavailable, "plain"))
		assert.False(t, ok)
	})
}

// Asserts that an attempt the strategy holds (a rate limiter without a token) waits the hold
// and asks again, reported as HELD, sending nothing meanwhile; that a hold past the call's
// deadline fails it at once with the typed refusal (Action Reject, the hold in Wait); and that
// a cancel during a hold ends the call with CANCELED.
func TestHeld(t *testing.T) {
	ts := startServer(t)
	t.Run("held then admitted", func(t *testing.T) {
		ts.flaky.reset()
		holds := 0
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission {
			if holds < 2 {
				holds++
				return strategy.Hold(20*time.Millisecond, "RATE_LIMITED")
			}
			return strategy.Admission{}
		}
		c := newClient(t, ts, spyConfig(), s)
		start := time.Now()

		got, err := c.call(context.Background())

		require.NoError(t, err)
		assert.Equal(t, "re: x", got)
		assert.GreaterOrEqual(t, time.Since(start), 40*time.Millisecond, "two holds of 20 ms")
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndHeld, cortexgrpc.EndHeld, cortexgrpc.EndSuccess}, c.seen.ends())
		as := c.seen.list()
		assert.Equal(t, 20*time.Millisecond, as[0].Delay)
		assert.Equal(t, "RATE_LIMITED", as[0].Admission.Reason)
		assert.False(t, as[0].Sent)
		assert.Len(t, ts.flaky.seen(), 1, "sent once, after the holds")
		s.balanced(t)
	})
	t.Run("held past the deadline", func(t *testing.T) {
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission { return strategy.Hold(time.Hour, "RATE_LIMITED") }
		c := newClient(t, ts, spyConfig(), s)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()

		_, err := c.call(ctx)

		assert.Less(t, time.Since(start), 30*time.Second, "not held at all")
		var re *cortexgrpc.RefusedError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, engine.Reject, re.Action)
		assert.Equal(t, time.Hour, re.Wait)
		assert.Contains(t, err.Error(), "held 1h0m0s (RATE_LIMITED), past the deadline")
		got, ok := cortexgrpc.RefusalOf(status.ErrorProto(status.Convert(err).Proto()))
		require.True(t, ok, "the refusal read back from the status")
		assert.Equal(t, time.Hour, got.Wait)
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndNotAdmitted}, c.seen.ends())
	})
	t.Run("canceled while held", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission { return strategy.Hold(time.Hour, "RATE_LIMITED") }
		cfg := spyConfig()
		cfg.OnAttempt = func(a cortexgrpc.Attempt) {
			if a.End == cortexgrpc.EndHeld {
				cancel()
			}
		}
		c := newClient(t, ts, cfg, s)

		_, err := c.call(ctx)

		assert.Equal(t, codes.Canceled, status.Code(err))
	})
}

// Asserts where a call's priority comes from: its context (set by cortexgrpc.WithPriority, or
// by cortexhttp.WithPriority: one helper for both), else the x-cortex-priority outgoing
// metadata (parsed, clamped; garbage ignored), else the default; the metadata is sent on.
func TestPriority(t *testing.T) {
	tests := []struct {
		name string
		ctx  func(context.Context) context.Context
		key  string
		dflt int
		want int
	}{
		{"default", nil, cortexgrpc.DefaultPriorityKey, 5, 5},
		{"configured default", nil, cortexgrpc.DefaultPriorityKey, 2, 2},
		{"cortexgrpc context", func(c context.Context) context.Context { return cortexgrpc.WithPriority(c, 9) }, cortexgrpc.DefaultPriorityKey, 5, 9},
		{"cortexhttp context", func(c context.Context) context.Context { return cortexhttp.WithPriority(c, 7) }, cortexgrpc.DefaultPriorityKey, 5, 7},
		{"metadata", mdPriority("8"), cortexgrpc.DefaultPriorityKey, 5, 8},
		{"metadata clamped", mdPriority(" 12 "), cortexgrpc.DefaultPriorityKey, 5, 10},
		{"metadata garbage", mdPriority("urgent"), cortexgrpc.DefaultPriorityKey, 5, 5},
		{"metadata not read", mdPriority("8"), "", 5, 5},
		{"context over metadata", func(c context.Context) context.Context { return priority.With(mdPriority("8")(c), 1) }, cortexgrpc.DefaultPriorityKey, 5, 1},
		{"other key", func(c context.Context) context.Context { return metadata.AppendToOutgoingContext(c, "prio", "3") }, "prio", 5, 3},
	}
	ts := startServer(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := spyConfig()
			cfg.PriorityKey, cfg.DefaultPriority = tc.key, tc.dflt
			s := newSpy(0, 3)
			c := newClient(t, ts, cfg, s)
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx(ctx)
			}
			_, err := c.call(ctx)
			require.NoError(t, err)
			assert.Equal(t, []int{tc.want}, s.admits)
			as := c.seen.list()
			require.Len(t, as, 1)
			assert.Equal(t, tc.want, as[0].Priority)
		})
	}
	seen := ts.flaky.priorities()
	assert.Contains(t, seen, "8", "the metadata reaches the server unchanged")
}

// mdPriority returns a context function adding the priority metadata v.
func mdPriority(v string) func(context.Context) context.Context {
	return func(c context.Context) context.Context {
		return metadata.AppendToOutgoingContext(c, cortexgrpc.DefaultPriorityKey, v)
	}
}

// retryConfig is a service config whose retryPolicy makes gRPC retry the test service's
// UNAVAILABLE answers itself, three attempts in all.
const retryConfig = `{"methodConfig": [{"name": [{"service": "cortex.test.Flaky"}],
  "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.01s", "maxBackoff": "0.01s",
  "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`

// Asserts that CORTEX and gRPC's own retries never multiply: on a channel whose service config
// retries a method, the interceptor stands aside (one attempt of its own, recorded with its
// final status, no verdict asked) and the server sees gRPC's three attempts, not three for
// each of CORTEX's; through DialOptions (grpc.WithDisableRetry) the server sees CORTEX's
// attempts alone, the same count; the health service, which the policy does not cover, is
// CORTEX's either way.
func TestBesideGRPCRetries(t *testing.T) {
	ts := startServer(t)
	many := []step{fail(codes.Unavailable), fail(codes.Unavailable), fail(codes.Unavailable), fail(codes.Unavailable), fail(codes.Unavailable), fail(codes.Unavailable)}

	t.Run("stand aside", func(t *testing.T) {
		ts.flaky.play(many...)
		before := len(ts.flaky.seen())
		s := newSpy(0, 2)
		c := newClient(t, ts, spyConfig(), s, grpc.WithDefaultServiceConfig(retryConfig))

		_, err := c.call(context.Background())

		assert.Equal(t, codes.Unavailable, status.Code(err))
		assert.Equal(t, 3, len(ts.flaky.seen())-before, "gRPC's three attempts, no more")
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndStandAside}, c.seen.ends())
		assert.Equal(t, []strategy.Outcome{strategy.FastFail}, s.outcomes(), "the call's final status is recorded")
		assert.Empty(t, s.decides, "CORTEX decides no retry")

		resp, err := healthpb.NewHealthClient(c.conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
		require.NoError(t, err)
		assert.Equal(t, healthpb.HealthCheckResponse_SERVING, resp.GetStatus())
		assert.Equal(t, cortexgrpc.EndSuccess, c.seen.ends()[1], "a method without a policy goes through CORTEX")
		ts.flaky.play()
	})
	t.Run("retries disabled", func(t *testing.T) {
		ts.flaky.play(many...)
		before := len(ts.flaky.seen())
		s := newSpy(0, 2)
		cfg := spyConfig()
		cfg.Strategy = s
		seen := &attempts{}
		cfg.OnAttempt = seen.add
		ic, err := cortexgrpc.New(cfg)
		require.NoError(t, err)
		conn := dial(t, ts, append(ic.DialOptions(), grpc.WithDefaultServiceConfig(retryConfig))...)

		err = conn.Invoke(context.Background(), methodCall, wrapperspb.String("x"), new(wrapperspb.StringValue))

		assert.Equal(t, codes.Unavailable, status.Code(err))
		assert.Equal(t, 3, len(ts.flaky.seen())-before, "CORTEX's original and two retries, no more")
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndRetry, cortexgrpc.EndRefused}, seen.ends())
		ts.flaky.play()
	})
}

// Asserts that an invalid Config is an error naming each bad field from New, and, from the
// three-line Unary and Stream, a call that fails with INTERNAL naming them (never a panic).
func TestInvalidConfig(t *testing.T) {
	cfg := cortexgrpc.DefaultConfig()
	cfg.DefaultPriority = 11
	cfg.MaxRetries = -1
	cfg.PriorityKey = "Grpc-Bad"
	cfg.StreamReplay = -2
	_, err := cortexgrpc.New(cfg)
	require.Error(t, err)
	for _, field := range []string{"DefaultPriority", "MaxRetries", "PriorityKey", "StreamReplay"} {
		assert.Contains(t, err.Error(), field)
	}

	ts := startServer(t)
	conn := dial(t, ts, grpc.WithChainUnaryInterceptor(cortexgrpc.Unary(cfg)), grpc.WithChainStreamInterceptor(cortexgrpc.Stream(cfg)))
	err = conn.Invoke(context.Background(), methodCall, wrapperspb.String("x"), new(wrapperspb.StringValue))
	assert.Equal(t, codes.Internal, status.Code(err))
	assert.Contains(t, err.Error(), "MaxRetries must be >= 0")
	_, err = conn.NewStream(context.Background(), watchDesc, methodWatch)
	assert.Equal(t, codes.Internal, status.Code(err))
	assert.Empty(t, ts.flaky.seen(), "nothing was sent")
}
