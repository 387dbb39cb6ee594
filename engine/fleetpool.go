package engine

import "sync"

// FleetPool is a lease of fleet tokens, held by one engine or shared by the engines of one
// process (FleetConfig.Pool): retries spend from it, and a sync loop tops it up from the
// fleet's bucket once for all of them (FleetPool.Report, FleetPool.Apply) and hands back what it
// holds above twice its target. The zero value is not usable: build it with NewFleetPool. Safe
// for concurrent use.
type FleetPool struct {
	mu    sync.Mutex
	held  float64 // usable leased tokens
	spent float64 // spent since the last applied report
	ret   float64 // tokens being handed back
	need  float64 // the price of the costliest retry refused for want of leased tokens
	last  float64 // tokens spent over the last applied report
	cap   float64 // the fleet's capacity in the last view (0 before any)
}

// NewFleetPool returns an empty pool.
func NewFleetPool() *FleetPool { return &FleetPool{} }

// Held returns the tokens the pool holds now.
func (p *FleetPool) Held() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// spentNow returns the tokens spent since the last applied report.
func (p *FleetPool) spentNow() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.spent
}

// take spends cost leased tokens if the fleet keeps floor unspent after them (free tokens
// plus every lease, less what the pool spent since the view: the tokens burn counts as left;
// at least the pool's own lease, for a store that reports no leases) and the lease holds
// them; a retry refused for want of leased tokens only is remembered, so the next sync asks
// for enough. The reserve counts the other instances' leases too: with 150 members, tokens
// leased out elsewhere are not spent, and counting only the free ones refused low priorities
// while the bucket was nearly full (burn 0.00).
func (p *FleetPool) take(cost, tokens, leased, floor float64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if tokens+max(leased-p.spent, p.held)-cost < floor {
		return false
	}
	if p.held < cost {
		p.need = max(p.need, cost)
		return false
	}
	p.held -= cost
	p.spent += cost
	return true
}

// Report fills the lease side of *r (Spent, Return, Held, Want) for a pool whose smallest
// lease is lease tokens: it asks for max(lease, twice what it spent over the last sync
// interval, the price of the costliest retry refused for want of tokens), capped at the
// capacity of the last view, and moves what it holds above twice that to Return. With leave
// it hands its whole lease back instead (Held 0, Want 0, r.Leave set). Pass r to Apply once the
// store answered; a report that failed stays pending and goes out with the next.
func (p *FleetPool) Report(r *FleetReport, lease float64, leave bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	target := max(lease, 2*p.last, p.need)
	if p.cap > 0 {
		target = min(target, p.cap)
	}
	if leave {
		target = 0
	}
	if p.held > 2*target || leave {
		p.ret += p.held - target
		p.held = target
	}
	r.Spent = p.spent
	r.Return = p.ret
	r.Held = p.held
	r.Want = max(0, target-p.held)
	r.Leave = leave
}

// Apply takes the store's answer v to the report r that Report filled: what r spent and
// handed back leaves the pending figures, the grant joins the lease, and the tokens r held
// that the store does not record (v.Held below r.Held plus the grant: a store restarted empty)
// leave it.
func (p *FleetPool) Apply(r *FleetReport, v *FleetView) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.spent = max(0, p.spent-r.Spent)
	p.ret = max(0, p.ret-r.Return)
	p.last = r.Spent
	p.need = 0
	p.cap = finite(v.Capacity)
	g := finite(v.Granted)
	if excess := r.Held + g - finite(v.Held); excess > 0 {
		p.held = max(0, p.held-excess)
	}
	p.held += g
}
