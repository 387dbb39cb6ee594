package cortexgrpc_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// BenchmarkUnary measures what the unary interceptor adds to each call, in one run:
//
//   - grpc/bare and grpc/cortexgrpc: a unary call to a real grpc-go server on 127.0.0.1 over a
//     connection without an interceptor, then over one through cortexgrpc (the default CORTEX
//     strategy). Their allocs/op differ by what the interceptor makes gRPC allocate (the
//     trailer it asks for, where the pushback comes from).
//   - grpc/paired: the same two, alternated call by call and timed one by one, so that the
//     machine's drift falls on both alike; it reports the median of each side and of their
//     paired differences, overhead-ns/call, and the allocations each side makes per call
//     (testing.AllocsPerRun over 500 calls), extra-allocs/call. grpc/paired-no-pushback is the
//     same with MaxPushback 0: no trailer asked for, none of gRPC's allocations for it.
//   - stub/bare and stub/cortexgrpc: the same through an invoker that answers from memory, so
//     ns/op and allocs/op of stub/cortexgrpc are the interceptor's own cost per successful
//     call (CORTEX's Admit and Record included), free of the network's noise. stub/locked is
//     the same with a strategy that is not safe for concurrent use (backoff), whose calls the
//     interceptor serialises with a mutex.
//   - stub/retry: every call fails once (UNAVAILABLE) and is retried at once (naive strategy),
//     so ns/attempt and allocs/op show the retry path.
func BenchmarkUnary(b *testing.B) {
	ts := startServer(b)
	bare := dial(b, ts)
	through := dial(b, ts, grpc.WithChainUnaryInterceptor(mustInterceptor(b, nil).Unary()))
	noPushback := cortexgrpc.DefaultConfig()
	noPushback.MaxPushback = 0
	ic, err := cortexgrpc.New(noPushback)
	if err != nil {
		b.Fatal(err)
	}
	noTrailer := dial(b, ts, grpc.WithChainUnaryInterceptor(ic.Unary()))
	in := wrapperspb.String("x")

	b.Run("grpc/bare", func(b *testing.B) { benchConn(b, bare, in) })
	b.Run("grpc/cortexgrpc", func(b *testing.B) { benchConn(b, through, in) })
	b.Run("grpc/paired", func(b *testing.B) { benchPaired(b, bare, through, in) })
	b.Run("grpc/paired-no-pushback", func(b *testing.B) { benchPaired(b, bare, noTrailer, in) })

	ctx := context.Background()
	ok := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	b.Run("stub/bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = ok(ctx, methodBench, in, in, nil)
		}
	})
	b.Run("stub/cortexgrpc", func(b *testing.B) { benchStub(b, mustInterceptor(b, nil).Unary(), ok, 1) })
	b.Run("stub/locked", func(b *testing.B) {
		s, err := strategy.NewBackoff(rand.New(rand.NewPCG(1, 2)), strategy.DefaultBackoffConfig())
		if err != nil {
			b.Fatal(err)
		}
		benchStub(b, mustInterceptor(b, s).Unary(), ok, 1)
	})
	b.Run("stub/retry", func(b *testing.B) {
		n := 0
		unavailable := status.Error(codes.Unavailable, "busy")
		failOnce := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
			n++
			if n%2 == 1 {
				return unavailable
			}
			return nil
		}
		benchStub(b, mustInterceptor(b, strategy.NewNaive()).Unary(), failOnce, 2)
	})
}

// benchConn makes b.N unary calls on conn.
func benchConn(b *testing.B, conn *grpc.ClientConn, in *wrapperspb.StringValue) {
	out := new(wrapperspb.StringValue)
	b.ReportAllocs()
	for b.Loop() {
		if err := conn.Invoke(context.Background(), methodBench, in, out); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStub calls the interceptor b.N times around invoker, and reports the time per attempt
// (attempts per call: perCall).
func benchStub(b *testing.B, ic grpc.UnaryClientInterceptor, invoker grpc.UnaryInvoker, perCall int) {
	ctx := context.Background()
	in := wrapperspb.String("x")
	b.ReportAllocs()
	for b.Loop() {
		if err := ic(ctx, methodBench, in, in, nil, invoker); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perCall), "ns/attempt")
}

// benchPaired alternates a call on bare and one on through, b.N times each, timing every one,
// and reports the median of each side and of the paired differences: medians, because a loaded
// machine stalls a few calls by milliseconds, which would swamp a mean. It also reports the
// allocations per call of each side and their difference. Its own samples are not counted as
// allocations (the other sub-benchmarks report those).
func benchPaired(b *testing.B, bare, through *grpc.ClientConn, in *wrapperspb.StringValue) {
	out := new(wrapperspb.StringValue)
	one := func(conn *grpc.ClientConn) time.Duration {
		start := time.Now()
		if err := conn.Invoke(context.Background(), methodBench, in, out); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	tBare, tThrough, diff := make([]time.Duration, b.N), make([]time.Duration, b.N), make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 { // alternate which goes first, so neither always follows the other
			tBare[i] = one(bare)
			tThrough[i] = one(through)
		} else {
			tThrough[i] = one(through)
			tBare[i] = one(bare)
		}
		diff[i] = tThrough[i] - tBare[i]
	}
	b.StopTimer()
	allocsBare := testing.AllocsPerRun(500, func() { one(bare) })
	allocsThrough := testing.AllocsPerRun(500, func() { one(through) })
	b.ReportMetric(float64(median(tBare)), "bare-ns/call")
	b.ReportMetric(float64(median(tThrough)), "cortexgrpc-ns/call")
	b.ReportMetric(float64(median(diff)), "overhead-ns/call")
	b.ReportMetric(allocsBare, "bare-allocs/call")
	b.ReportMetric(allocsThrough-allocsBare, "extra-allocs/call")
}

// median returns the median of d (sorting d).
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	if len(d) == 0 {
		return 0
	}
	return d[len(d)/2]
}

// mustInterceptor is an Interceptor on the default Config with strategy s (nil: CORTEX).
func mustInterceptor(b testing.TB, s strategy.Strategy) *cortexgrpc.Interceptor {
	cfg := cortexgrpc.DefaultConfig()
	cfg.Strategy = s
	ic, err := cortexgrpc.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return ic
}
