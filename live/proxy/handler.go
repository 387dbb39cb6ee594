package proxy

import (
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FaultHeader is the response header that marks an answer the proxy made up for a fault
// instead of forwarding the request ("errors", "bad_requests", "throttle"), or an answer of
// its own about the target ("upstream-refused", "upstream-closed", "upstream-timeout",
// "upstream-failed").
const FaultHeader = "X-Cortex-Fault"

// maxHeldBody is how much of a blackholed request's body the proxy reads (and discards) while
// holding it, so that it notices the client going away; a longer body closes the connection.
const maxHeldBody = 1 << 20

// drainLimit is how much of a target's answer the errors fault reads before replacing it, so
// the connection to the target can be reused.
const drainLimit = 64 << 10

// maxRetryAfter bounds the throttle's Retry-After, in seconds (a rate of 1e-300/s would
// overflow an int).
const maxRetryAfter = 1 << 30

// verdict is what the proxy does with a request.
type verdict int

const (
	forward    verdict = iota // send it to the target (after a delay, with the latency fault)
	hold                      // never answer it (blackhole)
	badRequest                // answer 400 (bad_requests)
	throttled                 // answer 429 with Retry-After (throttle)
)

// errInjected is what modifyResponse returns to have the errors fault answer 500.
var errInjected = errors.New("proxy: injected server error")

// handle is the proxy's HTTP handler, for any method and path. The faults act in the order of
// the simulator's service (sim/service.go): an outage refuses the connection before any
// request (the listener is closed), a blackhole holds the request, bad_requests answers 400,
// throttle 429 above its rate, latency delays it, and the errors fault replaces the target's
// successful answer by a 500.
func (p *Proxy) handle(w http.ResponseWriter, r *http.Request) {
	if isUpgrade(r.Header) {
		// A hijacked connection would outlive outages and Close: not supported.
		w.Header().Set(FaultHeader, "unsupported")
		http.Error(w, "the cortex-tui proxy does not forward protocol upgrades", http.StatusNotImplemented)
		return
	}
	p.mu.Lock()
	lf := p.life
	if p.closed || lf == nil {
		p.mu.Unlock()
		panic(http.ErrAbortHandler) // raced with Close or an outage: its connection is being closed
	}
	p.handlers.Add(1)
	lf.inflight.Add(1)
	p.counters.Requests++
	v, delay, retry := p.admitLocked()
	p.mu.Unlock()
	defer p.handlers.Done()
	defer lf.inflight.Add(-1)

	switch v {
	case hold:
		p.hold(r, lf)
	case badRequest:
		w.Header().Set(FaultHeader, "bad_requests")
		http.Error(w, "bad request (injected by the cortex-tui proxy)", http.StatusBadRequest)
	case throttled:
		w.Header().Set(FaultHeader, "throttle")
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		http.Error(w, "too many requests (injected by the cortex-tui proxy)", http.StatusTooManyRequests)
	default:
		if delay > 0 {
			if !p.sleep(r, lf, delay) {
				panic(http.ErrAbortHandler) // the client has gone, or the proxy is going down
			}
			p.count(&p.counters.Forwarded)
		}
		lf.rp.ServeHTTP(w, r)
	}
}

// isUpgrade reports whether h asks for a protocol upgrade (Connection: upgrade), WebSocket say.
func isUpgrade(h http.Header) bool {
	for _, v := range h["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return true
			}
		}
	}
	return false
}

// admitLocked decides what happens to a request arriving now, counts it, and returns the delay
// before forwarding (latency fault) or the Retry-After in seconds (throttle).
func (p *Proxy) admitLocked() (v verdict, delay time.Duration, retryAfter int) {
	if p.faults[kBlackhole].on {
		p.counters.Blackholed++
		return hold, 0, 0
	}
	if f := p.faults[kBad]; f.on && p.rng.Float64() < f.value {
		p.counters.BadRequests++
		return badRequest, 0, 0
	}
	if f := p.faults[kThrottle]; f.on {
		// token bucket: rate R/s, burst R (one second's worth, at least 1), as in the simulator
		now := p.clock.Now()
		if d := now.Sub(p.tokensAt); d > 0 {
			p.tokens = math.Min(math.Max(1, f.value), p.tokens+f.value*d.Seconds())
			p.tokensAt = now
		}
		if p.tokens < 1 {
			p.counters.Throttled++
			// the time until the next token, in whole seconds (Retry-After's unit), at least 1
			return throttled, 0, int(math.Min(maxRetryAfter, math.Max(1, math.Ceil((1-p.tokens)/f.value))))
		}
		p.tokens--
	}
	if f := p.faults[kLatency]; f.on && p.cfg.Latency == nil {
		p.counters.Delayed++
		return forward, seconds(f.value), 0 // Forwarded once the delay is over
	}
	p.counters.Forwarded++
	return forward, 0, 0
}

// hold keeps a blackholed request unanswered until its client gives up, an outage or Close.
// It reads the request's body first: net/http notices a client going away only once the body
// is consumed. The connection is then closed without an answer.
func (p *Proxy) hold(r *http.Request, lf *life) {
	n, err := io.Copy(io.Discard, io.LimitReader(r.Body, maxHeldBody+1))
	if err == nil && n <= maxHeldBody {
		select {
		case <-r.Context().Done():
		case <-lf.down:
		}
	}
	p.canceled(r, lf)
	panic(http.ErrAbortHandler)
}

// sleep waits d before forwarding (the latency fault without Config.Latency); false if the
// client gave up or the life ended first.
func (p *Proxy) sleep(r *http.Request, lf *life, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		p.canceled(r, lf)
	case <-lf.down:
	}
	return false
}

// count adds one to a counter under mu.
func (p *Proxy) count(c *int64) {
	p.mu.Lock()
	*c++
	p.mu.Unlock()
}

// ended reports whether lf has ended (an outage or Close).
func ended(lf *life) bool {
	select {
	case <-lf.down:
		return true
	default:
		return false
	}
}

// canceled counts r in Canceled if its client gave up, unless its life ended (an outage or
// Close closed its connection: it is counted in Dropped, or nowhere after Close).
func (p *Proxy) canceled(r *http.Request, lf *life) {
	if !ended(lf) && r.Context().Err() != nil {
		p.count(&p.counters.Canceled)
	}
}

// modifyResponse applies the errors fault to the target's answer: a share of the requests the
// target served (status below 400) are answered 500 instead, the work done, as the simulator's
// errors fault strikes processed attempts. Answers the target refused (503, 413, ...) pass.
func (p *Proxy) modifyResponse(res *http.Response) error {
	frac := math.Float64frombits(p.errorsFrac.Load())
	if frac == 0 || res.StatusCode >= 400 {
		return nil
	}
	p.mu.Lock()
	hit := p.faults[kErrors].on && p.rng.Float64() < p.faults[kErrors].value
	if hit {
		p.counters.Errors++
	}
	p.mu.Unlock()
	if !hit {
		return nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, drainLimit)) // the connection can be reused
	return errInjected
}

// upstreamError answers a request of life lf that the proxy could not (or chose not to)
// answer with the target's response (httputil.ReverseProxy.ErrorHandler). A failure of the
// target is answered with the status that a client classifying like cortexhttp counts as the
// outcome it would have seen talking to the target directly, which is also the simulator's:
//
//   - the errors fault: 500 (ServerError);
//   - the connection closed by an outage or Close: nothing (counted in Dropped);
//   - the client gone: nothing (counted in Canceled);
//   - the target refused the connection (down, crashed): 503 (FastFail, the outcome of a
//     refused connection; the proxy cannot refuse the client's connection, which it accepted
//     before it knew);
//   - the target reset or closed the connection without an answer (it crashed holding the
//     request): 503 (FastFail, the simulator's outcome for the attempts a crash loses);
//   - a timeout to the target (dial, TLS handshake): 504;
//   - any other failure (garbage, TLS): 502 (ServerError, a misbehaving server).
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error, lf *life) {
	var ne net.Error
	switch {
	case errors.Is(err, errInjected):
		w.Header().Set(FaultHeader, "errors")
		http.Error(w, "internal server error (injected by the cortex-tui proxy)", http.StatusInternalServerError)
	case ended(lf):
		panic(http.ErrAbortHandler) // an outage or Close closed the connection: counted in Dropped
	case r.Context().Err() != nil:
		p.canceled(r, lf)
		panic(http.ErrAbortHandler)
	case errors.Is(err, syscall.ECONNREFUSED):
		p.count(&p.counters.UpstreamRefused)
		w.Header().Set(FaultHeader, "upstream-refused")
		http.Error(w, "target refused the connection", http.StatusServiceUnavailable)
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		p.count(&p.counters.UpstreamClosed)
		w.Header().Set(FaultHeader, "upstream-closed")
		http.Error(w, "target closed the connection without an answer", http.StatusServiceUnavailable)
	case errors.As(err, &ne) && ne.Timeout():
		p.count(&p.counters.UpstreamFailed)
		w.Header().Set(FaultHeader, "upstream-timeout")
		http.Error(w, "gateway timeout: "+err.Error(), http.StatusGatewayTimeout)
	default:
		p.count(&p.counters.UpstreamFailed)
		w.Header().Set(FaultHeader, "upstream-failed")
		http.Error(w, "bad gateway: "+err.Error(), http.StatusBadGateway)
	}
}
