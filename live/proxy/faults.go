package proxy

import (
	"fmt"
	"math"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Set starts a fault of kind now, or replaces the value of the active one: value is in the
// unit of the table of fault kinds (scenarios.FaultSpecs: seconds for latency, a fraction for
// errors and bad_requests, requests/s for throttle, a factor for capacity, 0 for outage and
// blackhole) and must lie in its bounds. The error names the field at fault ("proxy: throttle
// fault: rate must be a rate > 0 in requests/s, got 0"); the capacity fault needs
// Config.Capacity. A fault lasts until Clear: its duration is the caller's business. Setting
// a throttle restarts its token bucket full (one second's worth of requests).
func (p *Proxy) Set(kind scenarios.FaultKind, value float64) error {
	if field, problem := kind.Check(value); problem != "" {
		if kind.Index() < 0 {
			return fmt.Errorf("proxy: fault: %s", problem)
		}
		return fmt.Errorf("proxy: %s fault: %s %s", kind, field, problem)
	}
	k := kind.Index()
	if k == kCapacity && p.cfg.Capacity == nil {
		return fmt.Errorf("proxy: capacity fault: this target has no capacity control (Config.Capacity is nil); " +
			"a proxy cannot take workers away from a service it does not run")
	}
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	was := p.faults[k].on
	p.faults[k] = active{on: true, value: value}
	var lf *life
	switch k {
	case kOutage:
		if !was {
			p.counters.Outages++
		}
		p.relisten, p.counters.ListenErr = false, nil
		lf = p.endLifeLocked()
	case kThrottle:
		p.tokens, p.tokensAt = math.Max(1, value), p.clock.Now()
	case kErrors:
		p.errorsFrac.Store(math.Float64bits(value))
	}
	p.mu.Unlock()

	switch k {
	case kOutage:
		if lf != nil {
			lf.stop()
		}
		if !was && p.cfg.Outage != nil {
			p.cfg.Outage(true)
		}
	case kLatency:
		if p.cfg.Latency != nil {
			p.cfg.Latency(seconds(value))
		}
	case kCapacity:
		p.cfg.Capacity(value)
	}
	return nil
}

// Clear ends the fault of kind, if active: after an outage the proxy listens again on the
// same port (if the port was taken meanwhile, Counters.ListenErr says so and the proxy tries
// again every ListenRetryInterval), a capacity fault calls Config.Capacity(1) and a latency
// fault Config.Latency(0) when those are set. Requests held by a blackhole stay held until
// their client gives up (they were lost, as in the simulator). Clearing an inactive or
// unknown kind does nothing.
func (p *Proxy) Clear(kind scenarios.FaultKind) {
	k := kind.Index()
	if k < 0 {
		return
	}
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.clearLocked(k)
}

// ClearAll ends every active fault, in the order of the table of fault kinds.
func (p *Proxy) ClearAll() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	for k := range p.faults {
		p.clearLocked(k)
	}
}

// clearLocked ends the fault of index k, if on. Called with ctl held, not mu.
func (p *Proxy) clearLocked(k int) {
	p.mu.Lock()
	if !p.faults[k].on {
		p.mu.Unlock()
		return
	}
	p.faults[k] = active{}
	if k == kErrors {
		p.errorsFrac.Store(0)
	}
	listen := k == kOutage && p.started && !p.closed
	p.mu.Unlock()

	switch k {
	case kOutage:
		if p.cfg.Outage != nil {
			p.cfg.Outage(false)
		}
		if listen {
			p.listenAgain()
		}
	case kLatency:
		if p.cfg.Latency != nil {
			p.cfg.Latency(0)
		}
	case kCapacity:
		p.cfg.Capacity(1)
	}
}

// Active returns the kind and value of every active fault, in the order of the table of fault
// kinds (scenarios.FaultKinds); empty when none is.
func (p *Proxy) Active() []Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Fault
	for k, f := range p.faults {
		if f.on {
			out = append(out, Fault{Kind: scenarios.FaultKinds[k], Value: f.value})
		}
	}
	return out
}

// seconds converts a value in seconds to a duration.
func seconds(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
