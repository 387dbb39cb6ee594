package live

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/live/proxy"
	"github.com/cortex-tui/cortex-tui/live/upstream"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// stackTarget is a small embedded target for the stack's tests: 4 workers, 1 ms of service.
func stackTarget() upstream.Config {
	cfg := upstream.DefaultConfig()
	cfg.Workers, cfg.QueueLimit, cfg.ServiceTime, cfg.Sigma = 4, 64, time.Millisecond, 0
	cfg.Warmup = 0
	return cfg
}

// buildStack builds a stack, closed when the test ends.
func buildStack(t *testing.T, b StackBuilder) *Stack {
	t.Helper()
	st, err := b(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	return st
}

// stackClient returns a client with its own pool, closed when the test ends.
func stackClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// answer is one request's status, fault header, Retry-After and body, or its error.
type answer struct {
	status            int
	fault, retryAfter string
	body              string
	err               error
}

// fetch sends GET u through c, giving up after timeout.
func fetch(c *http.Client, u *url.URL, timeout time.Duration) answer {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return answer{err: err}
	}
	res, err := c.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return answer{status: res.StatusCode, fault: res.Header.Get(proxy.FaultHeader),
		retryAfter: res.Header.Get("Retry-After"), body: string(b), err: err}
}

// Asserts that the embedded stack is one hop (its URL is the target's own address, the fault
// injector inside the target's server) and each fault's effect on real requests sent
// straight to it: an outage refuses the connection and takes the target DOWN, a blackhole
// holds the request until the client's timeout, errors answers 500 in place of the target's
// 200 (the target did the work), throttle 429 with Retry-After, bad_requests 400 without
// reaching the target, capacity and latency change the target's capacity; and that clearing
// each fault brings 200s back.
func TestEmbeddedStackFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind  scenarios.FaultKind
		value float64
		check func(t *testing.T, st *Stack, a answer, before upstream.Counters)
	}{
		{scenarios.FaultOutage, 0, func(t *testing.T, st *Stack, a answer, _ upstream.Counters) {
			require.Error(t, a.err)
			assert.True(t, errors.Is(a.err, syscall.ECONNREFUSED), "connection refused: %v", a.err)
			assert.Equal(t, upstream.StateDown, st.Target.Snapshot().State)
		}},
		{scenarios.FaultBlackhole, 0, func(t *testing.T, st *Stack, a answer, before upstream.Counters) {
			require.Error(t, a.err)
			assert.True(t, errors.Is(a.err, context.DeadlineExceeded), "held until the client gave up: %v", a.err)
			assert.Equal(t, before.Accepted, st.Target.Snapshot().Counters.Accepted, "never reached the target")
		}},
		{scenarios.FaultErrors, 1, func(t *testing.T, st *Stack, a answer, before upstream.Counters) {
			require.NoError(t, a.err)
			assert.Equal(t, http.StatusInternalServerError, a.status)
			assert.Equal(t, "errors", a.fault)
			assert.NotContains(t, a.body, "ok", "the target's body is replaced")
			assert.Equal(t, before.Accepted+1, st.Target.Snapshot().Counters.Accepted, "the target did the work")
		}},
		{scenarios.FaultThrottle, 1e-3, func(t *testing.T, _ *Stack, a answer, _ upstream.Counters) {
			// the bucket starts with one token, taken by the request sent right after Set
			require.NoError(t, a.err)
			assert.Equal(t, http.StatusTooManyRequests, a.status)
			assert.Equal(t, "throttle", a.fault)
			ra, err := strconv.Atoi(a.retryAfter)
			require.NoError(t, err)
			assert.Greater(t, ra, 900, "about 1,000 s until the next token")
		}},
		{scenarios.FaultBadRequests, 1, func(t *testing.T, st *Stack, a answer, before upstream.Counters) {
			require.NoError(t, a.err)
			assert.Equal(t, http.StatusBadRequest, a.status)
			assert.Equal(t, "bad_requests", a.fault)
			assert.Equal(t, before.Accepted, st.Target.Snapshot().Counters.Accepted, "never reached the target")
		}},
		{scenarios.FaultCapacity, 0.5, func(t *testing.T, st *Stack, a answer, _ upstream.Counters) {
			require.NoError(t, a.err)
			assert.Equal(t, http.StatusOK, a.status)
			assert.InDelta(t, 2/0.001, st.Target.Snapshot().Capacity, 1e-6, "half of 4 workers")
		}},
		{scenarios.FaultLatency, 0.001, func(t *testing.T, st *Stack, a answer, _ upstream.Counters) {
			require.NoError(t, a.err)
			assert.Equal(t, http.StatusOK, a.status)
			assert.InDelta(t, 4/0.002, st.Target.Snapshot().Capacity, 1e-6, "the service time doubled")
		}},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			st := buildStack(t, EmbeddedStack(stackTarget()))
			require.Equal(t, st.Target.Addr(), st.URL.Host, "one hop: the requests go to the target's port")
			c := stackClient(t)
			require.Equal(t, http.StatusOK, fetch(c, st.URL, wait).status)

			require.NoError(t, st.Faults.Set(tc.kind, tc.value))
			if tc.kind == scenarios.FaultThrottle {
				require.Equal(t, http.StatusOK, fetch(c, st.URL, wait).status, "the bucket's first token")
			}
			before := st.Target.Snapshot().Counters
			timeout := wait
			if tc.kind == scenarios.FaultBlackhole {
				timeout = 200 * time.Millisecond
			}
			tc.check(t, st, fetch(c, st.URL, timeout), before)

			st.Faults.Clear(tc.kind)
			a := fetch(c, st.URL, wait)
			require.NoError(t, a.err)
			assert.Equal(t, http.StatusOK, a.status, "the fault is over")
			assert.Equal(t, "ok\n", a.body)
		})
	}
}

// Asserts that an outage releases the requests a blackhole holds in the embedded target (their
// connections closed without an answer, counted as dropped by the injector) and that the
// stack's Close releases them too, leaving no goroutine behind.
func TestEmbeddedStackReleasesHeld(t *testing.T) {
	noLeaks(t)
	st := buildStack(t, EmbeddedStack(stackTarget()))
	inj := st.Faults.(*proxy.Injector)
	c := stackClient(t)
	require.NoError(t, inj.Set(scenarios.FaultBlackhole, 0))
	got := make(chan answer, 2)
	for range 2 {
		go func() { got <- fetch(c, st.URL, time.Hour) }()
	}
	require.Eventually(t, func() bool { return inj.Counters().Blackholed == 2 }, wait, time.Millisecond)
	require.NoError(t, inj.Set(scenarios.FaultOutage, 0))
	for range 2 {
		a := <-got
		assert.Error(t, a.err, "no answer: the connection was closed")
	}
	assert.Equal(t, int64(2), inj.Counters().Dropped)
	assert.Zero(t, inj.Counters().Canceled)

	inj.ClearAll()
	require.NoError(t, inj.Set(scenarios.FaultBlackhole, 0))
	go func() { got <- fetch(c, st.URL, time.Hour) }()
	require.Eventually(t, func() bool { return inj.Counters().Blackholed == 3 }, wait, time.Millisecond)
	require.NoError(t, st.Close())
	assert.Error(t, (<-got).err, "Close released the held request")
	assert.ErrorIs(t, inj.Set(scenarios.FaultErrors, 0.5), proxy.ErrClosed)
}

// Asserts that a user's service (--target) is still reached through the fault proxy, two
// hops, with the same faults: errors replaces its 200 by a 500 and the service saw the request.
func TestExternalStackFaults(t *testing.T) {
	t.Parallel()
	hits := make(chan struct{}, 8)
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits <- struct{}{}
		_, _ = io.WriteString(w, "svc")
	}))
	defer svc.Close()
	u, err := url.Parse(svc.URL + "/api?x=1")
	require.NoError(t, err)
	st := buildStack(t, ExternalStack(u, DefaultDrainLimit))
	assert.NotEqual(t, u.Host, st.URL.Host, "the proxy's address")
	assert.Equal(t, "/api", st.URL.Path)
	c := stackClient(t)
	assert.Equal(t, "svc", fetch(c, st.URL, wait).body)
	require.NoError(t, st.Faults.Set(scenarios.FaultErrors, 1))
	a := fetch(c, st.URL, wait)
	assert.Equal(t, http.StatusInternalServerError, a.status)
	assert.Equal(t, "errors", a.fault)
	assert.Len(t, hits, 2, "the service did the work both times")
	assert.Error(t, st.Faults.Set(scenarios.FaultCapacity, 0.5), "no capacity control over a user's service")
}

// observation is what two requests through a stack show of its service: each one's outcome
// (its status and fault header, or the kind of error), then the embedded target's state and
// capacity.
type observation struct {
	outcomes [2]string
	state    upstream.State
	capacity float64
}

// observe sends two requests through st, each given up after timeout, and reads the target.
func observe(c *http.Client, st *Stack, timeout time.Duration) observation {
	var o observation
	for i := range o.outcomes {
		a := fetch(c, st.URL, timeout)
		switch {
		case errors.Is(a.err, syscall.ECONNREFUSED):
			o.outcomes[i] = "refused"
		case errors.Is(a.err, context.DeadlineExceeded):
			o.outcomes[i] = "timeout"
		case a.err != nil:
			o.outcomes[i] = "error"
		default:
			o.outcomes[i] = strconv.Itoa(a.status) + " " + a.fault
		}
	}
	s := st.Target.Snapshot()
	o.state, o.capacity = s.State, s.Capacity
	return o
}

// strongValue is a value of spec's unit whose effect two requests show: every request (a
// share of 1), a rate with no token for the second request, a quarter of the workers, a
// millisecond more of service time (twice the target's). A new unit needs its value here.
func strongValue(t *testing.T, spec scenarios.FaultSpec) float64 {
	switch spec.Unit {
	case scenarios.UnitNone:
		return 0
	case scenarios.UnitFraction:
		return 1
	case scenarios.UnitRate:
		return 1e-3
	case scenarios.UnitFactor:
		return 0.25
	case scenarios.UnitSeconds:
		return 0.001
	}
	t.Fatalf("%s: no strong value for its unit %d", spec.Kind, spec.Unit)
	return 0
}

// Asserts that every fault kind of the table acts in live mode, as TestEveryFaultKindActs
// asserts it for the simulator: set alone on the embedded stack (the injector inside the
// target), each changes what two requests see or the target's state and capacity, and no two
// kinds look alike. A kind whose lever live mode does not implement fails here.
func TestEveryFaultKindActsLive(t *testing.T) {
	t.Parallel()
	c := stackClient(t)
	base := observe(c, buildStack(t, EmbeddedStack(stackTarget())), wait)
	require.Equal(t, [2]string{"200 ", "200 "}, base.outcomes)
	seen := map[observation]scenarios.FaultKind{}
	for _, spec := range scenarios.FaultSpecs() {
		st := buildStack(t, EmbeddedStack(stackTarget()))
		require.NoError(t, st.Faults.Set(spec.Kind, strongValue(t, spec)), "%s", spec.Kind)
		// Every answer has its time on a loaded machine (300 ms for all, the errors' 500s
		// ran out of it beside this package's parallel tests under -race); the blackhole holds
		// its requests until the client gives up, and is given 300 ms.
		timeout := wait
		if spec.Kind == scenarios.FaultBlackhole {
			timeout = 300 * time.Millisecond
		}
		got := observe(c, st, timeout)
		assert.NotEqual(t, base, got, "%s does nothing in live mode", spec.Kind)
		if other, ok := seen[got]; ok {
			assert.Fail(t, "two kinds act alike", "%s and %s: %+v", other, spec.Kind, got)
		}
		seen[got] = spec.Kind
	}
}
