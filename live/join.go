package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	cfleet "github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Join says how a run's CORTEX engines join a fleet (Config.Join): every build of the run's
// engines (at the start, at SetStrategy and at Restart) is one fleet.Member named Instance, all
// its engines (one per client) reporting as one and drawing on one lease (an engine.FleetPool),
// synced with the fleet's store once before the engines decide anything, then in the
// background every Interval. Decisions never wait for a sync; engines whose store fails fall
// back to their own view at once and rejoin at the next successful sync. When the engines are
// replaced or the run ends, the member leaves: its lease goes back to the fleet's bucket.
// Strategies without an engine do not join.
type Join struct {
	// Open returns the fleet's store with budget b: the whole fleet's bucket of the strategy the
	// engines run (strategy.FleetConfig, fleet.BudgetOf), which every instance of the fleet
	// passes alike, for the strategy called name (the fleet's configuration, fleet.Options.Config).
	// The run calls it each time it builds engines and closes what it returned (when it is an
	// io.Closer) once those engines have left.
	Open func(name string, b cfleet.Budget) (cfleet.Store, error)
	// Name and Store are what the run's Meta.Fleet shows: the fleet's name and where it meets
	// (a URL without its password).
	Name, Store string
	// Instance is this process's instance name (fleet.CheckName).
	Instance string
	// Interval is the time between two syncs of a member (default fleet.DefaultInterval).
	Interval time.Duration
	// Timeout bounds one sync (default Interval: a slower sync fails, and its engines read their
	// own view until the next one succeeds).
	Timeout time.Duration

	token uint64 // this process's token in the fleet (fleet.MemberConfig.Token), drawn by check
	// engineFor gives the whole fleet's engine configuration of a strategy (Config.engineFor),
	// set by New; nil: the strategy's own (strategy.FleetConfig).
	engineFor func(name string) (engine.Config, bool)
}

// check fills j's defaults and reports what is wrong with it.
func (j *Join) check() error {
	if j.Open == nil {
		return errors.New("live: Join.Open is nil (no fleet store)")
	}
	if j.Interval < 0 || j.Timeout < 0 {
		return fmt.Errorf("live: Join.Interval and Join.Timeout must be >= 0 (got %s, %s)", j.Interval, j.Timeout)
	}
	if j.Interval == 0 {
		j.Interval = cfleet.DefaultInterval
	}
	if j.Timeout == 0 {
		j.Timeout = j.Interval
	}
	j.token = rand.Uint64() | 1
	return cfleet.CheckName("instance", j.Instance)
}

// engineConfig is every joining engine's Config.Fleet, without its Pool (each build of the
// engines gets a pool of its own): its view stays fresh for two and a half sync intervals (at
// least the engine's default), so one late sync does not drop it to LOCAL.
func (j *Join) engineConfig() engine.FleetConfig {
	c := engine.DefaultFleetConfig()
	c.MaxAge = max(c.MaxAge, j.Interval*5/2)
	return c
}

// members is the fleet member of one build of a run's engines, and the store it syncs with.
// Its goroutine runs from join to close.
type members struct {
	m     *cfleet.Member
	n     int // engines
	store cfleet.Store
	stop  context.CancelFunc
	wg    sync.WaitGroup
	leave time.Duration // bounds the last sync at close
}

// join makes one member of every engine of ms (nil entries have none), syncs it once and
// starts its sync loop, or returns nil when the strategy has no engine. A first sync the fleet
// refuses (fleet.ErrRefused: another configuration, the instance name taken) is an error: the
// run does not start.
func (j *Join) join(strategyName string, ms []*member) (*members, error) {
	cfg, ok := strategy.FleetConfig(strategyName)
	if j.engineFor != nil {
		cfg, ok = j.engineFor(strategyName)
	}
	if !ok {
		return nil, nil
	}
	var engines []*engine.Engine
	for _, m := range ms {
		if m != nil && m.holder != nil {
			engines = append(engines, m.holder.Engine())
		}
	}
	if len(engines) == 0 {
		return nil, nil
	}
	store, err := j.Open(strategyName, cfleet.BudgetOf(cfg))
	if err != nil {
		return nil, fmt.Errorf("live: fleet store: %w", err)
	}
	g := &members{store: store, n: len(engines), leave: j.Timeout}
	g.m, err = cfleet.NewMember(engines, store, cfleet.MemberConfig{Instance: j.Instance, Interval: j.Interval, Timeout: j.Timeout, Token: j.token})
	if err != nil {
		g.closeStore()
		return nil, fmt.Errorf("live: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	g.stop = stop
	if err := g.m.Sync(ctx); errors.Is(err, cfleet.ErrRefused) {
		stop()
		g.closeStore()
		return nil, err
	}
	g.wg.Go(func() {
		tick := time.NewTicker(j.Interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = g.m.Sync(ctx)
			}
		}
	})
	return g, nil
}

// close stops the sync loop, waits for it, leaves the fleet (the lease goes back to its
// bucket; bounded by the sync timeout) and closes the store.
func (g *members) close() {
	if g == nil {
		return
	}
	g.stop()
	g.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), g.leave)
	_ = g.m.Leave(ctx)
	cancel()
	g.closeStore()
}

// closeStore closes the store when it can be closed.
func (g *members) closeStore() {
	if c, ok := g.store.(io.Closer); ok {
		_ = c.Close()
	}
}

// health returns what the member and its engines see of the fleet now.
func (g *members) health() *source.FleetHealth {
	h := &source.FleetHealth{Engines: g.n}
	st := g.m.Status()
	for _, e := range g.m.Engines() {
		fs := e.FleetStatus()
		if fs.Mode == engine.FleetJoint {
			h.Joint++
		}
		h.LocalCPS += fs.LocalCPS
		h.Age = max(h.Age, fs.Age)
		if fs.Instances > 0 {
			h.Instances, h.F, h.Burn = fs.Instances, fs.F, fs.Burn
		}
	}
	h.LocalCPS /= float64(g.n)
	h.Held = g.m.Held()
	h.Syncs, h.Failures, h.Repaired = st.Syncs, st.Failures, st.Repaired
	if !st.Healthy && st.LastError != "" {
		h.LastError = st.LastError
	}
	return h
}
