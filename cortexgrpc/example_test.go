package cortexgrpc_test

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// A service that fails twice with UNAVAILABLE and then answers: the CORTEX strategy retries
// both failures, and OnAttempt shows every attempt and its decision. The engine runs in
// deterministic mode on a manual clock (its delays are the midpoints of their ranges) with a
// 1 ms backoff base, so the output is the same on every run; in production the three lines
// with cortexgrpc.DefaultConfig() are all it takes.
//
// The delays are the midpoints of [0, 1ms * 2^retry * (1 + 10*CPS)]. After the first failure
// the failure rate F is 1, so CPS = 0.30 (F's weight) and the delay 1ms * 4 / 2 = 2ms; after
// the second, the retry already taken has burnt one of the 500 budget tokens (signal B =
// 0.002, weight 0.15), so CPS = 0.3003 and the delay 2ms * 4.003 / 2 = 4.003ms.
func Example() {
	addr, stop := exampleServer(2)
	defer stop()

	cfg := cortexgrpc.DefaultConfig()
	cfg.Strategy = exampleCortex()
	cfg.OnAttempt = func(a cortexgrpc.Attempt) {
		fmt.Printf("attempt %d: %s", a.Retry, a.Code)
		if a.Decided {
			fmt.Printf(", %s %s", a.Verdict.Action, a.Verdict.Reason)
		}
		if a.End == cortexgrpc.EndRetry {
			fmt.Printf(", retry in %v\n", a.Delay)
		} else {
			fmt.Printf(", %s\n", a.End)
		}
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(cortexgrpc.Unary(cfg)))
	if err != nil {
		panic(err)
	}
	defer conn.Close()

	out := new(wrapperspb.StringValue)
	err = conn.Invoke(cortexgrpc.WithPriority(context.Background(), 9), "/example.Greeter/Hello", wrapperspb.String("you"), out)
	fmt.Println(status.Code(err), out.GetValue())
	// Output:
	// attempt 0: Unavailable, RETRY RETRY, retry in 2ms
	// attempt 1: Unavailable, RETRY RETRY, retry in 4.003ms
	// attempt 2: OK, SUCCESS
	// OK hello you
}

// One Interceptor for a channel's unary and stream calls, with gRPC's own retries turned off,
// so that the strategy alone retries every method whatever the service config says. Here the
// none strategy, which never retries, against a server that always fails: the call ends with
// the server's status after one attempt.
func ExampleInterceptor_DialOptions() {
	addr, stop := exampleServer(1000)
	defer stop()

	cfg := cortexgrpc.DefaultConfig()
	cfg.Strategy = strategy.NewNone()
	ic, err := cortexgrpc.New(cfg)
	if err != nil {
		panic(err)
	}
	conn, err := grpc.NewClient(addr, append(ic.DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		panic(err)
	}
	defer conn.Close()

	err = conn.Invoke(context.Background(), "/example.Greeter/Hello", wrapperspb.String("you"), new(wrapperspb.StringValue))
	fmt.Println(status.Code(err), ic.Strategy().Name())
	// Output:
	// Unavailable none
}

// exampleCortex is a CORTEX strategy whose delays are the same on every run: a deterministic
// engine on a manual clock, with a 1 ms backoff base.
func exampleCortex() strategy.Strategy {
	ecfg := engine.DefaultConfig()
	ecfg.Deterministic = true
	ecfg.Seed = 1
	ecfg.BackoffBaseDelay = time.Millisecond
	ecfg.Clock = engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	eng, err := engine.New(ecfg)
	if err != nil {
		panic(err)
	}
	cortex, err := strategy.NewCortex(eng)
	if err != nil {
		panic(err)
	}
	return cortex
}

// exampleServer starts a gRPC server on a free loopback port whose example.Greeter/Hello
// answers UNAVAILABLE to its first failures calls, then "hello NAME". It returns the address
// and a function that stops it.
func exampleServer(failures int32) (addr string, stop func()) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	var calls atomic.Int32
	srv := grpc.NewServer()
	srv.RegisterService(&grpc.ServiceDesc{
		ServiceName: "example.Greeter",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Hello", Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			in := new(wrapperspb.StringValue)
			if err := dec(in); err != nil {
				return nil, err
			}
			if calls.Add(1) <= failures {
				return nil, status.Error(codes.Unavailable, "busy")
			}
			return wrapperspb.String("hello " + in.GetValue()), nil
		}}},
	}, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	return lis.Addr().String(), func() {
		srv.Stop()
		<-done
	}
}
