package live

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/cortex-tui/cortex-tui/live/proxy"
	"github.com/cortex-tui/cortex-tui/live/upstream"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Faults is the fault side of a stack: the fault injector's controls (a *proxy.Injector
// inside the embedded target, or a *proxy.Proxy in front of a user's service). Set starts (or
// replaces) a fault of kind with value (scenarios.FaultSpec says what the value means), Clear
// ends it, ClearAll ends every fault. Implementations are safe for concurrent use.
type Faults interface {
	Set(kind scenarios.FaultKind, value float64) error
	Clear(kind scenarios.FaultKind)
	ClearAll()
}

// Stack is what a run sends its traffic through: the URL every request goes to (the embedded
// target, whose server carries the fault injector, or the proxy in front of a user's
// service), the fault controls, and the embedded target when there is one
// (nil for a user's service given with --target: its state is then unknown to the run).
type Stack struct {
	URL    *url.URL
	Faults Faults
	Target *upstream.Target
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

// ScaledTarget returns the embedded target's configuration for a scenario's service scaled by
// scale (rates and capacity shrink together): workers and queue limit times scale (at least
// one worker), the service time and everything else as in the scenario.
func ScaledTarget(svc scenarios.Service, scale float64, seed int64) upstream.Config {
	cfg := upstream.FromScenario(svc)
	if scale > 0 && scale < 1 {
		cfg.Workers = max(1, int(math.Round(float64(svc.Workers)*scale)))
		cfg.QueueLimit = int(math.Round(float64(svc.QueueLimit) * scale))
	}
	if seed != 0 {
		cfg.Seed = seed
	}
	return cfg
}

// EmbeddedStack returns a builder that starts an embedded target configured by cfg with the
// fault injector mounted inside its own server (upstream.WithMiddleware), wired to the target's
// own controls: a capacity fault scales its workers, a latency fault adds to its service time
// (capacity drops too) and an outage takes the target down (its listener closed: connections
// refused; it loses its queue and warms up afterwards), as in the simulator. The requests go
// straight to the target's port: one socket hop, with the faults of the proxy (package
// live/proxy) acting in the same order. The Stack's URL is the target's.
func EmbeddedStack(cfg upstream.Config) StackBuilder {
	return func(ctx context.Context) (*Stack, error) {
		var tg *upstream.Target // set before any hook can run: faults are set once the stack is built
		inj := proxy.NewInjector(proxy.InjectorConfig{
			Capacity: func(f float64) { _ = tg.SetCapacity(f) },
			Latency:  func(d time.Duration) { _ = tg.SetLatency(d) },
			Outage: func(down bool) {
				if down {
					_ = tg.Down()
				} else {
					_ = tg.Up()
				}
			},
		})
		tg, err := upstream.New(cfg, upstream.WithMiddleware(inj.Wrap))
		if err != nil {
			return nil, err
		}
		if err := tg.Start(context.Background()); err != nil {
			return nil, fmt.Errorf("starting the embedded target on %s: %w", cfg.Addr, err)
		}
		u, err := url.Parse(tg.URL())
		if err != nil {
			return nil, errors.Join(err, tg.Close())
		}
		return &Stack{URL: u, Faults: inj, Target: tg, Close: func() error {
			return errors.Join(inj.Close(), tg.Close())
		}}, nil
	}
}

// ExternalStack returns a builder that sends the traffic to a user's service at u through the
// fault proxy (its faults then act on the traffic to u; a capacity fault is refused: a proxy
// cannot take workers away). u is checked first (as ParseTarget does), then dialled once: a host
// that refuses connections, or does not resolve, is an error naming it (CheckTarget, which
// checks its TLS too, is for once before the run, not for each stack). maxBody is the most bytes of a response body the proxy
// forwards (proxy.Config.MaxBody): the run's Config.DrainLimit, which its clients never read
// past (0: no limit).
func ExternalStack(u *url.URL, maxBody int64) StackBuilder {
	return func(ctx context.Context) (*Stack, error) {
		if err := checkTargetURL(u); err != nil {
			return nil, err
		}
		dctx, cancel := context.WithTimeout(ctx, checkTimeout)
		conn, err := dialTarget(dctx, u)
		cancel()
		if err != nil {
			return nil, err
		}
		_ = conn.Close()
		// The proxy forwards to the host; the requests carry the URL's path and query, so
		// that the service sees exactly the URL given.
		host := &url.URL{Scheme: u.Scheme, Host: u.Host, User: u.User}
		px, err := startProxy(proxy.Config{Target: host, MaxBody: maxBody})
		if err != nil {
			return nil, err
		}
		to := *px.URL()
		to.Path, to.RawPath, to.RawQuery = u.Path, u.RawPath, u.RawQuery
		return &Stack{URL: &to, Faults: px, Close: px.Close}, nil
	}
}

// startProxy builds and starts a fault proxy on loopback.
func startProxy(cfg proxy.Config) (*proxy.Proxy, error) {
	px, err := proxy.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := px.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("starting the fault proxy: %w", err)
	}
	return px, nil
}

// NoFaults refuses every fault: a stack without a fault proxy (benchmarks, tests).
type NoFaults struct{}

// Set refuses the fault.
func (NoFaults) Set(kind scenarios.FaultKind, _ float64) error {
	return fmt.Errorf("%s needs the fault proxy", kind)
}

// Clear does nothing.
func (NoFaults) Clear(scenarios.FaultKind) {}

// ClearAll does nothing.
func (NoFaults) ClearAll() {}

// ScaledScenario returns scn as a run scaled by scale plays it, for the simulator: class rates,
// the service's workers and queue limit, and throttle faults' rates times scale (as Config.Scale,
// ScaledTarget and the run's fault timeline scale them), everything else unchanged.
func ScaledScenario(scn scenarios.Scenario, scale float64) scenarios.Scenario {
	if !(scale > 0 && scale < 1) {
		return scn
	}
	scn.Classes = append([]scenarios.Class(nil), scn.Classes...)
	for i := range scn.Classes {
		scn.Classes[i].Rate *= scale
	}
	cfg := ScaledTarget(scn.Service, scale, 0)
	scn.Service.Workers, scn.Service.QueueLimit = cfg.Workers, cfg.QueueLimit
	scn.Faults = append([]scenarios.Fault(nil), scn.Faults...)
	for i, f := range scn.Faults {
		scn.Faults[i] = scaledFault(f, scale)
	}
	scn.Controls = append([]scenarios.ScheduledControl(nil), scn.Controls...)
	for i, c := range scn.Controls {
		if c.Control == scenarios.ControlInject {
			scn.Controls[i].Fault = scaledFault(c.Fault, scale)
		}
	}
	return scn
}

// scaledFault returns f as a run scaled by scale plays it: a throttle's rate times scale (at
// least 1 request/s), any other fault as it is. A run keeps its scenario's and its controls'
// faults at full scale (what a recording holds) and scales each as it applies it.
func scaledFault(f scenarios.Fault, scale float64) scenarios.Fault {
	if f.Kind == scenarios.FaultThrottle && scale > 0 && scale < 1 {
		f.Value = max(1, f.Value*scale)
	}
	return f
}
