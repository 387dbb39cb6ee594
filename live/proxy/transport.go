package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
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

// RoundTrip sends req through the base transport if it goes to the target, and gives up on an
// answer once the target has sent more than MaxInformational informational (1xx) answers
// before it: the ReverseProxy forwards each 1xx to the client, and net/http then leaves their
// number to it, so a target sending them forever would hold the request forever.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != g.scheme || req.URL.Host != g.host {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("proxy: refusing to contact %s://%s: the only target is %s://%s",
			req.URL.Scheme, req.URL.Host, g.scheme, g.host)
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	informational := 0
	trace := &httptrace.ClientTrace{Got1xxResponse: func(int, textproto.MIMEHeader) error {
		// Its error would be ignored: the ReverseProxy's own hook, composed after it, answers.
		if informational++; informational > MaxInformational {
			cancel(errTooManyInformational)
		}
		return nil
	}}
	resp, err := g.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
	if err != nil {
		if context.Cause(ctx) == errTooManyInformational {
			err = errTooManyInformational
		}
		cancel(nil)
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// MaxInformational is the most informational (1xx) answers the proxy forwards for one request;
// a target sending more is answered 502, as malformed.
const MaxInformational = 8

// errTooManyInformational is the failure of a target that sent more than MaxInformational 1xx
// answers (in net/http's words, which cortexhttp.ErrorCause names malformed).
var errTooManyInformational = fmt.Errorf("proxy: too many 1xx informational responses (more than %d)", MaxInformational)

// cancelBody is a response body whose Close releases its request's context.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

// Close closes the body, then releases the context.
func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
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

// forwarding returns the ReverseProxy next as the proxy runs it: each response body cut at max
// bytes (0: no limit), the bytes up to the limit written and flushed before the write fails,
// which makes the ReverseProxy abort the answer (its connection closed after what was written)
// and close its connection to the target; cut is called once per answer cut. An answer aborted
// after its head was written (the target's body broke off, was malformed, or was cut) has what
// was written flushed first, so that the client sees the head and then the body break off, as
// it would from the target itself, and not a connection closed without an answer.
func forwarding(next http.Handler, max int64, cut func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := &forwardWriter{ResponseWriter: w, left: max, cut: cut}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler && fw.wrote {
					_ = http.NewResponseController(w).Flush()
				}
				panic(v)
			}
		}()
		next.ServeHTTP(fw, r)
	})
}

// forwardWriter is a ResponseWriter that notes that the head was written and accepts at most
// left bytes of body (when limited).
type forwardWriter struct {
	http.ResponseWriter
	wrote bool
	left  int64 // bytes of body still accepted, when max > 0
	cut   func()
}

// WriteHeader writes the head (a 1xx passes through: the head is still to come).
func (f *forwardWriter) WriteHeader(code int) {
	if code >= 200 {
		f.wrote = true
	}
	f.ResponseWriter.WriteHeader(code)
}

// Write writes b, or as much of it as the limit leaves, flushes it and fails.
func (f *forwardWriter) Write(b []byte) (int, error) {
	f.wrote = true
	if f.cut == nil || int64(len(b)) <= f.left {
		n, err := f.ResponseWriter.Write(b)
		f.left -= int64(n)
		return n, err
	}
	n, err := f.ResponseWriter.Write(b[:f.left])
	f.left -= int64(n)
	if err != nil {
		return n, err
	}
	_ = http.NewResponseController(f.ResponseWriter).Flush()
	f.cut()
	return n, errBodyLimit
}

// Unwrap returns the underlying writer (http.ResponseController).
func (f *forwardWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }
