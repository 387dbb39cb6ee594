package proxy

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// giveUp is how long a client waits for a request that the fault never answers: long enough
// to be sure the answer is not coming on a quick machine, short enough for the test to end.
const giveUp = 150 * time.Millisecond

// Asserts that each fault kind has its effect on a real request through the proxy, seen by a
// real http.Client, that the target is contacted only when the fault says so, and that after
// Clear the same URL serves again.
func TestEachFaultEffect(t *testing.T) {
	tests := []struct {
		kind    scenarios.FaultKind
		value   float64
		timeout time.Duration // the client's (0: none)
		hits    int64         // requests the target saw
		check   func(t *testing.T, r result, c Counters)
	}{
		{kind: "", hits: 1, check: func(t *testing.T, r result, c Counters) {
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusOK, r.status)
			assert.Equal(t, "ok", r.body)
			assert.Empty(t, r.header.Get(FaultHeader))
			assert.Equal(t, int64(1), c.Forwarded)
		}},
		{kind: scenarios.FaultOutage, check: func(t *testing.T, r result, c Counters) {
			assert.True(t, errors.Is(r.err, syscall.ECONNREFUSED), "want connection refused, got %v", r.err)
			assert.Equal(t, int64(1), c.Outages)
			assert.Zero(t, c.Requests)
		}},
		{kind: scenarios.FaultBlackhole, timeout: giveUp, check: func(t *testing.T, r result, c Counters) {
			assert.True(t, errors.Is(r.err, context.DeadlineExceeded), "want the client's timeout, got %v", r.err)
			assert.Equal(t, int64(1), c.Blackholed)
			assert.Zero(t, c.Forwarded)
		}},
		{kind: scenarios.FaultLatency, value: 600, timeout: giveUp, check: func(t *testing.T, r result, c Counters) {
			assert.True(t, errors.Is(r.err, context.DeadlineExceeded), "want the client's timeout, got %v", r.err)
			assert.Equal(t, int64(1), c.Delayed)
			assert.Zero(t, c.Forwarded, "the delay comes before forwarding")
		}},
		{kind: scenarios.FaultErrors, value: 1, hits: 1, check: func(t *testing.T, r result, c Counters) {
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusInternalServerError, r.status)
			assert.Equal(t, "errors", r.header.Get(FaultHeader))
			assert.Equal(t, int64(1), c.Forwarded, "the target did the work")
			assert.Equal(t, int64(1), c.Errors)
		}},
		{kind: scenarios.FaultThrottle, value: 1e-3, hits: 1, check: func(t *testing.T, r result, c Counters) {
			// the bucket starts with one token: the first request passes (checked by hits),
			// this second one is throttled; the next token is 1000 s away
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusTooManyRequests, r.status)
			assert.Equal(t, "1000", r.header.Get("Retry-After"))
			assert.Equal(t, int64(1), c.Throttled)
		}},
		{kind: scenarios.FaultBadRequests, value: 1, check: func(t *testing.T, r result, c Counters) {
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusBadRequest, r.status)
			assert.Equal(t, "bad_requests", r.header.Get(FaultHeader))
			assert.Equal(t, int64(1), c.BadRequests)
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			up := newOrigin(t, nil)
			clock := engine.NewManualClock(time.Unix(0, 0))
			p := startProxy(t, Config{Target: up.url(t)}, WithClock(clock))
			c := client(t)
			u := p.URL().String()
			if tt.kind != "" {
				require.NoError(t, p.Set(tt.kind, tt.value))
			}
			if tt.kind == scenarios.FaultThrottle {
				first := get(c, u, 0)
				require.NoError(t, first.err)
				require.Equal(t, http.StatusOK, first.status)
			}
			r := get(c, u, tt.timeout)
			tt.check(t, r, p.Counters())
			assert.Equal(t, tt.hits, up.hits.Load(), "requests that reached the target")

			p.Clear(tt.kind)
			require.Empty(t, p.Active())
			r = get(c, u, 0)
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusOK, r.status, "served again after Clear")
			assert.Equal(t, p.URL().String(), u, "same address")
			if tt.timeout > 0 {
				eventually(t, func() bool { return p.Counters().Canceled == 1 }, "the client's giving up is counted")
			}
		})
	}
}

// Asserts that the throttle fault is a token bucket of the rate with a burst of one second's
// worth: requests above it are answered 429 with a Retry-After of the whole seconds until the
// next token, and tokens come back with time (on the injected clock).
func TestThrottleTokenBucket(t *testing.T) {
	up := newOrigin(t, nil)
	clock := engine.NewManualClock(time.Unix(0, 0))
	p := startProxy(t, Config{Target: up.url(t)}, WithClock(clock))
	c := client(t)
	u := p.URL().String()
	status := func() (int, string) {
		r := get(c, u, 0)
		require.NoError(t, r.err)
		return r.status, r.header.Get("Retry-After")
	}

	require.NoError(t, p.Set(scenarios.FaultThrottle, 2))
	for i := range 2 { // burst: one second's worth
		s, _ := status()
		assert.Equal(t, http.StatusOK, s, "request %d within the burst", i)
	}
	s, ra := status()
	assert.Equal(t, http.StatusTooManyRequests, s)
	assert.Equal(t, "1", ra, "half a second to the next token, rounded up to whole seconds")
	clock.Advance(500 * time.Millisecond) // one token back
	s, _ = status()
	assert.Equal(t, http.StatusOK, s)
	s, _ = status()
	assert.Equal(t, http.StatusTooManyRequests, s)

	// a slow rate: one token every 4 s; the bucket restarts full when the fault is replaced
	require.NoError(t, p.Set(scenarios.FaultThrottle, 0.25))
	s, _ = status()
	assert.Equal(t, http.StatusOK, s)
	s, ra = status()
	assert.Equal(t, http.StatusTooManyRequests, s)
	assert.Equal(t, "4", ra)
	clock.Advance(3 * time.Second)
	s, ra = status()
	assert.Equal(t, http.StatusTooManyRequests, s)
	assert.Equal(t, "1", ra, "a quarter of a token missing: one second")
	assert.Equal(t, int64(4), up.hits.Load())
	assert.Equal(t, int64(4), p.Counters().Throttled)

	// a vanishing rate: Retry-After bounded, not overflowed
	require.NoError(t, p.Set(scenarios.FaultThrottle, 1e-300))
	s, _ = status()
	assert.Equal(t, http.StatusOK, s)
	s, ra = status()
	assert.Equal(t, http.StatusTooManyRequests, s)
	assert.Equal(t, strconv.Itoa(maxRetryAfter), ra)
}

// Asserts that the errors and bad_requests fractions are Bernoulli draws from the injected
// random source, in the simulator's order: bad_requests when the request arrives (not
// forwarded), errors on the answer of a request the target served (forwarded).
func TestFractionsDrawInOrder(t *testing.T) {
	const n, fBad, fErr = 60, 0.3, 0.5
	up := newOrigin(t, nil)
	p := startProxy(t, Config{Target: up.url(t)}, WithRand(rand.New(rand.NewPCG(7, 8))))
	c := client(t)
	require.NoError(t, p.Set(scenarios.FaultBadRequests, fBad))
	require.NoError(t, p.Set(scenarios.FaultErrors, fErr))

	// the same draws, replayed
	rng := rand.New(rand.NewPCG(7, 8))
	var want []int
	var hits int64
	for range n {
		switch {
		case rng.Float64() < fBad:
			want = append(want, http.StatusBadRequest)
		case rng.Float64() < fErr:
			want, hits = append(want, http.StatusInternalServerError), hits+1
		default:
			want, hits = append(want, http.StatusOK), hits+1
		}
	}
	var got []int
	for range n {
		r := get(c, p.URL().String(), 0)
		require.NoError(t, r.err)
		got = append(got, r.status)
	}
	assert.Equal(t, want, got)
	assert.Equal(t, hits, up.hits.Load())
	assert.Contains(t, got, http.StatusOK)
	assert.Contains(t, got, http.StatusBadRequest)
	assert.Contains(t, got, http.StatusInternalServerError)
}

// Asserts that the errors fault strikes only answers the target served: a 503 of the target
// (queue full) passes unchanged.
func TestErrorsLeaveRefusalsAlone(t *testing.T) {
	up := newOrigin(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "queue full", http.StatusServiceUnavailable)
	})
	p := startProxy(t, Config{Target: up.url(t)})
	require.NoError(t, p.Set(scenarios.FaultErrors, 1))
	r := get(client(t), p.URL().String(), 0)
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusServiceUnavailable, r.status)
	assert.Empty(t, r.header.Get(FaultHeader))
	assert.Zero(t, p.Counters().Errors)
}

// Asserts that the hooks carry the capacity, latency and outage faults to the target: each is
// called with the value on Set and with its neutral value on Clear; with the latency hook the
// proxy itself adds no delay; the outage hook is called after the proxy stopped listening and
// before it listens again; without a capacity hook the capacity fault is refused.
func TestHooks(t *testing.T) {
	up := newOrigin(t, nil)
	var calls []string
	var p *Proxy
	refused := func() bool {
		_, err := http.Get(p.URL().String())
		return errors.Is(err, syscall.ECONNREFUSED)
	}
	cfg := Config{
		Target:   up.url(t),
		Capacity: func(f float64) { calls = append(calls, "capacity "+strconv.FormatFloat(f, 'g', -1, 64)) },
		Latency:  func(d time.Duration) { calls = append(calls, "latency "+d.String()) },
		Outage: func(down bool) {
			calls = append(calls, "outage "+strconv.FormatBool(down)+" refused "+strconv.FormatBool(refused()))
		},
	}
	p = startProxy(t, cfg)
	c := client(t)

	require.NoError(t, p.Set(scenarios.FaultCapacity, 0.3))
	require.NoError(t, p.Set(scenarios.FaultCapacity, 0.5))
	p.Clear(scenarios.FaultCapacity)
	require.NoError(t, p.Set(scenarios.FaultLatency, 600))
	r := get(c, p.URL().String(), 0) // no proxy delay: this would hang ten minutes
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status)
	p.Clear(scenarios.FaultLatency)
	require.NoError(t, p.Set(scenarios.FaultOutage, 0))
	p.Clear(scenarios.FaultOutage)
	p.Clear(scenarios.FaultOutage) // not active: no call
	assert.Equal(t, []string{
		"capacity 0.3", "capacity 0.5", "capacity 1",
		"latency 10m0s", "latency 0s",
		"outage true refused true", "outage false refused true",
	}, calls)
	assert.Zero(t, p.Counters().Delayed)

	bare := startProxy(t, Config{Target: up.url(t)})
	err := bare.Set(scenarios.FaultCapacity, 0.3)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Config.Capacity")
	assert.Empty(t, bare.Active())
}

// Asserts that Set checks the value against the bounds of the table of fault kinds, with an
// error naming the field at fault, and leaves the faults as they were.
func TestSetRejectsBadValues(t *testing.T) {
	up := newOrigin(t, nil)
	p := startProxy(t, Config{Target: up.url(t), Capacity: func(float64) {}})
	tests := []struct {
		kind  scenarios.FaultKind
		value float64
		want  string
	}{
		{"nope", 0, `unknown kind "nope"`},
		{scenarios.FaultOutage, 1, "kind outage takes no value"},
		{scenarios.FaultBlackhole, -1, "kind blackhole takes no value"},
		{scenarios.FaultLatency, 0, "latency must be a duration"},
		{scenarios.FaultLatency, 601, "latency must be a duration"},
		{scenarios.FaultErrors, 1.5, "fraction must be in (0, 1]"},
		{scenarios.FaultErrors, math.NaN(), "fraction must be in (0, 1]"},
		{scenarios.FaultThrottle, 0, "rate must be a rate > 0"},
		{scenarios.FaultThrottle, math.Inf(1), "rate must be a rate > 0"},
		{scenarios.FaultCapacity, 0, "factor must be a factor in (0, 1]"},
		{scenarios.FaultBadRequests, -0.1, "fraction must be in (0, 1]"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			err := p.Set(tt.kind, tt.value)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, p.Active())
		})
	}
}

// Asserts that Active lists the faults in table order whatever the order they were set in,
// that Set replaces a fault's value, and that Clear and ClearAll end them.
func TestSetReplaceClear(t *testing.T) {
	up := newOrigin(t, nil)
	p := startProxy(t, Config{Target: up.url(t)})
	require.NoError(t, p.Set(scenarios.FaultThrottle, 10))
	require.NoError(t, p.Set(scenarios.FaultErrors, 0.5))
	require.NoError(t, p.Set(scenarios.FaultBlackhole, 0))
	assert.Equal(t, []Fault{{scenarios.FaultBlackhole, 0}, {scenarios.FaultErrors, 0.5}, {scenarios.FaultThrottle, 10}}, p.Active())

	require.NoError(t, p.Set(scenarios.FaultErrors, 0.2))
	assert.Equal(t, []Fault{{scenarios.FaultBlackhole, 0}, {scenarios.FaultErrors, 0.2}, {scenarios.FaultThrottle, 10}}, p.Active())
	assert.Equal(t, "errors 20%", p.Active()[1].String())

	p.Clear(scenarios.FaultBlackhole)
	p.Clear("nope")
	assert.Equal(t, []Fault{{scenarios.FaultErrors, 0.2}, {scenarios.FaultThrottle, 10}}, p.Active())
	p.ClearAll()
	assert.Empty(t, p.Active())
	r := get(client(t), p.URL().String(), 0)
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status)
}
