package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	cfleet "github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Join says how a run's CORTEX engines join a fleet (Config.Join): every engine the run builds
// (at the start, at SetStrategy and at Restart) becomes a fleet.Member named Instance.0,
// Instance.1, ... (one per client), synced with the fleet's store once before the engines
// decide anything, then in the background every Interval, each on its own ticker (spread over
// one interval). Decisions never
// wait for a sync; an engine whose store fails falls back to its own view at once and rejoins
// at its next successful sync. Strategies without an engine do not join.
type Join struct {
	// Open returns the fleet's store with budget b: the whole fleet's bucket of the strategy the
	// engines run (strategy.FleetConfig, fleet.BudgetOf), which every instance of the fleet
	// passes alike. The run calls it each time it builds engines and closes what it returned
	// (when it is an io.Closer) once those engines have left.
	Open func(b cfleet.Budget) (engine.FleetStore, error)
	// Name and Store are what the run's Meta.Fleet shows: the fleet's name and where it meets
	// (a URL without its password).
	Name, Store string
	// Instance is this process's instance name; with the member numbers appended it must pass
	// fleet.CheckName.
	Instance string
	// Interval is the time between two syncs of a member (default fleet.DefaultInterval).
	Interval time.Duration
	// Timeout bounds one sync (default Interval: a slower sync fails, and its engine reads its
	// own view until the next one succeeds).
	Timeout time.Duration
}

// check fills j's defaults and reports what is wrong with it for n clients.
func (j *Join) check(n int) error {
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
	return cfleet.CheckName("instance", memberName(j.Instance, max(n-1, 0)))
}

// engineConfig is every joining engine's Config.Fleet: its view stays fresh for two and a half
// sync intervals (at least the engine's default), so one late sync does not drop it to LOCAL;
// its smallest lease is one token, not the default four: a live fleet has one member per
// client of every instance (three instances of fifty clients: 150), and 150 leases of four
// would hold more than a 500-token bucket, leaving no free token for the priority reserve
// (every retry under priority 10 refused for want of budget while nothing was spent).
func (j *Join) engineConfig() engine.FleetConfig {
	c := engine.DefaultFleetConfig()
	c.MaxAge = max(c.MaxAge, j.Interval*5/2)
	c.Lease = 1
	return c
}

// memberName is the fleet name of client i's engine.
func memberName(instance string, i int) string { return fmt.Sprintf("%s.%d", instance, i) }

// members are the fleet members of one build of a run's engines, and the store they sync
// with. Their goroutines run from join to close.
type members struct {
	list  []*cfleet.Member
	store engine.FleetStore
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

// join makes a member of every engine of ms (nil entries have none) and starts their sync
// loops, or returns nil when the strategy has no engine.
func (j *Join) join(strategyName string, ms []*member) (*members, error) {
	cfg, ok := strategy.FleetConfig(strategyName)
	if !ok {
		return nil, nil
	}
	store, err := j.Open(cfleet.BudgetOf(cfg))
	if err != nil {
		return nil, fmt.Errorf("live: fleet store: %w", err)
	}
	g := &members{store: store}
	for i, m := range ms {
		if m == nil || m.holder == nil {
			continue
		}
		mb, err := cfleet.NewMember(m.holder.Engine(), store, cfleet.MemberConfig{
			Instance: memberName(j.Instance, i), Interval: j.Interval, Timeout: j.Timeout})
		if err != nil {
			g.closeStore()
			return nil, fmt.Errorf("live: client %d: %w", i, err)
		}
		g.list = append(g.list, mb)
	}
	ctx, stop := context.WithCancel(context.Background())
	g.stop = stop
	g.syncAll(ctx)
	for i, mb := range g.list {
		delay := j.Interval * time.Duration(i) / time.Duration(len(g.list))
		g.wg.Go(func() { runMember(ctx, mb, delay, j.Interval) })
	}
	return g, nil
}

// syncAll syncs every member once, all at once, and returns when every sync has returned
// (each within the member's timeout): a run whose store answers starts in the fleet (mode
// FLEET), with its first leases, before it sends anything.
func (g *members) syncAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, mb := range g.list {
		wg.Go(func() { _ = mb.Sync(ctx) })
	}
	wg.Wait()
}

// runMember runs one member's sync loop: its first sync after delay, then one per interval.
func runMember(ctx context.Context, mb *cfleet.Member, delay, interval time.Duration) {
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	mb.Run(ctx, tick.C)
}

// close stops every sync loop, waits for them, and closes the store.
func (g *members) close() {
	if g == nil {
		return
	}
	g.stop()
	g.wg.Wait()
	g.closeStore()
}

// closeStore closes the store when it can be closed.
func (g *members) closeStore() {
	if c, ok := g.store.(io.Closer); ok {
		_ = c.Close()
	}
}

// health returns what the members and their engines see of the fleet now.
func (g *members) health() *source.FleetHealth {
	h := &source.FleetHealth{Engines: len(g.list)}
	if len(g.list) == 0 {
		return h
	}
	freshest := time.Duration(-1)
	for _, mb := range g.list {
		fs := mb.Engine().FleetStatus()
		if fs.Mode == engine.FleetJoint {
			h.Joint++
		}
		h.LocalCPS += fs.LocalCPS
		h.Age = max(h.Age, fs.Age)
		h.Held += fs.Held
		if fs.Instances > 0 && (freshest < 0 || fs.Age < freshest) {
			freshest = fs.Age
			h.Instances, h.F, h.Burn = fs.Instances, fs.F, fs.Burn
		}
		st := mb.Status()
		h.Syncs += st.Syncs
		h.Failures += st.Failures
		if !st.Healthy && st.LastError != "" {
			h.LastError = st.LastError
		}
	}
	h.LocalCPS /= float64(len(g.list))
	return h
}
