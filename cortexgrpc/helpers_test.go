package cortexgrpc_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// TestMain fails the package if any goroutine (a server's, a connection's, a timer's, a
// stream's) outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The test service, written by hand (no generated code): cortex.test.Flaky with a unary Call, a
// server-streaming Watch and a bidirectional Echo, on wrapperspb.StringValue messages. Each call
// plays the next step of the server's script (a success once the script is spent).
const (
	methodCall  = "/cortex.test.Flaky/Call"
	methodWatch = "/cortex.test.Flaky/Watch"
	methodEcho  = "/cortex.test.Flaky/Echo"
)

var (
	watchDesc = &grpc.StreamDesc{StreamName: "Watch", ServerStreams: true}
	echoDesc  = &grpc.StreamDesc{StreamName: "Echo", ServerStreams: true, ClientStreams: true}
)

// step is what the server does with one call: send msgs messages (a stream: Watch sends msgs
// values, Echo echoes msgs of what it received; -1: all of them), then end with code (and
// pushback values in its trailer), or hold the call until the client gives up.
type step struct {
	code     codes.Code
	pushback []string
	msgs     int
	read     int  // Echo: the messages read before answering (0: until the client closes its side)
	header   bool // send the headers first
	hold     bool
	sleep    time.Duration       // Call: answer this much later
	refuse   *cortexgrpc.Refusal // Call: answer with this refusal's RefusedError, as a service relaying its own client's
}

// fail is a step that fails with code at once.
func fail(code codes.Code, pushback ...string) step { return step{code: code, pushback: pushback} }

// flaky is the test service's state: the script, and what each call received.
type flaky struct {
	mu       sync.Mutex
	script   []step
	calls    []int  // per call, the number of messages it received (Echo), or 1
	ended    []bool // per call, whether its handler returned
	times    []time.Time
	priority []string // per call, the x-cortex-priority metadata it carried
	clock    *engine.ManualClock
	tick     time.Duration
	// byValue, when set, answers Call by its request's value instead of the script, and
	// counts the attempts of each value in perValue.
	byValue  func(v string) codes.Code
	perValue map[string]int
}

// play sets the script of the next calls.
func (f *flaky) play(steps ...step) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, steps...)
}

// next takes the next step for a call with metadata md, and counts the call. A call also
// moves the manual clock on by the server's tick, when it has one.
func (f *flaky) next(ctx context.Context) step {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, 0)
	f.ended = append(f.ended, false)
	f.times = append(f.times, time.Now())
	f.priority = append(f.priority, firstOf(md.Get("x-cortex-priority")))
	if f.clock != nil {
		f.clock.Advance(f.tick)
	}
	s := step{code: codes.OK, msgs: 3}
	if len(f.script) > 0 {
		s, f.script = f.script[0], f.script[1:]
	}
	return s
}

// reset forgets the calls so far and the script.
func (f *flaky) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script, f.calls, f.ended, f.times, f.priority = nil, nil, nil, nil, nil
}

// finished marks the latest call's handler as returned.
func (f *flaky) finished() {
	f.mu.Lock()
	f.ended[len(f.ended)-1] = true
	f.mu.Unlock()
}

// done reports whether call i's handler has returned.
func (f *flaky) done(i int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return i < len(f.ended) && f.ended[i]
}

// received counts a message received by the latest call.
func (f *flaky) received() {
	f.mu.Lock()
	f.calls[len(f.calls)-1]++
	f.mu.Unlock()
}

// seen returns, per call so far, the messages it received.
func (f *flaky) seen() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.calls...)
}

// priorities returns, per call so far, the x-cortex-priority metadata it carried.
func (f *flaky) priorities() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.priority...)
}

// gaps returns the time between each call and the one before it.
func (f *flaky) gaps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(f.times); i++ {
		out = append(out, f.times[i].Sub(f.times[i-1]))
	}
	return out
}

func firstOf(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// end finishes a call as s says: the pushback trailer, then the status (nil for OK).
func (s step) end(setTrailer func(metadata.MD)) error {
	if len(s.pushback) > 0 {
		md := metadata.MD{}
		for _, v := range s.pushback {
			md.Append(cortexgrpc.PushbackKey, v)
		}
		setTrailer(md)
	}
	if s.code == codes.OK {
		return nil
	}
	return status.Error(s.code, "scripted "+s.code.String())
}

// call is the unary handler.
func (f *flaky) call(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	in := new(wrapperspb.StringValue)
	if err := dec(in); err != nil {
		return nil, err
	}
	if f.byValue != nil {
		f.mu.Lock()
		f.perValue[in.GetValue()]++
		f.mu.Unlock()
		if code := f.byValue(in.GetValue()); code != codes.OK {
			return nil, status.Error(code, "by value")
		}
		return wrapperspb.String("re: " + in.GetValue()), nil
	}
	s := f.next(ctx)
	f.received()
	if s.hold {
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	if s.refuse != nil {
		return nil, &cortexgrpc.RefusedError{Refusal: *s.refuse}
	}
	if s.sleep > 0 {
		select {
		case <-time.After(s.sleep):
		case <-ctx.Done():
		}
	}
	if err := s.end(func(md metadata.MD) { _ = grpc.SetTrailer(ctx, md) }); err != nil {
		return nil, err
	}
	return wrapperspb.String("re: " + in.GetValue()), nil
}

// watch is the server-streaming handler: it receives one value, sends s.msgs values, then ends.
func (f *flaky) watch(_ any, ss grpc.ServerStream) error {
	in := new(wrapperspb.StringValue)
	if err := ss.RecvMsg(in); err != nil {
		return err
	}
	s := f.next(ss.Context())
	f.received()
	if s.header {
		if err := ss.SendHeader(metadata.Pairs("attempt", "yes")); err != nil {
			return err
		}
	}
	for i := range s.msgs {
		if err := ss.SendMsg(wrapperspb.String(in.GetValue() + string(rune('a'+i)))); err != nil {
			return err
		}
	}
	if s.hold {
		<-ss.Context().Done()
		return ss.Context().Err()
	}
	return s.end(ss.SetTrailer)
}

// echo is the bidirectional handler: it receives every message until the client closes its
// side (or s.read of them), echoes the first s.msgs of them (-1: each one at once, as it comes),
// then ends.
func (f *flaky) echo(_ any, ss grpc.ServerStream) error {
	s := f.next(ss.Context())
	defer f.finished()
	var got []string
	for s.read == 0 || len(got) < s.read {
		in := new(wrapperspb.StringValue)
		err := ss.RecvMsg(in)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		f.received()
		got = append(got, in.GetValue())
		if s.msgs < 0 { // echo at once, one for one
			if err := ss.SendMsg(in); err != nil {
				return err
			}
		}
	}
	if s.msgs > 0 {
		for _, v := range got[:min(s.msgs, len(got))] {
			if err := ss.SendMsg(wrapperspb.String(v)); err != nil {
				return err
			}
		}
	}
	if s.hold {
		<-ss.Context().Done()
		return ss.Context().Err()
	}
	return s.end(ss.SetTrailer)
}

// desc is the test service's hand-written ServiceDesc.
func (f *flaky) desc() *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: "cortex.test.Flaky",
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Call", Handler: f.call}},
		Streams: []grpc.StreamDesc{
			{StreamName: "Watch", Handler: f.watch, ServerStreams: true},
			{StreamName: "Echo", Handler: f.echo, ServerStreams: true, ClientStreams: true},
		},
	}
}

// methodBench is the benchmark's method: it answers its request, keeping nothing.
const methodBench = "/cortex.test.Bench/Call"

// benchDesc is the hand-written ServiceDesc of cortex.test.Bench.
var benchDesc = grpc.ServiceDesc{
	ServiceName: "cortex.test.Bench",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{MethodName: "Call", Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		in := new(wrapperspb.StringValue)
		if err := dec(in); err != nil {
			return nil, err
		}
		return in, nil
	}}},
}

// testServer is a real grpc-go server on a free loopback port with the health service and the
// flaky test service; the test's cleanup stops it.
type testServer struct {
	addr   string
	srv    *grpc.Server
	health *health.Server
	flaky  *flaky
}

// startServer starts a testServer, stopped when the test ends.
func startServer(t testing.TB) *testServer {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ts := &testServer{addr: lis.Addr().String(), srv: grpc.NewServer(), health: health.NewServer(), flaky: &flaky{}}
	healthpb.RegisterHealthServer(ts.srv, ts.health)
	ts.srv.RegisterService(ts.flaky.desc(), nil)
	ts.srv.RegisterService(&benchDesc, nil)
	var done sync.WaitGroup
	done.Go(func() { _ = ts.srv.Serve(lis) })
	t.Cleanup(func() {
		ts.srv.Stop()
		done.Wait()
	})
	return ts
}

// dial returns a client connection to ts with opts (insecure credentials added), closed when
// the test ends.
func dial(t testing.TB, ts *testServer, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	conn, err := grpc.NewClient(ts.addr, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// attempts collects what OnAttempt receives; safe for concurrent use.
type attempts struct {
	mu  sync.Mutex
	all []cortexgrpc.Attempt
}

func (a *attempts) add(x cortexgrpc.Attempt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.all = append(a.all, x)
}

func (a *attempts) list() []cortexgrpc.Attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]cortexgrpc.Attempt(nil), a.all...)
}

// ends returns the End of every attempt so far.
func (a *attempts) ends() []cortexgrpc.End {
	var out []cortexgrpc.End
	for _, x := range a.list() {
		out = append(out, x.End)
	}
	return out
}

// client is a test's client: an Interceptor on cfg (its OnAttempt collected) over a connection
// to ts.
type client struct {
	ic   *cortexgrpc.Interceptor
	conn *grpc.ClientConn
	seen *attempts
}

// newClient builds an Interceptor on cfg with the strategy s (when non-nil) and a connection
// to ts through its unary and stream interceptors, with the extra dial options.
func newClient(t testing.TB, ts *testServer, cfg cortexgrpc.Config, s strategy.Strategy, opts ...grpc.DialOption) *client {
	t.Helper()
	if s != nil {
		cfg.Strategy = s
	}
	seen := &attempts{}
	if cfg.OnAttempt == nil {
		cfg.OnAttempt = seen.add
	}
	ic, err := cortexgrpc.New(cfg)
	require.NoError(t, err)
	opts = append(opts, grpc.WithChainUnaryInterceptor(ic.Unary()), grpc.WithChainStreamInterceptor(ic.Stream()))
	return &client{ic: ic, conn: dial(t, ts, opts...), seen: seen}
}

// call makes one unary Call with ctx and returns its reply's value and error.
func (c *client) call(ctx context.Context) (string, error) {
	out := new(wrapperspb.StringValue)
	err := c.conn.Invoke(ctx, methodCall, wrapperspb.String("x"), out)
	return out.GetValue(), err
}

// spy is a strategy that retries every retryable failure after delay, up to maxRetries times,
// answers Admit with what admit says (admits everything when nil) and keeps every call. Safe
// for concurrent use (a mutex), which the tests declare.
type spy struct {
	delay      time.Duration
	maxRetries int
	admit      func(prio, retry int) strategy.Admission

	mu       sync.Mutex
	admits   []int // priorities
	admitted int   // Admit calls that admitted
	records  []strategy.Outcome
	decides  []int // retry indexes
	pending  atomic.Int32
}

var _ strategy.Strategy = (*spy)(nil)

func newSpy(delay time.Duration, maxRetries int) *spy {
	return &spy{delay: delay, maxRetries: maxRetries}
}

func (*spy) Name() string { return "spy" }

func (s *spy) Admit(_ strategy.Time, a strategy.Attempt) strategy.Admission {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.admits = append(s.admits, a.Priority)
	var adm strategy.Admission
	if s.admit != nil {
		adm = s.admit(a.Priority, a.Retry)
	}
	if adm.Admitted() {
		s.admitted++
	}
	return adm
}

func (s *spy) Record(_ strategy.Time, _ strategy.Attempt, o strategy.Outcome, _ time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, o)
}

func (s *spy) Decide(_ strategy.Time, a strategy.Attempt, o strategy.Outcome) strategy.Verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decides = append(s.decides, a.Retry)
	switch {
	case !o.Retryable():
		return strategy.Verdict{Action: engine.NotRetryable, Reason: engine.ReasonNotRetryable}
	case a.Retry >= s.maxRetries:
		return strategy.Verdict{Action: engine.MaxRetriesExceeded, Reason: engine.ReasonMaxRetries}
	}
	return strategy.Verdict{Retry: true, Delay: s.delay, Action: engine.Retry, Reason: engine.ReasonRetry}
}

func (s *spy) SetPending(n int) { s.pending.Store(int32(n)) }

// outcomes returns the outcomes recorded, in order, the releases (Canceled) left out.
func (s *spy) outcomes() []strategy.Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []strategy.Outcome
	for _, o := range s.records {
		if o != strategy.Canceled {
			out = append(out, o)
		}
	}
	return out
}

// released returns how many admitted attempts were released without an outcome (Canceled).
func (s *spy) released() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range s.records {
		if o == strategy.Canceled {
			n++
		}
	}
	return n
}

// balanced fails the test unless every attempt the spy admitted was told its end exactly once
// (the strategy contract: one Record per admitted attempt), waiting up to 10 s for an end that
// is told when a context ends.
func (s *spy) balanced(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		admitted, told := s.admitted, len(s.records)
		s.mu.Unlock()
		if admitted == told || time.Now().After(deadline) {
			require.Equal(t, admitted, told, "one Record for every admitted attempt")
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// spyConfig is the default Config with the spy declared safe for concurrent use.
func spyConfig() cortexgrpc.Config {
	cfg := cortexgrpc.DefaultConfig()
	cfg.ConcurrentStrategy = true
	return cfg
}
