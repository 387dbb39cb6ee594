package cortexgrpc_test

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// recvAll receives values from cs until it ends, and returns them with the error it ended
// with (nil for io.EOF).
func recvAll(cs grpc.ClientStream) ([]string, error) {
	var got []string
	for {
		m := new(wrapperspb.StringValue)
		err := cs.RecvMsg(m)
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, m.GetValue())
	}
}

// watch opens the test service's server-streaming Watch on c with ctx, sends "w" and closes.
func (c *client) watch(t *testing.T, ctx context.Context) grpc.ClientStream {
	t.Helper()
	cs, err := c.conn.NewStream(ctx, watchDesc, methodWatch)
	require.NoError(t, err)
	require.NoError(t, cs.SendMsg(wrapperspb.String("w")))
	require.NoError(t, cs.CloseSend())
	return cs
}

// echo opens the bidirectional Echo on c, sends msgs (every SendMsg must succeed: a failure
// while the stream can still be retried is the retry's business) and closes its side.
func (c *client) echo(t *testing.T, ctx context.Context, msgs ...string) grpc.ClientStream {
	t.Helper()
	cs, err := c.conn.NewStream(ctx, echoDesc, methodEcho)
	require.NoError(t, err)
	for _, m := range msgs {
		require.NoError(t, cs.SendMsg(wrapperspb.String(m)))
	}
	require.NoError(t, cs.CloseSend())
	return cs
}

// Asserts that a stream is retried only before its first message is received: a
// server-streaming call that fails before any message is retried and gives every message of
// the retry; one that fails after a message is not (the caller gets the failure, after the
// message); a bidirectional call's sends are replayed on the retry (the server gets them all
// twice, even those sent after the first attempt had failed, and the caller never sees the
// failure); an echo received commits it; a caller that read the headers commits it; more sends
// than StreamReplay make it not replayable.
func TestStreams(t *testing.T) {
	ts := startServer(t)
	tests := []struct {
		name    string
		cfg     func(*cortexgrpc.Config)
		script  []step
		run     func(t *testing.T, c *client) ([]string, error)
		want    []string
		code    codes.Code
		ends    []cortexgrpc.End
		outcome []strategy.Outcome
		seen    []int // what each call of the server received
	}{
		{
			name:   "watch retried before its first message",
			script: []step{fail(codes.Unavailable), {msgs: 3}},
			run:    func(t *testing.T, c *client) ([]string, error) { return recvAll(c.watch(t, bounded(t))) },
			want:   []string{"wa", "wb", "wc"},
			ends:   []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndSuccess}, outcome: []strategy.Outcome{strategy.FastFail, strategy.Success},
			seen: []int{1, 1},
		},
		{
			name:   "watch not replayed after a message",
			script: []step{{code: codes.Unavailable, msgs: 1}, {msgs: 3}},
			run:    func(t *testing.T, c *client) ([]string, error) { return recvAll(c.watch(t, bounded(t))) },
			want:   []string{"wa"}, code: codes.Unavailable,
			ends: []cortexgrpc.End{cortexgrpc.EndSuccess}, outcome: []strategy.Outcome{strategy.Success},
			seen: []int{1},
		},
		{
			name:   "watch with no message",
			script: []step{{msgs: 0}},
			run:    func(t *testing.T, c *client) ([]string, error) { return recvAll(c.watch(t, bounded(t))) },
			ends:   []cortexgrpc.End{cortexgrpc.EndSuccess}, outcome: []strategy.Outcome{strategy.Success},
			seen: []int{1},
		},
		{
			name:   "echo replays its sends",
			script: []step{fail(codes.ResourceExhausted), {msgs: 3}},
			run: func(t *testing.T, c *client) ([]string, error) {
				return recvAll(c.echo(t, bounded(t), "a", "b", "c"))
			},
			want: []string{"a", "b", "c"},
			ends: []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndSuccess}, outcome: []strategy.Outcome{strategy.Throttled, strategy.Success},
			seen: []int{3, 3},
		},
		{
			name:   "echo fails while sending",
			script: []step{{code: codes.Unavailable, read: 1}, {msgs: 3}},
			run: func(t *testing.T, c *client) ([]string, error) {
				cs, err := c.conn.NewStream(bounded(t), echoDesc, methodEcho)
				require.NoError(t, err)
				require.NoError(t, cs.SendMsg(wrapperspb.String("a")))
				waitFor(t, func() bool { return len(c.seen.list()) == 0 && callEnded(ts, 0) })
				for _, m := range []string{"b", "c"} {
					require.NoError(t, cs.SendMsg(wrapperspb.String(m)), "a failed attempt is not the caller's error")
				}
				require.NoError(t, cs.CloseSend())
				return recvAll(cs)
			},
			want: []string{"a", "b", "c"},
			ends: []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndSuccess}, outcome: []strategy.Outcome{strategy.FastFail, strategy.Success},
			seen: []int{1, 3},
		},
		{
			name:   "echo not replayed after a message",
			script: []step{{code: codes.Unavailable, msgs: -1}, {msgs: -1}},
			run: func(t *testing.T, c *client) ([]string, error) {
				cs, err := c.conn.NewStream(bounded(t), echoDesc, methodEcho)
				require.NoError(t, err)
				var got []string
				for _, v := range []string{"a", "b"} {
					require.NoError(t, cs.SendMsg(wrapperspb.String(v)))
					m := new(wrapperspb.StringValue)
					require.NoError(t, cs.RecvMsg(m))
					got = append(got, m.GetValue())
				}
				require.NoError(t, cs.CloseSend())
				rest, err := recvAll(cs)
				return append(got, rest...), err
			},
			want: []string{"a", "b"}, code: codes.Unavailable,
			ends: []cortexgrpc.End{cortexgrpc.EndSuccess}, outcome: []strategy.Outcome{strategy.Success},
			seen: []int{2},
		},
		{
			name:   "echo beyond StreamReplay",
			cfg:    func(c *cortexgrpc.Config) { c.StreamReplay = 2 },
			script: []step{fail(codes.Unavailable), {msgs: 3}},
			run: func(t *testing.T, c *client) ([]string, error) {
				return recvAll(c.echo(t, bounded(t), "a", "b", "c"))
			},
			code: codes.Unavailable,
			ends: []cortexgrpc.End{cortexgrpc.EndCommitted}, outcome: []strategy.Outcome{strategy.FastFail},
			seen: []int{3},
		},
		{
			name:   "headers read",
			script: []step{{code: codes.Unavailable, header: true}, {msgs: 3}},
			run: func(t *testing.T, c *client) ([]string, error) {
				cs := c.watch(t, bounded(t))
				md, err := cs.Header()
				require.NoError(t, err)
				assert.Equal(t, []string{"yes"}, md.Get("attempt"))
				return recvAll(cs)
			},
			code: codes.Unavailable,
			ends: []cortexgrpc.End{cortexgrpc.EndCommitted}, outcome: []strategy.Outcome{strategy.FastFail},
			seen: []int{1},
		},
		{
			name:   "headers not read",
			script: []step{{code: codes.Unavailable, header: true}, {msgs: 1}},
			run:    func(t *testing.T, c *client) ([]string, error) { return recvAll(c.watch(t, bounded(t))) },
			want:   []string{"wa"},
			ends:   []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndSuccess}, outcome: []strategy.Outcome{strategy.FastFail, strategy.Success},
			seen: []int{1, 1},
		},
		{
			name:   "final status",
			script: []step{fail(codes.PermissionDenied)},
			run:    func(t *testing.T, c *client) ([]string, error) { return recvAll(c.watch(t, bounded(t))) },
			code:   codes.PermissionDenied,
			ends:   []cortexgrpc.End{cortexgrpc.EndRefused}, outcome: []strategy.Outcome{strategy.BadRequest},
			seen: []int{1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts.flaky.reset()
			ts.flaky.play(tc.script...)
			cfg := spyConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			s := newSpy(0, 3)
			c := newClient(t, ts, cfg, s)

			got, err := tc.run(t, c)

			assert.Equal(t, tc.want, got)
			if tc.code == codes.OK {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, tc.code, status.Code(err), "%v", err)
			}
			assert.Equal(t, tc.ends, c.seen.ends())
			assert.Equal(t, tc.outcome, s.outcomes())
			assert.Equal(t, tc.seen, ts.flaky.seen(), "what each call of the server received")
			for _, a := range c.seen.list() {
				assert.True(t, a.Stream)
			}
			s.balanced(t)
		})
	}
}

// bounded is a context that ends after 10 s, or when the test ends: a stream test that would
// hang fails instead.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Asserts that a client-streaming call (one answer, delivered with its status) is over after
// that answer: the attempt's context is released without a second RecvMsg, and its replay
// works as a bidirectional stream's.
func TestClientStream(t *testing.T) {
	ts := startServer(t)
	ts.flaky.play(fail(codes.Unavailable), step{msgs: 1})
	cfg := spyConfig()
	cfg.Strategy = newSpy(0, 3)
	seen := &attempts{}
	cfg.OnAttempt = seen.add
	ic, err := cortexgrpc.New(cfg)
	require.NoError(t, err)
	var attemptCtx []context.Context // what each attempt's stream was opened with, seen from inside
	capture := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		attemptCtx = append(attemptCtx, ctx)
		return streamer(ctx, desc, cc, method, opts...)
	}
	conn := dial(t, ts, grpc.WithChainStreamInterceptor(ic.Stream(), capture))
	desc := &grpc.StreamDesc{StreamName: "Echo", ClientStreams: true}

	cs, err := conn.NewStream(bounded(t), desc, methodEcho)
	require.NoError(t, err)
	for _, v := range []string{"a", "b"} {
		require.NoError(t, cs.SendMsg(wrapperspb.String(v)))
	}
	require.NoError(t, cs.CloseSend())
	m := new(wrapperspb.StringValue)
	require.NoError(t, cs.RecvMsg(m))

	assert.Equal(t, "a", m.GetValue())
	assert.Equal(t, []int{2, 2}, ts.flaky.seen(), "both sends replayed")
	assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndSuccess}, seen.ends())
	require.Len(t, attemptCtx, 2)
	for i, ctx := range attemptCtx {
		assert.Error(t, ctx.Err(), "attempt %d's context is released", i)
	}
}

// callEnded reports whether the server has finished call i (it took its step and returned).
func callEnded(ts *testServer, i int) bool { return len(ts.flaky.seen()) > i && ts.flaky.done(i) }

// waitFor polls cond every millisecond, failing the test after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Asserts that a stream that cannot be opened (nothing listens) is retried as the strategy
// says, each attempt a FastFail, and ends with UNAVAILABLE; and that a refused stream fails
// locally with the typed status.
func TestStreamOpen(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := &testServer{addr: l.Addr().String()}
	require.NoError(t, l.Close())
	s := newSpy(time.Millisecond, 2)
	c := newClient(t, dead, spyConfig(), s)

	cs, err := c.conn.NewStream(bounded(t), watchDesc, methodWatch)
	if err == nil { // grpc-go may open the stream and fail its first RecvMsg instead
		require.NoError(t, cs.SendMsg(wrapperspb.String("w")))
		_, err = recvAll(cs)
	}

	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.Equal(t, []strategy.Outcome{strategy.FastFail, strategy.FastFail, strategy.FastFail}, s.outcomes())
	assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndRetry, cortexgrpc.EndRetry, cortexgrpc.EndRefused}, c.seen.ends())

	ts := startServer(t)
	refusing := newSpy(0, 3)
	refusing.admit = func(int, int) strategy.Admission { return strategy.Refuse(engine.Reject, "SHED_LOW_PRIORITY") }
	c = newClient(t, ts, spyConfig(), refusing)
	_, err = c.conn.NewStream(bounded(t), echoDesc, methodEcho)
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.ErrorIs(t, err, cortexgrpc.ErrNotAdmitted)
	assert.Empty(t, ts.flaky.seen())
}

// Asserts that a stream obeys its context: a deadline that passes before the first message is
// a Timeout and ends the stream; a cancel during the wait for its retry ends it at once.
func TestStreamContext(t *testing.T) {
	ts := startServer(t)
	t.Run("deadline", func(t *testing.T) {
		ts.flaky.reset()
		ts.flaky.play(step{hold: true})
		s := newSpy(0, 3)
		c := newClient(t, ts, spyConfig(), s)
		ctx, cancel := context.WithTimeout(bounded(t), 50*time.Millisecond)
		defer cancel()

		// On a loaded machine the deadline can pass before the stream is open: that is the
		// same end, reached at NewStream.
		cs, err := c.conn.NewStream(ctx, watchDesc, methodWatch)
		if err == nil {
			_ = cs.SendMsg(wrapperspb.String("w"))
			_ = cs.CloseSend()
			_, err = recvAll(cs)
		}

		assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
		assert.Equal(t, []strategy.Outcome{strategy.Timeout}, s.outcomes())
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndDeadline}, c.seen.ends())
		s.balanced(t)
	})
	t.Run("cancel during the wait", func(t *testing.T) {
		ts.flaky.reset()
		ts.flaky.play(fail(codes.Unavailable))
		ctx, cancel := context.WithCancel(bounded(t))
		defer cancel()
		cfg := spyConfig()
		seen := &attempts{}
		cfg.OnAttempt = func(a cortexgrpc.Attempt) {
			seen.add(a)
			if a.End == cortexgrpc.EndRetry {
				cancel()
			}
		}
		c := newClient(t, ts, cfg, newSpy(5*time.Second, 3)) // within bounded's 10 s
		start := time.Now()

		_, err := recvAll(c.watch(t, ctx))

		assert.Equal(t, codes.Canceled, status.Code(err))
		assert.Less(t, time.Since(start), 5*time.Second, "long before the delay")
		assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndRetry}, seen.ends())
		assert.Equal(t, 0, c.ic.Pending())
	})
}

// Asserts that a stream whose caller cancels it without ever receiving (grpc-go's rule: cancel
// the context or receive until an error) is still told to the strategy: its attempt is
// released, so a concurrency limit never keeps its slot.
func TestStreamAbandoned(t *testing.T) {
	ts := startServer(t)
	ts.flaky.play(step{hold: true})
	s := newSpy(0, 3)
	c := newClient(t, ts, spyConfig(), s)
	ctx, cancel := context.WithCancel(bounded(t))

	_ = c.watch(t, ctx)
	waitFor(t, func() bool { return len(ts.flaky.seen()) == 1 })
	cancel()

	s.balanced(t)
	assert.Equal(t, 1, s.released())
	assert.Empty(t, s.outcomes())
}

// Asserts that the health service's Watch, a server stream, goes through the interceptor: its
// first message is the attempt's success, and when the server then goes away the stream's
// failure reaches the caller without a second attempt (nothing is replayed after a message).
func TestHealthWatch(t *testing.T) {
	ts := startServer(t)
	ts.health.SetServingStatus("shop", healthpb.HealthCheckResponse_SERVING)
	s := newSpy(0, 3)
	c := newClient(t, ts, spyConfig(), s)
	ctx, cancel := context.WithCancel(bounded(t))
	defer cancel()

	w, err := healthpb.NewHealthClient(c.conn).Watch(ctx, &healthpb.HealthCheckRequest{Service: "shop"})
	require.NoError(t, err)
	first, err := w.Recv()
	require.NoError(t, err)
	assert.Equal(t, healthpb.HealthCheckResponse_SERVING, first.GetStatus())
	ts.health.SetServingStatus("shop", healthpb.HealthCheckResponse_NOT_SERVING)
	second, err := w.Recv()
	require.NoError(t, err)
	assert.Equal(t, healthpb.HealthCheckResponse_NOT_SERVING, second.GetStatus())
	ts.srv.Stop()
	_, err = w.Recv()

	require.Error(t, err)
	assert.Equal(t, []cortexgrpc.End{cortexgrpc.EndSuccess}, c.seen.ends(), "one attempt, never retried")
	assert.Equal(t, []strategy.Outcome{strategy.Success}, s.outcomes())
}
