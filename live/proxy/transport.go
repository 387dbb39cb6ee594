package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// guard is the proxy's transport to the target: it refuses any request whose URL is not on
// the target's scheme and host before it reaches the base transport, whatever that is. The
// rewrite always sets them, so guard is a second lock on the safety rule: only the target is
// ever contacted.
type guard struct {
	base         http.RoundTripper
	scheme, host string
}

// RoundTrip sends req through the base transport if it goes to the target.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != g.scheme || req.URL.Host != g.host {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("proxy: refusing to contact %s://%s: the only target is %s://%s",
			req.URL.Scheme, req.URL.Host, g.scheme, g.host)
	}
	return g.base.RoundTrip(req)
}

// newTransport is the default transport to the target at addr (host:port): keep-alive with a
// large idle pool, no proxy from the environment (HTTP_PROXY would be a second host), no
// transparent decompression (bodies pass as they are), and a dialer that refuses any address
// but addr.
func newTransport(addr string) *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			if a != addr {
				return nil, fmt.Errorf("proxy: refusing to dial %s: the only target is %s", a, addr)
			}
			return d.DialContext(ctx, network, a)
		},
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           0, // no limit beyond the per-host one
		MaxIdleConnsPerHost:    DefaultMaxIdleConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		DisableCompression:     true,
		MaxResponseHeaderBytes: MaxHeaderBytes,
	}
}

// bufferSize is the size of the buffers that copy response bodies (httputil's own default).
const bufferSize = 32 << 10

// buffers recycles the body copy buffers: without a pool httputil allocates 32 KiB per
// forwarded response.
var buffers = sync.Pool{New: func() any { b := make([]byte, bufferSize); return &b }}

// bufferPool is an httputil.BufferPool over buffers.
type bufferPool struct{}

func (bufferPool) Get() []byte  { return *buffers.Get().(*[]byte) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }

// errBodyLimit ends the copy of a response body at Config.MaxBody.
var errBodyLimit = errors.New("proxy: response body limit reached")

// limitBody returns next with every response body it writes cut at max bytes: the bytes up to
// the limit are written and flushed, then the write fails, which makes the ReverseProxy
// abort the answer (its connection closed after what was written) and close its connection to
// the target. cut is called once per answer cut.
func limitBody(next http.Handler, max int64, cut func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&bodyLimit{ResponseWriter: w, left: max, cut: cut}, r)
	})
}

// bodyLimit is a ResponseWriter that accepts at most left bytes of body.
type bodyLimit struct {
	http.ResponseWriter
	left int64
	cut  func()
}

// Write writes b, or as much of it as the limit leaves, flushes it and fails.
func (l *bodyLimit) Write(b []byte) (int, error) {
	if int64(len(b)) <= l.left {
		n, err := l.ResponseWriter.Write(b)
		l.left -= int64(n)
		return n, err
	}
	n, err := l.ResponseWriter.Write(b[:l.left])
	l.left -= int64(n)
	if err != nil {
		return n, err
	}
	_ = http.NewResponseController(l.ResponseWriter).Flush()
	l.cut()
	return n, errBodyLimit
}

// Unwrap returns the underlying writer (http.ResponseController).
func (l *bodyLimit) Unwrap() http.ResponseWriter { return l.ResponseWriter }
