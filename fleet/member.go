package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// DefaultInterval is the sync interval of a member (within the 100-250 ms the design asks):
// five syncs a second.
const DefaultInterval = 200 * time.Millisecond

// MemberConfig configures a Member.
type MemberConfig struct {
	Instance string        // this instance's name in the fleet: letters, digits, '-', '_', '.'
	Interval time.Duration // between two syncs, what Run's ticker should tick at (default DefaultInterval); for the status only
	// Timeout bounds one sync (0: the default, Interval/2; negative: no bound, for a store
	// that cannot block, such as Memory): a sync that takes longer fails, and the engines fall
	// back to their local view at once.
	Timeout time.Duration
	// Token identifies the process to the store, which refuses a second instance of the same
	// name with another token (0: a random one). Members that follow each other in one process
	// (the engines rebuilt) pass the same, so that one never finds its predecessor's name taken.
	Token uint64
}

// Member is one instance of a fleet: the engines of one process (one or many), synced with
// the fleet's store as one. Sync sends one report for all of them (their outcomes summed,
// their latency histograms merged, the lease of their shared engine.FleetPool), and applies the
// fleet's view to every engine, or tells each that it lost the fleet; Run calls Sync at every
// tick of an injected ticker; Leave hands the lease back when the engines are done. The
// store's load is one sync per interval per process, whatever its number of engines. Safe for
// concurrent use, but syncs do not overlap: one runs at a time. Build it with NewMember.
type Member struct {
	engines []*engine.Engine
	pool    *engine.FleetPool // the engines' shared lease; nil for one engine with its own
	lease   float64           // the pool's smallest lease (the engines' Config.Fleet.Lease)
	store   Store
	cfg     MemberConfig
	token   uint64

	syncMu sync.Mutex // one sync at a time; guards rs, r and v
	rs     []engine.FleetReport
	r      engine.FleetReport
	v      engine.FleetView

	mu     sync.Mutex
	status Status
}

// Status is what a member has seen of its store, for a dashboard.
type Status struct {
	Instance  string
	Syncs     uint64        // successful syncs
	Failures  uint64        // failed syncs
	LastError string        // the latest failure's error ("" after a success)
	Latency   time.Duration // how long the latest sync took
	Healthy   bool          // the latest sync succeeded
	Refused   bool          // the latest sync was refused (ErrRefused): retrying will not help
	Repaired  uint64        // bad values the store repaired in its state (latest view)
	Instances int           // members in the latest view
}

// NewMember returns a member syncing engines with store as one instance. Every engine must have
// Config.Fleet.Enabled and the same Window and FailureHorizon; several engines must share one
// Config.Fleet.Pool (their process's lease). cfg's instance name must be valid (CheckName).
// Each error names what is wrong.
func NewMember(engines []*engine.Engine, store Store, cfg MemberConfig) (*Member, error) {
	switch {
	case len(engines) == 0:
		return nil, errors.New("fleet: a member needs at least one engine")
	case store == nil:
		return nil, errors.New("fleet: the store is nil")
	case cfg.Interval < 0:
		return nil, fmt.Errorf("fleet: Interval must be >= 0 (got %s)", cfg.Interval)
	}
	first := engines[0]
	if first == nil {
		return nil, errors.New("fleet: engine 0 is nil")
	}
	fc := first.Config()
	for i, e := range engines {
		if e == nil {
			return nil, fmt.Errorf("fleet: engine %d is nil", i)
		}
		c := e.Config()
		switch {
		case !c.Fleet.Enabled:
			return nil, fmt.Errorf("fleet: engine %d's Config.Fleet.Enabled is false", i)
		case c.Window != fc.Window || c.FailureHorizon != fc.FailureHorizon:
			return nil, fmt.Errorf("fleet: engine %d's Window and FailureHorizon differ from engine 0's", i)
		case c.Fleet.Pool != fc.Fleet.Pool:
			return nil, fmt.Errorf("fleet: engine %d does not share engine 0's Config.Fleet.Pool", i)
		}
	}
	if len(engines) > 1 && fc.Fleet.Pool == nil {
		return nil, errors.New("fleet: the engines of one member must share one Config.Fleet.Pool (engine.NewFleetPool)")
	}
	if err := CheckName("instance", cfg.Instance); err != nil {
		return nil, err
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = cfg.Interval / 2
	}
	if cfg.Token == 0 {
		cfg.Token = rand.Uint64() | 1
	}
	return &Member{
		engines: engines, pool: fc.Fleet.Pool, lease: fc.Fleet.Lease, store: store, cfg: cfg,
		token: cfg.Token, rs: make([]engine.FleetReport, len(engines)),
		status: Status{Instance: cfg.Instance},
	}, nil
}

// Sync runs one sync: the engines' report goes to the store and the store's view to every
// engine, or, when the store fails or takes longer than the timeout, every engine is told it
// lost the fleet (each falls back to its local view at once) and the report stays pending for
// the next sync. It returns the store's error. Decisions never wait for it.
func (m *Member) Sync(ctx context.Context) error { return m.sync(ctx, false, true) }

// SyncFast is Sync without the timeout or the status bookkeeping, for a store that cannot
// block (Memory) driven by a virtual clock: the simulator calls it for every client at every
// sync of its virtual time.
func (m *Member) SyncFast() error { return m.sync(context.Background(), false, false) }

// Leave runs the member's last sync: its outcomes since the last sync go out, its whole lease
// goes back to the fleet's bucket, and the store forgets the instance, so that the tokens it
// held are free again at once instead of lost when its membership expires. Call it once the
// engines decide no more (after Run returned); a failed Leave leaves the lease to expire.
func (m *Member) Leave(ctx context.Context) error { return m.sync(ctx, true, true) }

// sync is Sync (Leave with leave), with the timeout and the status when timed.
func (m *Member) sync(ctx context.Context, leave, timed bool) error {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	start := time.Now()
	m.report(leave)
	var err error
	if timed && m.cfg.Timeout > 0 {
		c, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		err = m.store.Sync(c, m.cfg.Instance, &m.r, &m.v)
		cancel()
	} else {
		err = m.store.Sync(ctx, m.cfg.Instance, &m.r, &m.v)
	}
	if err != nil {
		for _, e := range m.engines {
			e.FleetLost()
		}
	} else {
		for i, e := range m.engines {
			e.FleetApply(&m.rs[i], &m.v)
		}
		if m.pool != nil {
			m.pool.Apply(&m.r, &m.v)
		}
	}
	if !timed {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.status.Latency = time.Since(start)
	m.status.Healthy = err == nil
	m.status.Refused = errors.Is(err, ErrRefused)
	if err != nil {
		m.status.Failures++
		m.status.LastError = err.Error()
	} else {
		m.status.Syncs++
		m.status.LastError = ""
		m.status.Repaired = m.v.Repaired
		m.status.Instances = m.v.Instances
	}
	return err
}

// report fills m.r with the engines' reports summed, and the lease (m.syncMu held).
func (m *Member) report(leave bool) {
	for i, e := range m.engines {
		if leave && m.pool == nil {
			e.FleetLeave(&m.rs[i])
		} else {
			e.FleetReport(&m.rs[i])
		}
	}
	first := &m.rs[0]
	m.r = engine.FleetReport{Horizon: first.Horizon, Window: first.Window, Token: m.token}
	for i := range m.rs {
		ri := &m.rs[i]
		m.r.Counts.Add(ri.Counts)
		m.r.Latency.Add(&ri.Latency)
		m.r.Earned += ri.Earned
	}
	if m.pool != nil {
		m.pool.Report(&m.r, m.lease, leave)
	} else {
		m.r.Spent, m.r.Return, m.r.Want, m.r.Held, m.r.Leave = first.Spent, first.Return, first.Want, first.Held, first.Leave
	}
}

// Run syncs at once and then at every tick until ctx is done or ticks is closed. Give it a
// time.Ticker's channel at the interval (live mode), or a channel a test drives.
func (m *Member) Run(ctx context.Context, ticks <-chan time.Time) {
	_ = m.Sync(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-ticks:
			if !ok {
				return
			}
			_ = m.Sync(ctx)
		}
	}
}

// Status returns what the member has seen of its store.
func (m *Member) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// Engines returns the member's engines (the slice is the member's: do not modify it).
func (m *Member) Engines() []*engine.Engine { return m.engines }

// Engine returns the member's first engine (its only one, for a member of one engine).
func (m *Member) Engine() *engine.Engine { return m.engines[0] }

// Held returns the tokens the member's engines hold on lease now.
func (m *Member) Held() float64 {
	if m.pool != nil {
		return m.pool.Held()
	}
	return m.engines[0].FleetStatus().Held
}
