package proxy

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// DefaultAddr is the address a Proxy listens on when Config.Addr is empty: loopback, a port
// chosen by the system once, at Start.
const DefaultAddr = "127.0.0.1:0"

// Config configures a Proxy. Target is required; every other field has a working zero value.
// A Config is a plain value; Validate names the first bad field.
type Config struct {
	// Target is the URL of the service behind the proxy, http or https, with a host. It is the
	// only host the proxy ever contacts: every request is sent to its scheme and host, whatever
	// URL or Host header the client used, and its path (if any) is the base of every request's
	// path, its query merged into every request's query (httputil.ProxyRequest.SetURL). Its
	// user info (http://user:password@host/) is sent as HTTP basic authentication on every
	// request that carries no Authorization header of its own, as http.Client does; it never
	// appears in an error or a URL the proxy returns.
	Target *url.URL
	// Addr is the address to listen on, host:port. Port 0 picks a free port once, at Start;
	// after an outage the proxy listens again on that same port. Default DefaultAddr.
	Addr string
	// Capacity, if set, is called with the capacity fault's factor in (0, 1] when the fault is
	// set, and with 1 when it is cleared: the embedded target's SetCapacity. Nil: Set refuses
	// the capacity fault with an error (a proxy cannot take workers away from a service).
	Capacity func(factor float64)
	// Latency, if set, is called with the latency fault's added time when the fault is set,
	// and with 0 when it is cleared: the embedded target's SetLatency, which adds it to the
	// service time so that capacity drops too, as in the simulator. Nil: the proxy itself
	// delays each request by that much before forwarding it (the response time grows; the
	// target's capacity does not change).
	Latency func(extra time.Duration)
	// Outage, if set, is called with true after the proxy has closed its listener for an
	// outage and with false before it listens again: the embedded target's Down and Up, so
	// that the target loses its queue and warms up after the outage, as in the simulator.
	// Nil: only the proxy's listener goes (clients see connection refused all the same).
	Outage func(down bool)
	// Transport sends the forwarded requests to Target. Default: a tuned *http.Transport
	// (keep-alive, up to DefaultMaxIdleConnsPerHost idle connections, no environment proxy,
	// a dialer that refuses any address but Target's, response headers limited to
	// MaxHeaderBytes). Whatever the transport, a request whose URL is not on Target's scheme
	// and host is refused before it reaches it.
	Transport http.RoundTripper
	// MaxBody, if > 0, is the most bytes of a response body the proxy reads from the target
	// and forwards: once its client has had that many, the proxy stops reading, closes its
	// connection to the target and ends the answer's connection (a client reading further
	// sees the body cut short). Live mode sets it to its clients' drain limit: they never read
	// more, so a 100 MB or endless body costs the target's connection that much, not what the
	// socket buffers would have taken. 0: bodies are forwarded whole.
	MaxBody int64
}

// MaxHeaderBytes bounds the response headers the default transport reads from the target
// (status line included): a target sending more is answered 502 (the proxy reads no more), so a
// flood of headers costs the proxy at most this much per request, not net/http's default of
// 10 MB. It is what live mode's clients allow too.
const MaxHeaderBytes = 64 << 10

// DefaultMaxIdleConnsPerHost is the idle connection pool of the default transport to the
// target: enough to forward thousands of requests/s without opening a connection for each.
const DefaultMaxIdleConnsPerHost = 1024

// ConfigError is a bad field of a Config.
type ConfigError struct {
	Field string // "Target", "Addr", "MaxBody"
	Msg   string
}

// Error returns "proxy: Config.<Field>: <Msg>".
func (e *ConfigError) Error() string { return "proxy: Config." + e.Field + ": " + e.Msg }

// Validate returns a *ConfigError naming the first bad field, or nil.
func (c Config) Validate() error {
	switch {
	case c.Target == nil:
		return &ConfigError{"Target", "required (the URL of the service behind the proxy)"}
	case c.Target.Scheme != "http" && c.Target.Scheme != "https":
		return &ConfigError{"Target", fmt.Sprintf("scheme must be http or https, got %q in %q", c.Target.Scheme, c.Target.Redacted())}
	case c.Target.Opaque != "":
		return &ConfigError{"Target", fmt.Sprintf("not a hierarchical URL: %q", c.Target.Redacted())}
	case c.Target.Host == "":
		return &ConfigError{"Target", fmt.Sprintf("no host in %q", c.Target.Redacted())}
	}
	if c.MaxBody < 0 {
		return &ConfigError{"MaxBody", fmt.Sprintf("must be >= 0 bytes, got %d", c.MaxBody)}
	}
	if c.Addr != "" {
		if _, _, err := net.SplitHostPort(c.Addr); err != nil {
			return &ConfigError{"Addr", fmt.Sprintf("must be host:port, got %q", c.Addr)}
		}
	}
	return nil
}

// targetAddr is the host:port the proxy dials for u: its port, or the scheme's default.
func targetAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Fault is one active fault: its kind and its value in the unit of the table of fault kinds
// (scenarios.FaultSpecs; 0 for outage and blackhole).
type Fault struct {
	Kind  scenarios.FaultKind
	Value float64
}

// String names the fault as the dashboard does: "outage", "latency +500ms", "throttle 120/s".
func (f Fault) String() string { return f.Kind.Label(f.Value) }

// Counters are the running totals of a Proxy or an Injector since New (an Injector's leave the
// rows about the target and the listener, Upstream, UpstreamErr, ListenErr, ListenRetries and
// Truncated, at zero).
// Every request that reaches the injector is counted in Requests and, once the faults have decided, in one of Forwarded,
// BadRequests, Throttled or Blackholed (or in none yet while a latency fault delays it; it was
// counted in Delayed). The other rows count how requests ended. Connection attempts refused
// during an outage never reach the proxy (the kernel refuses them): they are counted nowhere.
type Counters struct {
	Requests    int64 // requests received
	Forwarded   int64 // requests sent to the target
	BadRequests int64 // requests answered 400 without forwarding (bad_requests fault)
	Throttled   int64 // requests answered 429 with Retry-After without forwarding (throttle fault)
	Blackholed  int64 // requests held unanswered (blackhole fault)
	Delayed     int64 // requests delayed before forwarding (latency fault without Config.Latency)

	Errors int64 // of Forwarded: answers of the target replaced by a 500 (errors fault)
	// Upstream counts the forwarded requests the proxy answered itself because it got no
	// answer from the target, by cause (cortexhttp.ErrorCause): refused, unreachable and reset
	// answered 503, timeout 504, the rest 502 (see the package doc); nil before the first.
	Upstream map[cortexhttp.Cause]int64
	// UpstreamErr is the error of the first failure of each cause counted in Upstream.
	UpstreamErr map[cortexhttp.Cause]string
	// Canceled counts the requests whose client gave up before the answer: held, delayed or
	// forwarded. Dropped counts those in progress when an outage closed their connection.
	Canceled, Dropped int64

	Outages int64 // outages started
	// ListenErr is the last failure to listen again on the proxy's port after an outage (the
	// port taken by another process meanwhile), retried every ListenRetryInterval until it
	// succeeds; nil while listening, or while an outage is on.
	ListenErr error
	// ListenRetries counts the failed attempts to listen again after outages.
	ListenRetries int64
	// Truncated counts the answers whose body was cut at Config.MaxBody.
	Truncated int64
}

// ListenRetryInterval is how often a Proxy tries again to listen on its port when the end of
// an outage found it taken.
const ListenRetryInterval = 100 * time.Millisecond
