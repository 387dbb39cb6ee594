package proxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that New names the bad field of a Config, and that Start reports a port in use.
func TestConfigErrors(t *testing.T) {
	ok, err := url.Parse("http://127.0.0.1:1")
	require.NoError(t, err)
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		require.NoError(t, err)
		return u
	}
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no target", Config{}, "Config.Target: required"},
		{"scheme", Config{Target: parse("ftp://example.com/")}, `Config.Target: scheme must be http or https, got "ftp"`},
		{"relative", Config{Target: parse("/just/a/path")}, "Config.Target: scheme must be http or https"},
		{"no host", Config{Target: parse("http:///path")}, "Config.Target: no host"},
		{"opaque", Config{Target: parse("http:example.com")}, "Config.Target: not a hierarchical URL"},
		{"addr", Config{Target: ok, Addr: "localhost"}, `Config.Addr: must be host:port, got "localhost"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var ce *ConfigError
			assert.ErrorAs(t, err, &ce)
		})
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	p, err := New(Config{Target: ok, Addr: ln.Addr().String()})
	require.NoError(t, err)
	err = p.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "proxy: listen on "+ln.Addr().String())
	assert.True(t, errors.Is(err, syscall.EADDRINUSE), "%v", err)
	require.NoError(t, p.Close())
	assert.ErrorIs(t, p.Start(context.Background()), ErrClosed)
	assert.ErrorIs(t, p.Set(scenarios.FaultErrors, 0.5), ErrClosed)
}

// Asserts that an outage refuses connections, closes the connection of a request in progress
// (counted in Dropped), and that Clear serves again on the same port; and that an outage set
// before Start begins refused.
func TestOutageRefusesThenServesOnSamePort(t *testing.T) {
	release := make(chan struct{})
	up := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		_, _ = io.WriteString(w, "ok")
	})
	defer close(release)
	p := startProxy(t, Config{Target: up.url(t)})
	c := client(t)
	u := p.URL().String()

	inflight := make(chan result, 1)
	go func() { inflight <- get(c, u+"/slow", 0) }()
	eventually(t, func() bool { return up.hits.Load() == 1 }, "the slow request reached the target")

	require.NoError(t, p.Set(scenarios.FaultOutage, 0))
	r := <-inflight
	assert.Error(t, r.err, "the request in progress gets no answer")
	r = get(c, u, 0)
	assert.True(t, errors.Is(r.err, syscall.ECONNREFUSED), "want connection refused, got %v", r.err)
	require.NoError(t, p.Set(scenarios.FaultOutage, 0)) // again: nothing changes
	assert.Equal(t, int64(1), p.Counters().Outages)
	assert.Equal(t, int64(1), p.Counters().Dropped)

	p.Clear(scenarios.FaultOutage)
	assert.Equal(t, u, p.URL().String())
	r = get(c, u, 0)
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status)

	early, err := New(Config{Target: up.url(t)})
	require.NoError(t, err)
	require.NoError(t, early.Set(scenarios.FaultOutage, 0))
	require.NoError(t, early.Start(context.Background()))
	defer early.Close()
	r = get(c, early.URL().String(), 0)
	assert.True(t, errors.Is(r.err, syscall.ECONNREFUSED), "want connection refused, got %v", r.err)
	early.Clear(scenarios.FaultOutage)
	r = get(c, early.URL().String(), 0)
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status)
}

// Asserts that when the end of an outage finds the port taken, Counters says so and the proxy
// keeps trying until the port is free, then serves on it; and that a new outage stops the
// retries.
func TestOutagePortTakenMeanwhile(t *testing.T) {
	up := newOrigin(t, nil)
	p := startProxy(t, Config{Target: up.url(t)})
	addr := p.URL().Host

	require.NoError(t, p.Set(scenarios.FaultOutage, 0))
	squatter, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	p.Clear(scenarios.FaultOutage)
	c := p.Counters()
	require.Error(t, c.ListenErr)
	assert.Contains(t, c.ListenErr.Error(), "proxy: listen again on "+addr)
	assert.True(t, errors.Is(c.ListenErr, syscall.EADDRINUSE))
	eventually(t, func() bool { return p.Counters().ListenRetries >= 2 }, "the proxy retries")

	require.NoError(t, p.Set(scenarios.FaultOutage, 0)) // a new outage: no more retries
	assert.NoError(t, p.Counters().ListenErr)
	retries := p.Counters().ListenRetries
	require.NoError(t, squatter.Close())
	time.Sleep(3 * ListenRetryInterval) // would be retries if the loop still tried
	assert.Equal(t, retries, p.Counters().ListenRetries)
	r := get(client(t), p.URL().String(), 0)
	assert.True(t, errors.Is(r.err, syscall.ECONNREFUSED), "still in the outage: %v", r.err)

	squatter, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	p.Clear(scenarios.FaultOutage)
	require.Error(t, p.Counters().ListenErr)
	require.NoError(t, squatter.Close())
	eventually(t, func() bool { return p.Counters().ListenErr == nil }, "listening again once the port is free")
	r = get(client(t), p.URL().String(), 0)
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status)
}

// Asserts that a blackholed request with no client timeout is held until Close, which
// releases it (the client gets an error, no answer) and leaves no goroutine (TestMain).
func TestBlackholeHeldUntilClose(t *testing.T) {
	up := newOrigin(t, nil)
	p, err := New(Config{Target: up.url(t)})
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background()))
	require.NoError(t, p.Set(scenarios.FaultBlackhole, 0))
	c := client(t)

	held := make(chan result, 2)
	go func() { held <- get(c, p.URL().String(), 0) }()
	go func() { // a body, read while held
		req, _ := http.NewRequest(http.MethodPost, p.URL().String(), strings.NewReader("payload"))
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		held <- result{err: err}
	}()
	eventually(t, func() bool { return p.Counters().Blackholed == 2 }, "both requests held")
	select {
	case r := <-held:
		t.Fatalf("a blackholed request was answered: %+v", r)
	default:
	}
	p.Clear(scenarios.FaultBlackhole) // held requests stay held: they were lost
	require.NoError(t, p.Close())
	for range 2 {
		assert.Error(t, (<-held).err)
	}
	assert.Zero(t, up.hits.Load())
	assert.Zero(t, p.Counters().Canceled, "released by Close, not by their client")
}

// Asserts that Close with requests in flight at the target, delayed and held returns, that
// every client gets an error, and that the target sees its requests cancelled.
func TestCloseWithRequestsInFlight(t *testing.T) {
	var cancelled sync.WaitGroup
	up := newOrigin(t, func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers; ends when the proxy cancels
		cancelled.Done()
	})
	p, err := New(Config{Target: up.url(t)})
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background()))
	c := client(t)

	const forwarded = 4
	cancelled.Add(forwarded)
	results := make(chan result, forwarded+2)
	for range forwarded {
		go func() { results <- get(c, p.URL().String(), 0) }()
	}
	eventually(t, func() bool { return up.hits.Load() == forwarded }, "requests at the target")
	require.NoError(t, p.Set(scenarios.FaultLatency, 600))
	go func() { results <- get(c, p.URL().String(), 0) }()
	eventually(t, func() bool { return p.Counters().Delayed == 1 }, "a request delayed")
	require.NoError(t, p.Set(scenarios.FaultBlackhole, 0))
	go func() { results <- get(c, p.URL().String(), 0) }()
	eventually(t, func() bool { return p.Counters().Blackholed == 1 }, "a request held")

	require.NoError(t, p.Close())
	for range forwarded + 2 {
		assert.Error(t, (<-results).err)
	}
	cancelled.Wait() // the target's handlers saw the cancellation
	_, err = http.Get(p.URL().String())
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "closed: %v", err)
	require.NoError(t, p.Close(), "twice is fine")
}

// Asserts that cancelling Start's context stops the proxy as Close does.
func TestStartContextCancel(t *testing.T) {
	up := newOrigin(t, nil)
	p, err := New(Config{Target: up.url(t)})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, p.Start(ctx))
	assert.Error(t, p.Start(ctx), "starts once")
	r := get(client(t), p.URL().String(), 0)
	require.NoError(t, r.err)
	cancel()
	<-p.Done()
	_, err = http.Get(p.URL().String())
	assert.True(t, errors.Is(err, syscall.ECONNREFUSED), "stopped: %v", err)
	assert.ErrorIs(t, p.Set(scenarios.FaultBlackhole, 0), ErrClosed)
	require.NoError(t, p.Close())
}

// Asserts that Set, Clear and ClearAll of every kind, outage included, are safe while traffic
// flows (run with -race), that the counters stay consistent, and that the proxy serves
// normally once everything is cleared.
func TestConcurrentSetClearUnderTraffic(t *testing.T) {
	up := newOrigin(t, nil)
	p := startProxy(t, Config{Target: up.url(t), Capacity: func(float64) {}, Latency: func(time.Duration) {}})
	c := client(t)
	u := p.URL().String()

	stop := make(chan struct{})
	var traffic sync.WaitGroup
	for range 4 {
		traffic.Add(1)
		go func() {
			defer traffic.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = get(c, u, 50*time.Millisecond)
			}
		}()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		k := scenarios.FaultKinds[rng.IntN(scenarios.NumFaultKinds)]
		spec, _ := k.Spec()
		switch {
		case i%50 == 49:
			p.ClearAll()
		case rng.IntN(2) == 0:
			v := spec.InjectValue(100)
			require.NoError(t, p.Set(k, v), "%s %v", k, v)
		default:
			p.Clear(k)
		}
		_ = p.Active()
		_ = p.Counters()
	}
	close(stop)
	traffic.Wait()
	p.ClearAll()
	eventually(t, func() bool { return p.Counters().ListenErr == nil }, "listening")

	r := get(c, u, 0)
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status)
	cn := p.Counters()
	assert.Positive(t, cn.Requests)
	assert.LessOrEqual(t, cn.Forwarded+cn.BadRequests+cn.Throttled+cn.Blackholed, cn.Requests)
	assert.LessOrEqual(t, up.hits.Load(), cn.Forwarded)
}

// Asserts that only the target is ever contacted: a client asking for another host (an
// absolute URL in the request line, a Host header) reaches the target; the guard refuses a URL
// on any other host before the transport; the default transport refuses to dial any other
// address.
func TestOnlyTargetContacted(t *testing.T) {
	up := newOrigin(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "target "+r.URL.Path) })
	bystander := newOrigin(t, nil)
	p := startProxy(t, Config{Target: up.url(t)})
	other := bystander.url(t).Host

	conn, err := net.Dial("tcp", p.URL().Host)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET http://%s/x HTTP/1.1\r\nHost: %s\r\n\r\nGET /y HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", other, other, other)
	require.NoError(t, err)
	br := bufio.NewReader(conn)
	for _, path := range []string{"/x", "/y"} {
		resp, err := http.ReadResponse(br, nil)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "target "+path, string(b))
	}
	assert.Equal(t, int64(2), up.hits.Load())

	g := p.guard
	req, err := http.NewRequest(http.MethodGet, bystander.srv.URL, nil)
	require.NoError(t, err)
	_, err = g.RoundTrip(req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refusing to contact http://"+other)

	tr := newTransport(targetAddr(up.url(t)))
	defer tr.CloseIdleConnections()
	_, err = tr.RoundTrip(req)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refusing to dial "+other)
	assert.Zero(t, bystander.hits.Load())
}

// Asserts that a target that refuses the connection is answered 503 upstream-refused, and
// counted with its first error.
func TestUpstreamRefused(t *testing.T) {
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadURL := &url.URL{Scheme: "http", Host: dead.Addr().String()}
	require.NoError(t, dead.Close())
	p := startProxy(t, Config{Target: deadURL})
	r := get(client(t), p.URL().String(), 0)
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusServiceUnavailable, r.status)
	assert.Equal(t, "upstream-refused", r.header.Get(FaultHeader))
	c := p.Counters()
	assert.Equal(t, map[cortexhttp.Cause]int64{cortexhttp.CauseRefused: 1}, c.Upstream)
	assert.Contains(t, c.UpstreamErr[cortexhttp.CauseRefused], "connection refused")
}

// Asserts that a protocol upgrade is refused with 501 without reaching the target: a hijacked
// connection would outlive an outage and Close.
func TestUpgradeRefused(t *testing.T) {
	up := newOrigin(t, nil)
	p := startProxy(t, Config{Target: up.url(t)})
	req, err := http.NewRequest(http.MethodGet, p.URL().String(), nil)
	require.NoError(t, err)
	req.Header.Set("Connection", "keep-alive, Upgrade")
	req.Header.Set("Upgrade", "websocket")
	resp, err := client(t).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode)
	assert.Equal(t, "unsupported", resp.Header.Get(FaultHeader))
	assert.Zero(t, up.hits.Load())
}

// hijackAndClose is a handler that closes the connection without an answer, as a target that
// crashes holding the request does.
func hijackAndClose(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// Asserts that the target URL's user info is sent as basic authentication on requests that
// carry none, that a request's own Authorization is left alone, and that the password appears
// in no URL or error of the proxy's.
func TestTargetUserInfo(t *testing.T) {
	auth := make(chan string, 2)
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) { auth <- r.Header.Get("Authorization") })
	tu := o.url(t)
	tu.User = url.UserPassword("bob", "pa:ss")
	p := startProxy(t, Config{Target: tu})
	assert.NotContains(t, p.URL().String(), "pa:ss")
	c := client(t)
	require.NoError(t, get(c, p.URL().String(), wait).err)
	assert.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("bob:pa:ss")), <-auth)
	req, err := http.NewRequest(http.MethodGet, p.URL().String(), nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer mine")
	resp, err := c.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "Bearer mine", <-auth)

	bad := *tu
	bad.Scheme = "ftp"
	_, err = New(Config{Target: &bad})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "pa:ss")
}
