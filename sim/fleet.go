package sim

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// fleetSync is a run's shared budget: one in-process fleet store on the virtual clock, and one
// member per client with a CORTEX engine, all synced at the same virtual instants, in client
// order, so that a run stays a pure function of its seed.
type fleetSync struct {
	store   *fleet.Memory
	member  engine.FleetConfig // every engine's Config.Fleet
	members []*fleet.Member
	every   int64 // ns between two syncs: fleet.DefaultInterval, or the tick if longer
	next    int64 // virtual time of the next sync
	syncs   uint64
}

// newFleetSync returns the fleet of a run of strategy name, or nil when the scenario's budget is
// per client or the strategy has no engine (the others keep their per-client state). The
// fleet's bucket is the strategy's whole-fleet configuration (strategy.FleetConfig: 500 tokens
// for cortex, not 20 shares of 25); each engine keeps its own share as its fallback budget.
func (s *Sim) newFleetSync(name string) (*fleetSync, error) {
	if s.scn.Budget != scenarios.BudgetShared {
		return nil, nil
	}
	cfg, ok := s.fleetConfig(name)
	if !ok {
		return nil, nil
	}
	store, err := fleet.NewMemory(fleet.Options{Budget: fleet.BudgetOf(cfg)}, s.clock)
	if err != nil {
		return nil, err
	}
	fs := &fleetSync{store: store, every: max(int64(fleet.DefaultInterval), s.tick)}
	fs.member = engine.DefaultFleetConfig()
	// Every engine syncs every `every`: a view stays fresh until the next one is applied.
	fs.member.MaxAge = 2 * time.Duration(fs.every)
	return fs, nil
}

// fleetConfig returns the whole fleet's engine configuration of strategy name and whether it
// has one: Options.Engine for cortex when set, else the strategy's own (strategy.FleetConfig).
func (s *Sim) fleetConfig(name string) (engine.Config, bool) {
	if s.opts.Engine != nil && s.usesEngine(name) {
		return *s.opts.Engine, true
	}
	return strategy.FleetConfig(name)
}

// join makes a member of every client with an engine.
func (fs *fleetSync) join(clients []client) error {
	for i := range clients {
		h := clients[i].holder
		if h == nil {
			continue
		}
		m, err := fleet.NewMember([]*engine.Engine{h.Engine()}, fs.store, fleet.MemberConfig{Instance: fmt.Sprintf("client-%d", i), Timeout: -1})
		if err != nil {
			return err
		}
		fs.members = append(fs.members, m)
	}
	return nil
}

// syncFleet syncs every member with the fleet's store at virtual time t.
func (s *Sim) syncFleet(t int64) {
	if t != s.clockAt {
		s.clock.SetElapsed(time.Duration(t))
		s.clockAt = t
	}
	for _, m := range s.fleet.members {
		_ = m.SyncFast() // the in-process store fails only on a bad name or report: none here
	}
	s.fleet.syncs += uint64(len(s.fleet.members))
	s.fleet.next = t + s.fleet.every
}

// health returns what the members' engines see of the fleet now, for the dashboard's fleet
// panel (source.FleetHealth): read after their snapshots at the same virtual time, it changes
// nothing in the run.
func (fs *fleetSync) health() *source.FleetHealth {
	h := &source.FleetHealth{Engines: len(fs.members), Syncs: fs.syncs}
	if len(fs.members) == 0 {
		return h
	}
	for _, m := range fs.members {
		st := m.Engine().FleetStatus()
		if st.Mode == engine.FleetJoint {
			h.Joint++
		}
		h.LocalCPS += st.LocalCPS
		h.Age = max(h.Age, st.Age)
		h.Held += st.Held
		h.Instances, h.F, h.Burn = st.Instances, st.F, st.Burn // one store, synced at one instant: the same view
	}
	h.LocalCPS /= float64(len(fs.members))
	return h
}
