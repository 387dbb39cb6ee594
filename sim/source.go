package sim

import (
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// simSource adapts a Sim to source.Source: a mutex guards the Sim, and Advance runs whole
// ticks, carrying the fraction of a tick over to the next call.
type simSource struct {
	mu    sync.Mutex
	sim   *Sim
	carry time.Duration
}

// simSource is the simulator's source.Source, keeps its latest decisions for the inspector,
// and says when its engines share a budget.
var (
	_ source.Source    = (*simSource)(nil)
	_ source.Inspector = (*simSource)(nil)
	_ source.Fleet     = (*simSource)(nil)
	_ source.Recording = (*simSource)(nil)
)

// NewSource returns a source.Source running scn with strategyName from seed. It is safe for
// concurrent use (the dashboard advances it from a command goroutine and sends controls from
// its Update loop). It keeps the latest DecisionsKept retry decisions (source.Inspector).
func NewSource(scn scenarios.Scenario, strategyName string, seed int64) (source.Source, error) {
	return NewSourceWith(scn, strategyName, seed, Options{})
}

// NewSourceWith returns a source.Source as NewSource does, running with opts.
func NewSourceWith(scn scenarios.Scenario, strategyName string, seed int64, opts Options) (source.Source, error) {
	s, err := NewWith(scn, strategyName, seed, opts)
	if err != nil {
		return nil, err
	}
	s.KeepDecisions(DecisionsKept)
	return &simSource{sim: s}, nil
}

// RecentDecisions returns a copy of the latest retry decisions, oldest first.
func (p *simSource) RecentDecisions() []source.DecisionRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sim.RecentDecisions()
}

// Played returns the scenario as the run played it (Sim.Played).
func (p *simSource) Played() scenarios.Scenario {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sim.Played()
}

// Meta describes the run.
func (p *simSource) Meta() source.Meta {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sim.Meta()
}

// Fleet says which fleet the clients' engines share, if any.
func (p *simSource) Fleet() *source.FleetMeta {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sim.Fleet()
}

// Advance runs the whole ticks that fit in d plus the carried-over fraction and returns
// their snapshots, oldest first; nil once the run is over. A negative d counts as 0.
func (p *simSource) Advance(d time.Duration) []source.Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sim.Done() {
		return nil
	}
	p.carry += max(d, 0)
	tick := p.sim.scn.Tick
	n := int(p.carry / tick)
	p.carry -= time.Duration(n) * tick
	var out []source.Snapshot
	for i := 0; i < n && !p.sim.Done(); i++ {
		out = append(out, p.sim.Step())
	}
	return out
}

// Control applies c (Sim.Control); a restart also drops the carried fraction of a tick.
func (p *simSource) Control(c source.ControlEvent) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.Control == source.ControlRestart {
		p.carry = 0
	}
	return p.sim.Control(c)
}

// Close releases nothing (the simulator holds no goroutines) and returns nil.
func (p *simSource) Close() error { return nil }
