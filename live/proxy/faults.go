package proxy

import (
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Set starts a fault of kind now, or replaces the value of the active one (Injector.Set says
// what each value means and the errors it returns; ErrClosed after Close). An outage closes
// the proxy's listener and every connection, then calls Config.Outage(true); the capacity
// fault needs Config.Capacity.
func (p *Proxy) Set(kind scenarios.FaultKind, value float64) error {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	return p.inj.Set(kind, value)
}

// Clear ends the fault of kind, if active: after an outage the proxy listens again on the
// same port (if the port was taken meanwhile, Counters.ListenErr says so and the proxy tries
// again every ListenRetryInterval), a capacity fault calls Config.Capacity(1) and a latency
// fault Config.Latency(0) when those are set. Requests held by a blackhole stay held until
// their client gives up (they were lost, as in the simulator). Clearing an inactive or
// unknown kind does nothing.
func (p *Proxy) Clear(kind scenarios.FaultKind) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.inj.Clear(kind)
}

// ClearAll ends every active fault, in the order of the table of fault kinds.
func (p *Proxy) ClearAll() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.inj.ClearAll()
}

// Active returns the kind and value of every active fault, in the order of the table of fault
// kinds (scenarios.FaultKinds); empty when none is.
func (p *Proxy) Active() []Fault { return p.inj.Active() }
