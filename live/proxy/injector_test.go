package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// injected starts a server whose handler is next behind inj, closed when the test ends.
func injected(t *testing.T, inj *Injector, next http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(inj.Wrap(next))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = inj.Close() })
	return srv
}

// Asserts the errors fault through the middleware: an answer below 400 is replaced by a 500
// whose headers are the injector's (none of the handler's: its Content-Length and own header
// described the answer replaced) and whose body is not the handler's, however the handler
// writes (WriteHeader, a bare Write, a Flush first); an answer of 400 or more passes as it is.
func TestInjectorErrorsReplaceAnswer(t *testing.T) {
	handlers := map[string]http.HandlerFunc{
		"WriteHeader": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Mine", "1")
			w.Header().Set("Content-Length", "4")
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, "mine")
		},
		"Write": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Mine", "1")
			_, _ = io.WriteString(w, "mine")
		},
		"Flush": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Mine", "1")
			http.NewResponseController(w).Flush()
			_, _ = io.WriteString(w, "mine")
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			inj := NewInjector(InjectorConfig{})
			srv := injected(t, inj, h)
			require.NoError(t, inj.Set(scenarios.FaultErrors, 1))
			r := get(client(t), srv.URL, wait)
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusInternalServerError, r.status)
			assert.Equal(t, "errors", r.header.Get(FaultHeader))
			assert.Empty(t, r.header.Get("X-Mine"))
			assert.NotContains(t, r.body, "mine")
			assert.Equal(t, int64(1), inj.Counters().Errors)
		})
	}
	t.Run("refusal passes", func(t *testing.T) {
		inj := NewInjector(InjectorConfig{})
		srv := injected(t, inj, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "queue full", http.StatusServiceUnavailable)
		}))
		require.NoError(t, inj.Set(scenarios.FaultErrors, 1))
		r := get(client(t), srv.URL, wait)
		require.NoError(t, r.err)
		assert.Equal(t, http.StatusServiceUnavailable, r.status)
		assert.Equal(t, "queue full\n", r.body)
		assert.Zero(t, inj.Counters().Errors)
	})
}

// Asserts the outage through the middleware: the Outage hook is called with true then false,
// a request arriving while the outage is on (the hook could not close the listener here) gets
// no answer and never reaches the handler, and the handler is reached again once cleared.
func TestInjectorOutage(t *testing.T) {
	var calls []bool
	var hits atomic.Int64
	inj := NewInjector(InjectorConfig{Outage: func(down bool) { calls = append(calls, down) }})
	srv := injected(t, inj, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	c := client(t)
	require.NoError(t, inj.Set(scenarios.FaultOutage, 0))
	require.NoError(t, inj.Set(scenarios.FaultOutage, 0), "setting it again calls no hook")
	assert.Error(t, get(c, srv.URL, wait).err)
	assert.Zero(t, hits.Load())
	inj.Clear(scenarios.FaultOutage)
	assert.Equal(t, "ok", get(c, srv.URL, wait).body)
	assert.Equal(t, []bool{true, false}, calls)
	assert.Equal(t, int64(1), inj.Counters().Outages)
}

// Asserts the latency fault without a Latency hook: the request is delayed (counted in
// Delayed, then Forwarded once the delay is over) and then answered by the handler; with the
// hook, the hook gets the added time and the request passes at once.
func TestInjectorLatency(t *testing.T) {
	inj := NewInjector(InjectorConfig{})
	srv := injected(t, inj, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	require.NoError(t, inj.Set(scenarios.FaultLatency, 0.001))
	assert.Equal(t, "ok", get(client(t), srv.URL, wait).body)
	n := inj.Counters()
	assert.Equal(t, int64(1), n.Delayed)
	assert.Equal(t, int64(1), n.Forwarded)

	var got []time.Duration
	inj2 := NewInjector(InjectorConfig{Latency: func(d time.Duration) { got = append(got, d) }})
	srv2 := injected(t, inj2, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	require.NoError(t, inj2.Set(scenarios.FaultLatency, 0.25))
	assert.Equal(t, "ok", get(client(t), srv2.URL, wait).body)
	inj2.ClearAll()
	assert.Equal(t, []time.Duration{250 * time.Millisecond, 0}, got)
	assert.Zero(t, inj2.Counters().Delayed)
}

// Asserts the injector's controls: a capacity fault needs the Capacity hook (the error says
// so), Active lists the faults in the table's order, and Set after Close is ErrClosed.
func TestInjectorControls(t *testing.T) {
	inj := NewInjector(InjectorConfig{})
	err := inj.Set(scenarios.FaultCapacity, 0.5)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Config.Capacity is nil")
	require.NoError(t, inj.Set(scenarios.FaultThrottle, 5))
	require.NoError(t, inj.Set(scenarios.FaultBlackhole, 0))
	assert.Equal(t, []Fault{{Kind: scenarios.FaultBlackhole}, {Kind: scenarios.FaultThrottle, Value: 5}}, inj.Active())
	require.NoError(t, inj.Close())
	assert.ErrorIs(t, inj.Set(scenarios.FaultErrors, 0.5), ErrClosed)
}
