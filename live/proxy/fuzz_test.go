package proxy

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/internal/hostile"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// FuzzAnswer asserts that whatever bytes a target answers with (then closing the connection),
// an attempt sent through cortexhttp and the proxy ends classified, without a panic and within
// bounded memory: the transport returns within its attempt timeout, an error has a cause, an
// answer the proxy made up names a cause cortexhttp knows (upstream-<cause>), and the proxy
// read no more from the target than the head's limit, its reader's buffer and its body limit.
// Its seeds are the catalog's raw answers (the table of malformed answers among them).
func FuzzAnswer(f *testing.F) {
	for _, n := range hostile.Catalog {
		if n.Answer != "" {
			f.Add([]byte(n.Answer))
		}
	}
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	f.Fuzz(func(t *testing.T, answer []byte) {
		began := time.Now()
		defer func() { assert.Less(t, time.Since(began), 5*time.Second, "the target and the proxy closed in time") }()
		s, err := hostile.Start(hostile.Raw(string(answer), true))
		require.NoError(t, err)
		defer s.Close()
		u, err := url.Parse(s.URL())
		require.NoError(t, err)
		var read atomic.Int64
		tr := newTransport(targetAddr(u))
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &readCounter{Conn: c, n: &read}, nil
		}
		defer tr.CloseIdleConnections()
		const maxBody = 64 << 10
		p, err := New(Config{Target: u, Transport: tr, MaxBody: maxBody})
		require.NoError(t, err)
		require.NoError(t, p.Start(context.Background()))
		defer p.Close()

		none, err := strategy.New("none", strategy.Env{Rand: rand.New(rand.NewPCG(1, 2))})
		require.NoError(t, err)
		base := &http.Transport{MaxResponseHeaderBytes: MaxHeaderBytes, DisableCompression: true}
		defer base.CloseIdleConnections()
		var got []cortexhttp.Attempt
		cfg := cortexhttp.DefaultConfig()
		cfg.Base, cfg.Strategy, cfg.AttemptTimeout = base, none, 2*time.Second
		cfg.OnAttempt = func(a cortexhttp.Attempt) { got = append(got, a) }
		rt, err := cortexhttp.New(cfg)
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodGet, p.URL().String(), nil)
		require.NoError(t, err)

		start := time.Now()
		resp, err := rt.RoundTrip(req)
		assert.Less(t, time.Since(start), 3*time.Second, "within the attempt timeout")

		require.Len(t, got, 1)
		a := got[0]
		if err != nil {
			assert.NotEqual(t, cortexhttp.CauseNone, a.Cause, "an error has a cause: %v", err)
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, cortexhttp.StatusCause(resp.StatusCode), a.Cause)
		if c, ok := UpstreamCause(resp.Header.Get(FaultHeader)); ok {
			assert.True(t, slices.Contains(cortexhttp.Causes, c), "a cause cortexhttp knows: %q", c)
		}
		assert.LessOrEqual(t, read.Load(), int64(MaxHeaderBytes+4<<10+maxBody+bufferSize), "bytes read from the target")
	})
}
