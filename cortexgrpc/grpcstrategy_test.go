package cortexgrpc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// throttledConfig is a service config with gRPC's retry policy (4 attempts, on UNAVAILABLE)
// and its retry throttling (10 tokens, 0.1 per success): what the grpc strategy models.
const throttledConfig = `{"methodConfig": [{"name": [{"service": "cortex.test.Flaky"}],
  "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.001s", "maxBackoff": "0.002s",
  "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}],
  "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`

// Asserts that the grpc strategy is gRPC's own retry throttling: the same 400 calls, each
// failing every attempt (UNAVAILABLE) or answering, go once through grpc-go's own retries
// (the service config's retryPolicy and retryThrottling) and once through cortexgrpc with the
// grpc strategy configured alike (gRPC's retries off); the server sees, call by call, the same
// number of attempts. About one call in twelve fails, so the tokens fall to the threshold,
// throttle, earn their way back and hover there, where the two could part.
func TestGRPCStrategyIsGRPCThrottling(t *testing.T) {
	failing := map[string]bool{}
	var names []string
	draw := rand.New(rand.NewPCG(5, 5))
	for i := range 400 {
		name := fmt.Sprintf("call-%03d", i)
		names = append(names, name)
		failing[name] = draw.IntN(100) < 8 // about one call in twelve: the tokens hover at the threshold
	}
	byValue := func(v string) codes.Code {
		if failing[v] {
			return codes.Unavailable
		}
		return codes.OK
	}
	run := func(opts ...grpc.DialOption) map[string]int {
		ts := startServer(t)
		ts.flaky.byValue, ts.flaky.perValue = byValue, map[string]int{}
		conn := dial(t, ts, opts...)
		for _, name := range names {
			err := conn.Invoke(context.Background(), methodCall, wrapperspb.String(name), new(wrapperspb.StringValue))
			assert.Equal(t, failing[name], err != nil, name)
		}
		ts.flaky.mu.Lock()
		defer ts.flaky.mu.Unlock()
		return ts.flaky.perValue
	}

	own := run(grpc.WithDefaultServiceConfig(throttledConfig))

	gcfg := strategy.DefaultGRPCConfig()
	gcfg.InitialBackoff, gcfg.MaxBackoff = time.Millisecond, 2*time.Millisecond
	s, err := strategy.NewGRPC(rand.New(rand.NewPCG(1, 1)), gcfg)
	require.NoError(t, err)
	cfg := cortexgrpc.DefaultConfig()
	cfg.Strategy = s
	ic, err := cortexgrpc.New(cfg)
	require.NoError(t, err)
	ours := run(ic.DialOptions()...)

	retries, throttled := 0, 0
	for _, name := range names {
		require.Equal(t, own[name], ours[name], "%s: attempts by grpc-go's own retries and by the grpc strategy", name)
		if failing[name] {
			retries += own[name] - 1
			if own[name] == 1 {
				throttled++
			}
		}
	}
	t.Logf("%d retries by each; %d failing calls throttled to one attempt", retries, throttled)
	assert.Positive(t, retries)
	assert.Positive(t, throttled, "the tokens reached the threshold")
}
