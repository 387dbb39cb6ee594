package proxy

import (
	"net/http"
	"strings"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
)

// FaultHeader is the response header that marks an answer the proxy made up for a fault
// instead of forwarding the request ("errors", "bad_requests", "throttle"), or an answer of
// its own about a failure of the target, "upstream-" and its cause (UpstreamFault:
// "upstream-refused", "upstream-reset", "upstream-timeout", "upstream-oversize-headers",
// "upstream-malformed", "upstream-tls", ...).
const FaultHeader = "X-Cortex-Fault"

// maxHeldBody is how much of a blackholed request's body the proxy reads (and discards) while
// holding it, so that it notices the client going away; a longer body closes the connection.
const maxHeldBody = 1 << 20

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

// handle is the proxy's HTTP handler, for any method and path: protocol upgrades are refused,
// every other request goes through the injector (whose faults act in the order of the
// simulator's service, sim/service.go) to the reverse proxy.
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
	p.mu.Unlock()
	defer p.handlers.Done()
	lf.handler.ServeHTTP(w, r)
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

// count adds one to a counter of the proxy's under mu.
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

// upstreamError answers a request of life lf that the proxy could not (or chose not to)
// answer with the target's response (httputil.ReverseProxy.ErrorHandler). A failure of the
// target is answered with the status that a client classifying like cortexhttp counts as the
// outcome it would have seen talking to the target directly, which is also the simulator's,
// and FaultHeader "upstream-" + its cause (cortexhttp.ErrorCause):
//
//   - the connection closed by an outage or Close: nothing (counted in Dropped);
//   - the client gone: nothing (counted in Canceled);
//   - the target refused the connection (down, crashed), or cannot be reached: 503 (FastFail,
//     the outcome of a refused connection; the proxy cannot refuse the client's connection,
//     which it accepted before it knew);
//   - the target reset or closed the connection without an answer (it crashed holding the
//     request): 503 (FastFail, the simulator's outcome for the attempts a crash loses);
//   - a timeout to the target (dial, TLS handshake): 504;
//   - headers over MaxHeaderBytes, a TLS failure, an answer that is not valid HTTP, anything
//     else: 502 (ServerError, a misbehaving server).
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error, lf *life) {
	switch {
	case ended(lf):
		panic(http.ErrAbortHandler) // an outage or Close closed the connection: counted in Dropped
	case r.Context().Err() != nil:
		p.inj.count(&p.inj.counters.Canceled) // the life has not ended: its client gave up
		panic(http.ErrAbortHandler)
	}
	cause := cortexhttp.ErrorCause(err)
	p.countUpstream(cause, err)
	w.Header().Set(FaultHeader, UpstreamFault(cause))
	switch cause {
	case cortexhttp.CauseRefused, cortexhttp.CauseUnreachable:
		http.Error(w, "target unreachable: "+err.Error(), http.StatusServiceUnavailable)
	case cortexhttp.CauseReset:
		http.Error(w, "target closed the connection without an answer", http.StatusServiceUnavailable)
	case cortexhttp.CauseTimeout:
		http.Error(w, "gateway timeout: "+err.Error(), http.StatusGatewayTimeout)
	default:
		http.Error(w, "bad gateway: "+err.Error(), http.StatusBadGateway)
	}
}

// UpstreamFault is the FaultHeader value of the proxy's answer for a failure of the target of
// this cause: "upstream-" + the cause ("upstream-oversize-headers").
func UpstreamFault(c cortexhttp.Cause) string { return "upstream-" + string(c) }

// UpstreamCause is the cause of a FaultHeader value the proxy answered a failure of the target
// with (UpstreamFault), and whether it is one.
func UpstreamCause(fault string) (cortexhttp.Cause, bool) {
	c, ok := strings.CutPrefix(fault, "upstream-")
	return cortexhttp.Cause(c), ok
}

// countUpstream counts a failure of the target of this cause, and keeps the first error of
// each cause.
func (p *Proxy) countUpstream(c cortexhttp.Cause, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.counters.Upstream == nil {
		p.counters.Upstream = map[cortexhttp.Cause]int64{}
		p.counters.UpstreamErr = map[cortexhttp.Cause]string{}
	}
	p.counters.Upstream[c]++
	if _, seen := p.counters.UpstreamErr[c]; !seen {
		p.counters.UpstreamErr[c] = err.Error()
	}
}
