package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/waittest"
)

// TestMain fails the package if any test leaves a goroutine behind (a held request, a
// connection, a retry loop), and runs the parallel subtests four at a time (internal/waittest).
func TestMain(m *testing.M) { waittest.Main(m, 4) }

// wait is how long a test waits for something that should happen at once (a counter, a
// state): generous, for a loaded 2-core machine running -race.
const wait = 10 * time.Second

// poll is how often a test looks again.
const poll = 2 * time.Millisecond

// origin is a target on loopback that counts its requests and answers with handler (200
// "ok" when nil).
type origin struct {
	srv  *httptest.Server
	hits atomic.Int64
}

// newOrigin starts an origin, closed when the test ends.
func newOrigin(t *testing.T, handler http.HandlerFunc) *origin {
	t.Helper()
	u := &origin{}
	if handler == nil {
		handler = func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }
	}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		handler(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// url is the origin's URL.
func (u *origin) url(t *testing.T) *url.URL {
	t.Helper()
	tu, err := url.Parse(u.srv.URL)
	require.NoError(t, err)
	return tu
}

// startProxy builds and starts a proxy, closed when the test ends.
func startProxy(t *testing.T, cfg Config, opts ...Option) *Proxy {
	t.Helper()
	p, err := New(cfg, opts...)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p
}

// client returns an HTTP client with its own connection pool, closed when the test ends.
func client(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true, Proxy: nil}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// result is what a client got for one request: the status, a header and the body, or the
// error.
type result struct {
	status int
	header http.Header
	body   string
	err    error
}

// get sends GET u through c, giving up after timeout (0: never), and reads the whole answer.
func get(c *http.Client, u string, timeout time.Duration) result {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return result{err: err}
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
}

// eventually waits until cond holds (a counter reached, a request held).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, wait, poll, msg)
}
