package live

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/cortex-tui/cortex-tui/live/target"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Faults is the fault side of a stack: the fault-injecting proxy's controls. Set starts (or
// replaces) a fault of kind with value (scenarios.FaultSpec says what the value means), Clear
// ends it, ClearAll ends every fault. Implementations are safe for concurrent use.
type Faults interface {
	Set(kind scenarios.FaultKind, value float64) error
	Clear(kind scenarios.FaultKind)
	ClearAll()
}

// Stack is what a run sends its traffic through: the URL every request goes to (the proxy in
// front of the target), the proxy's fault controls, and the embedded target when there is one
// (nil for a user's service given with --target: its state is then unknown to the run).
type Stack struct {
	URL    *url.URL
	Faults Faults
	Target *target.Target
	// Close stops what the builder started (proxy, target); nil when there is nothing to stop.
	Close func() error
}

// StackBuilder builds and starts a Stack; a run calls it when it starts and at every Restart,
// and closes the stack on Close. ctx ends with the stack's life.
type StackBuilder func(ctx context.Context) (*Stack, error)

// NewBaseTransport returns the pooled http.Transport the fleet's clients send their attempts
// with: no proxy from the environment (only the URL given is ever contacted), at most maxConns
// connections (an attempt waits for one beyond that, which counts in its latency), as many kept
// idle (so a steady load reuses connections instead of exhausting ports), response headers
// limited to 64 KiB, no compression.
func NewBaseTransport(maxConns int) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:           maxConns,
		MaxIdleConnsPerHost:    maxConns,
		MaxConnsPerHost:        maxConns,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     true,
	}
}

// maxConns is the connection cap of the default base transport: half the requests in flight
// at most (a request waiting for its retry holds no connection), at most 2,048, so that the
// client's, the proxy's and the target's file descriptors stay well under a 20,000 limit.
func maxConns(inFlight int) int { return max(1, min(inFlight/2, 2048)) }
