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
