package proxy

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Option sets one of the injectables of a Proxy or an Injector.
type Option func(*options)

// options are the injectables an Option sets.
type options struct {
	rng   *rand.Rand
	clock engine.Clock
}

// WithRand sets the random source of the errors and bad_requests draws (default: a PCG with a
// fixed seed; nil keeps it). The proxy or injector owns it from then on: it is only used under
// its lock.
func WithRand(r *rand.Rand) Option {
	return func(o *options) {
		if r != nil {
			o.rng = r
		}
	}
}

// WithClock sets the clock of the throttle fault's token bucket and of its Retry-After
// (default: the wall clock; nil keeps it). The latency fault's delay is always a real timer.
func WithClock(c engine.Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// ErrClosed is returned by Start and Set on a Proxy that was closed.
var ErrClosed = errors.New("proxy: closed")

// seed is the default random source's seed (the draws of the errors and bad_requests faults).
const seed = 0x7072_6f78

// Proxy is a fault-injecting reverse proxy in front of one target: an Injector wrapped
// around an httputil.ReverseProxy, on a listener of its own that an outage closes. Build it
// with New, then Start it; every method is safe for concurrent use.
type Proxy struct {
	cfg    Config
	target *url.URL          // a copy of cfg.Target
	auth   string            // the Authorization header of cfg.Target's user info, "" for none
	base   http.RoundTripper // cfg.Transport or the default one, for CloseIdleConnections
	guard  *guard            // base, refusing any URL but the target's
	inj    *Injector         // the faults; its Outage hook is the proxy's outage

	// ctl serialises what changes the listener or calls a hook (Start, Set, Clear, the retry
	// of a failed listen, the shutdown), which runs outside mu.
	ctl sync.Mutex

	// mu guards the rest; handlers take it briefly to be admitted.
	mu       sync.Mutex
	started  bool
	closed   bool
	addr     string   // resolved listening address, fixed at Start
	life     *life    // the current listener and server; nil while not listening
	relisten bool     // an outage ended but listening again failed: the loop retries
	counters Counters // the rows about the target and the listener; the injector has the rest

	handlers sync.WaitGroup // handlers running; Add only under mu while !closed
	// conns counts the connections of every life, from StateNew (in Serve's goroutine, before
	// Serve returns) to StateClosed, so that Close also waits for net/http's goroutines.
	conns    sync.WaitGroup
	kick     chan struct{} // wakes the loop to retry a failed listen
	closing  chan struct{} // closed by Close
	stopOnce sync.Once
	done     chan struct{} // closed once everything has stopped
}

// life is one listening period: from Start or the end of an outage until an outage or Close.
type life struct {
	srv     *http.Server
	handler http.Handler  // the injector around a ReverseProxy whose ErrorHandler knows the life
	down    chan struct{} // closed when this life ends
	served  chan struct{} // closed when Serve has returned
}

// stop closes the life's listener and every connection it accepted, and waits for Serve.
func (lf *life) stop() {
	_ = lf.srv.Close()
	<-lf.served
}

// New returns a Proxy for cfg, not yet listening, or cfg's Validate error.
func New(cfg Config, opts ...Option) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	tu := *cfg.Target
	if tu.User != nil {
		u := *tu.User
		tu.User = &u
	}
	p := &Proxy{
		cfg:     cfg,
		target:  &tu,
		auth:    basicAuth(tu.User),
		kick:    make(chan struct{}, 1),
		closing: make(chan struct{}),
		done:    make(chan struct{}),
	}
	p.inj = NewInjector(InjectorConfig{Capacity: cfg.Capacity, Latency: cfg.Latency, Outage: p.outage}, opts...)
	p.base = cfg.Transport
	if p.base == nil {
		p.base = newTransport(targetAddr(&tu))
	}
	p.guard = &guard{base: p.base, scheme: tu.Scheme, host: tu.Host}
	return p, nil
}

// Start listens on Config.Addr and serves in the background until Close or the cancellation
// of ctx. It returns the listen error (the port in use, say) or ErrClosed; a Proxy starts once.
// Faults set before Start are in effect from the first request (an outage: Start reserves the
// port, then closes it at once).
func (p *Proxy) Start(ctx context.Context) error {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	closed, started := p.closed, p.started
	p.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case started:
		return errors.New("proxy: already started")
	}
	ln, err := net.Listen("tcp", p.cfg.Addr)
	if err != nil {
		return fmt.Errorf("proxy: listen on %s: %w", p.cfg.Addr, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = true
	p.addr = ln.Addr().String()
	if p.inj.outage() {
		_ = ln.Close()
	} else {
		p.serveLocked(ln)
	}
	go p.loop(ctx)
	return nil
}

// URL returns the proxy's address as a URL, http://127.0.0.1:PORT (the same across outages),
// or nil before Start.
func (p *Proxy) URL() *url.URL {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.addr == "" {
		return nil
	}
	return &url.URL{Scheme: "http", Host: p.addr}
}

// Counters returns the proxy's running totals.
func (p *Proxy) Counters() Counters {
	c := p.inj.Counters()
	p.mu.Lock()
	defer p.mu.Unlock()
	c.Upstream, c.UpstreamErr = maps.Clone(p.counters.Upstream), maps.Clone(p.counters.UpstreamErr)
	c.ListenErr, c.ListenRetries = p.counters.ListenErr, p.counters.ListenRetries
	c.Truncated = p.counters.Truncated
	return c
}

// Done returns a channel closed once the proxy has stopped: after Close, or after Start's
// context was cancelled and everything stopped.
func (p *Proxy) Done() <-chan struct{} { return p.done }

// Close stops the proxy: it closes the listener and every connection (held, delayed and
// forwarded requests get no answer; the forwarded ones are cancelled at the target), and
// returns once every goroutine it started has stopped, every handler has returned, every
// connection goroutine of net/http has ended, and the idle connections to the target are
// closed. It calls no hook: faults on a target the caller keeps stay as they are. Closing
// twice, or before Start, is fine. It always returns nil.
func (p *Proxy) Close() error {
	p.stopOnce.Do(func() { close(p.closing) })
	p.mu.Lock()
	before := !p.started && !p.closed
	if before {
		p.closed = true
		close(p.done)
	}
	p.mu.Unlock()
	if before {
		_ = p.inj.Close()
	}
	<-p.done
	return nil
}

// loop waits for Close or ctx's cancellation, and retries a failed listen after an outage.
func (p *Proxy) loop(ctx context.Context) {
	defer close(p.done)
	retry := time.NewTimer(ListenRetryInterval)
	retry.Stop()
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			p.shutdown()
			return
		case <-p.closing:
			p.shutdown()
			return
		case <-p.kick:
			retry.Reset(ListenRetryInterval)
		case <-retry.C:
			p.retryListen()
		}
	}
}

// shutdown closes the current life and waits for every handler and connection goroutine.
func (p *Proxy) shutdown() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	_ = p.inj.Close() // releases the held and delayed requests, uncounted
	p.mu.Lock()
	p.closed = true
	lf := p.endLifeLocked()
	p.mu.Unlock()
	if lf != nil {
		lf.stop()
	}
	p.handlers.Wait()
	p.conns.Wait()
	if ci, ok := p.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// serveLocked starts a life on ln.
func (p *Proxy) serveLocked(ln net.Listener) {
	lf := &life{down: make(chan struct{}), served: make(chan struct{})}
	rp := &httputil.ReverseProxy{
		Rewrite:      p.rewrite,
		Transport:    p.guard,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) { p.upstreamError(w, r, err, lf) },
		ErrorLog:     log.New(io.Discard, "", 0),
		BufferPool:   bufferPool{},
	}
	var cut func()
	if p.cfg.MaxBody > 0 {
		cut = func() { p.count(&p.counters.Truncated) }
	}
	// Inside the injector: a body the errors fault discards is cut too.
	lf.handler = p.inj.Wrap(forwarding(rp, p.cfg.MaxBody, cut))
	lf.srv = &http.Server{
		Handler:           http.HandlerFunc(p.handle),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0), // nothing on the dashboard's terminal
		ConnState:         p.connState,
	}
	p.life = lf
	p.relisten = false
	p.counters.ListenErr = nil
	go func() {
		defer close(lf.served)
		_ = lf.srv.Serve(ln)
	}()
}

// rewrite sends a request to the target: its URL's scheme and host, its path as the base of
// the request's, its query merged, and its user info as basic authentication unless the
// request carries an Authorization of its own (as http.Client does with a URL's user info).
func (p *Proxy) rewrite(pr *httputil.ProxyRequest) {
	pr.SetURL(p.target)
	if p.auth != "" && pr.Out.Header.Get("Authorization") == "" {
		pr.Out.Header.Set("Authorization", p.auth)
	}
}

// basicAuth is the Authorization header value of user info u (RFC 7617), "" for none.
func basicAuth(u *url.Userinfo) string {
	if u == nil {
		return ""
	}
	pass, _ := u.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass))
}

// connState counts the open connections (http.Server.ConnState).
func (p *Proxy) connState(_ net.Conn, s http.ConnState) {
	switch s {
	case http.StateNew:
		p.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		p.conns.Done()
	}
}

// endLifeLocked ends the current life, if any (the injector has released its held and delayed
// requests and counted those in progress). It returns the life for the caller to stop once mu
// is released (nil if there was none).
func (p *Proxy) endLifeLocked() *life {
	lf := p.life
	if lf == nil {
		return nil
	}
	p.life = nil
	close(lf.down)
	return lf
}

// outage is the injector's Outage hook: the proxy closes its listener and every connection
// (then calls Config.Outage(true)), or calls Config.Outage(false) and listens again on the
// same port. Called with ctl held (by Set, Clear or ClearAll), not mu.
func (p *Proxy) outage(down bool) {
	if !down {
		if p.cfg.Outage != nil {
			p.cfg.Outage(false)
		}
		p.mu.Lock()
		listen := p.started && !p.closed
		p.mu.Unlock()
		if listen {
			p.listenAgain()
		}
		return
	}
	p.mu.Lock()
	p.relisten, p.counters.ListenErr = false, nil
	lf := p.endLifeLocked()
	p.mu.Unlock()
	if lf != nil {
		lf.stop()
	}
	if p.cfg.Outage != nil {
		p.cfg.Outage(true)
	}
}

// listenAgain listens on the proxy's port again after an outage. On failure it records the
// error and has the loop try again. Called with ctl held, not mu.
func (p *Proxy) listenAgain() {
	ln, err := net.Listen("tcp", p.addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil:
		p.counters.ListenErr = fmt.Errorf("proxy: listen again on %s: %w", p.addr, err)
		p.counters.ListenRetries++
		p.relisten = true
		select {
		case p.kick <- struct{}{}:
		default:
		}
	case p.closed:
		_ = ln.Close()
	default:
		p.serveLocked(ln)
	}
}

// retryListen is the loop's retry of a failed listen, unless an outage started again meanwhile.
func (p *Proxy) retryListen() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	again := p.relisten && !p.closed && p.life == nil
	p.mu.Unlock()
	again = again && !p.inj.outage()
	if again {
		p.listenAgain()
	}
}
