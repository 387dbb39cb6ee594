package proxy

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts that what the proxy does for each fault, and for a dead target, is classified by the
// cortexhttp transport as the simulator classifies the same fault (sim/service.go): outage and
// a dead target or one that hangs up FastFail, blackhole and latency Timeout (the client's deadline), errors
// ServerError, throttle Throttled, bad_requests BadRequest, and no fault Success.
func TestClientClassifiesLikeTheSimulator(t *testing.T) {
	up := newOrigin(t, nil)
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadURL := &url.URL{Scheme: "http", Host: dead.Addr().String()}
	require.NoError(t, dead.Close())

	tests := []struct {
		name   string
		kind   scenarios.FaultKind
		value  float64
		target *url.URL
		want   strategy.Outcome
	}{
		{name: "none", want: strategy.Success},
		{name: "outage", kind: scenarios.FaultOutage, want: strategy.FastFail},
		{name: "blackhole", kind: scenarios.FaultBlackhole, want: strategy.Timeout},
		{name: "latency", kind: scenarios.FaultLatency, value: 600, want: strategy.Timeout},
		{name: "errors", kind: scenarios.FaultErrors, value: 1, want: strategy.ServerError},
		{name: "throttle", kind: scenarios.FaultThrottle, value: 1e-3, want: strategy.Throttled},
		{name: "bad_requests", kind: scenarios.FaultBadRequests, value: 1, want: strategy.BadRequest},
		{name: "dead target", target: deadURL, want: strategy.FastFail},
		{name: "target hangs up", target: newOrigin(t, hijackAndClose).url(t), want: strategy.FastFail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := tt.target
			if target == nil {
				target = up.url(t)
			}
			p := startProxy(t, Config{Target: target})
			if tt.kind != "" {
				require.NoError(t, p.Set(tt.kind, tt.value))
			}
			if tt.kind == scenarios.FaultThrottle { // spend the one token
				require.Equal(t, http.StatusOK, get(client(t), p.URL().String(), 0).status)
			}
			var mu sync.Mutex
			var attempts []cortexhttp.Attempt
			cfg := cortexhttp.DefaultConfig()
			cfg.Base = client(t).Transport
			cfg.Strategy = strategy.NewNone()
			cfg.OnAttempt = func(a cortexhttp.Attempt) { mu.Lock(); attempts = append(attempts, a); mu.Unlock() }
			rt, err := cortexhttp.New(cfg)
			require.NoError(t, err)

			ctx, cancel := context.WithTimeout(context.Background(), giveUp)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL().String(), nil)
			require.NoError(t, err)
			resp, err := rt.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, attempts, 1)
			assert.True(t, attempts[0].Recorded)
			assert.Equal(t, tt.want, attempts[0].Outcome, "status %d, err %v", attempts[0].StatusCode, attempts[0].Err)
		})
	}
}
