package proxy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/internal/hostile"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// hostileTarget starts the catalog's behaviour name on loopback, closed when the test ends.
func hostileTarget(t *testing.T, name string) *hostile.Server {
	t.Helper()
	n, ok := hostile.Lookup(name)
	require.True(t, ok, name)
	s, err := hostile.Start(n.Serve)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// readCounter is a connection that counts the bytes read from it.
type readCounter struct {
	net.Conn
	n *atomic.Int64
}

func (c *readCounter) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// countingProxy starts a proxy in front of s with its default transport, whose connections to
// the target count in read the bytes the proxy reads from it.
func countingProxy(t *testing.T, s *hostile.Server, maxBody int64, read *atomic.Int64) *Proxy {
	t.Helper()
	u, err := url.Parse(s.URL())
	require.NoError(t, err)
	tr := newTransport(targetAddr(u))
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &readCounter{Conn: c, n: read}, nil
	}
	t.Cleanup(tr.CloseIdleConnections)
	return startProxy(t, Config{Target: u, Transport: tr, MaxBody: maxBody})
}

// Asserts that the proxy stops reading a body as soon as its client has had Config.MaxBody
// bytes of it: against a 100 MB body and an endless one, each client reads until the body
// breaks off and gets exactly MaxBody bytes, then an unexpected EOF (the body is cut, not
// passed off as complete), the proxy counts each answer in Truncated, and it read at most
// MaxBody plus its 32 KiB copy buffer, its 4 KiB reader and the head from the target per
// request (without the limit it read about 1.3 MB per request for a client reading 64 KiB,
// what the socket buffers took before the client's close reached it). The errors fault, which
// discards the target's body, stops reading at the limit too.
func TestProxyStopsReadingBody(t *testing.T) {
	const maxBody, requests = 64 << 10, 40
	const slack = bufferSize + 4<<10 + 1<<10 // the copy buffer, the transport's reader, the head
	for _, tc := range []struct {
		name   string
		errors bool
	}{{"big-body", false}, {"endless-body", false}, {"endless-body", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var read atomic.Int64
			p := countingProxy(t, hostileTarget(t, tc.name), maxBody, &read)
			if tc.errors {
				require.NoError(t, p.Set(scenarios.FaultErrors, 1))
			}
			c := client(t)
			var wg sync.WaitGroup
			for range requests {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := get(c, p.URL().String(), wait)
					if tc.errors {
						assert.Equal(t, http.StatusInternalServerError, r.status)
						return
					}
					assert.Equal(t, http.StatusOK, r.status)
					assert.Len(t, r.body, maxBody)
					assert.True(t, errors.Is(r.err, io.ErrUnexpectedEOF), "the body breaks off: %v", r.err)
				}()
			}
			wg.Wait()
			// With the errors fault the 500 goes out before the proxy is done discarding.
			eventually(t, func() bool { return p.Counters().Truncated == requests }, "every answer cut")
			assert.LessOrEqual(t, read.Load(), int64(requests*(maxBody+slack)), "bytes read from the target")
		})
	}
}

// Asserts that a client giving up on a body that trickles in makes the proxy close its
// connection to the target: the target's connections all end once the clients are gone.
func TestProxyDropsTargetWhenClientGoes(t *testing.T) {
	s := hostileTarget(t, "slow-body")
	var read atomic.Int64
	p := countingProxy(t, s, 0, &read)
	c := client(t)
	for range 5 {
		r := get(c, p.URL().String(), 100*time.Millisecond)
		require.Error(t, r.err)
	}
	eventually(t, func() bool { return s.Open() == 0 }, "the proxy still holds connections to the target")
	assert.Equal(t, int64(5), s.Accepted())
}

// Asserts that a target sending more response headers than MaxHeaderBytes is answered 502 at
// once (the proxy reads no more than the limit and the reader's buffer), whether the headers
// come as 8 MiB of lines or one 8 MiB line.
func TestProxyOversizeHeaders(t *testing.T) {
	for _, name := range []string{"headers-8m", "huge-header-line"} {
		t.Run(name, func(t *testing.T) {
			var read atomic.Int64
			p := countingProxy(t, hostileTarget(t, name), 0, &read)
			c := client(t)
			const requests = 10
			for range requests {
				r := get(c, p.URL().String(), wait)
				require.NoError(t, r.err)
				assert.Equal(t, http.StatusBadGateway, r.status)
			}
			assert.LessOrEqual(t, read.Load(), int64(requests*(MaxHeaderBytes+64<<10)), "bytes read from the target")
		})
	}
}

// proxyAnswer is what a client of the proxy gets from each behaviour of the hostile catalog:
// the status and FaultHeader of the answer (status 0: no answer before the client's 2 s
// timeout; a target's own answers pass with no FaultHeader), and whether reading its body
// fails (a body the target cuts short or breaks, which the proxy can only abort).
var proxyAnswer = map[string]struct {
	status  int
	fault   string
	bodyErr bool
}{
	"silent":           {0, "", false},
	"slow-headers":     {0, "", false},
	"slow-body":        {0, "", false}, // the proxy flushes the head with the first 4 KiB of body
	"headers-1m-slow":  {http.StatusBadGateway, "upstream-oversize-headers", false},
	"headers-2m":       {http.StatusBadGateway, "upstream-oversize-headers", false},
	"headers-4m":       {http.StatusBadGateway, "upstream-oversize-headers", false},
	"headers-8m":       {http.StatusBadGateway, "upstream-oversize-headers", false},
	"huge-header-line": {http.StatusBadGateway, "upstream-oversize-headers", false},
	"big-body":         {http.StatusOK, "", true}, // cut at MaxBody
	"endless-body":     {http.StatusOK, "", true},
	"garbage":          {http.StatusBadGateway, "upstream-malformed", false},
	"http09":           {http.StatusBadGateway, "upstream-malformed", false},
	"mid-close":        {http.StatusBadGateway, "upstream-malformed", false},
	"close":            {http.StatusServiceUnavailable, "upstream-reset", false},
	"reset":            {http.StatusServiceUnavailable, "upstream-reset", false},
	"reset-on-accept":  {http.StatusServiceUnavailable, "upstream-reset", false},
	"retry-after":      {http.StatusServiceUnavailable, "", false},
	"retry-after-date": {http.StatusTooManyRequests, "", false},
	"redirect-loop":    {http.StatusFound, "", false},
	"redirect-away":    {http.StatusMovedPermanently, "", false},
	"ok":               {http.StatusOK, "", false},
	"tls":              {http.StatusServiceUnavailable, "upstream-reset", false},
	"bad-status-line":  {http.StatusBadGateway, "upstream-malformed", false},
	"status-999":       {999, "", false},
	"no-version":       {http.StatusBadGateway, "upstream-malformed", false},
	"folded-header":    {http.StatusOK, "", false},
	"header-no-colon":  {http.StatusBadGateway, "upstream-malformed", false},
	"nul-header":       {http.StatusBadGateway, "upstream-malformed", false},
	"bad-chunk-size":   {http.StatusOK, "", true},
	"chunk-overflow":   {http.StatusOK, "", true},
	"chunk-no-end":     {http.StatusOK, "", true},
	"cl-short":         {http.StatusOK, "", true},
	"cl-long":          {http.StatusOK, "", false},
	"cl-conflict":      {http.StatusBadGateway, "upstream-malformed", false},
	"cl-negative":      {http.StatusBadGateway, "upstream-malformed", false},
	"cl-huge":          {http.StatusBadGateway, "upstream-malformed", false},
	"te-and-cl":        {http.StatusOK, "", false},
	"bad-te":           {http.StatusBadGateway, "upstream-malformed", false},
	"1xx-flood":        {http.StatusBadGateway, "upstream-malformed", false},
	"lf-only":          {http.StatusOK, "", false},
	"empty-status":     {http.StatusBadGateway, "upstream-malformed", false},
}

// Asserts that the proxy, in front of every behaviour of the hostile catalog (the table of
// malformed answers among them), answers as the table says, with no panic and within the
// client's timeout: a target's failure to answer is the 502, 503 or 504 whose FaultHeader
// names its cause (counted in Counters.Upstream with its first error), a target's answer
// passes, and a body broken after its head breaks off at the client. A 1xx flood ends after
// MaxInformational answers instead of holding the request forever. The table covers the
// whole catalog. The behaviours run in parallel (the three that hold their answer each wait out
// the client's 2 s); an answer has the package's wait (10 s, for a loaded machine), a held one
// the 2 s it is expected to run out of.
func TestProxyHostileTable(t *testing.T) {
	for _, n := range hostile.Catalog {
		want, ok := proxyAnswer[n.Name]
		require.True(t, ok, "no expected answer for %s", n.Name)
		t.Run(n.Name, func(t *testing.T) {
			t.Parallel()
			var read atomic.Int64
			p := countingProxy(t, hostileTarget(t, n.Name), 64<<10, &read)
			c := client(t)
			c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			timeout := wait
			if want.status == 0 {
				timeout = 2 * time.Second
			}
			r := get(c, p.URL().String(), timeout)
			assert.Equal(t, want.status, r.status, "status (err %v)", r.err)
			if want.status == 0 {
				assert.True(t, errors.Is(r.err, context.DeadlineExceeded), "%v", r.err)
				return
			}
			assert.Equal(t, want.fault, r.header.Get(FaultHeader))
			assert.Equal(t, want.bodyErr, r.err != nil, "body: %v", r.err)
			if c, ok := UpstreamCause(want.fault); ok {
				assert.Equal(t, map[cortexhttp.Cause]int64{c: 1}, p.Counters().Upstream)
				assert.NotEmpty(t, p.Counters().UpstreamErr[c])
			}
		})
	}
}
