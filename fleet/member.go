package fleet

import (
	"context"
	"errors"
	"fmt"
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
	// that cannot block, such as Memory): a sync that takes longer fails, and the engine falls
	// back to its local view at once.
	Timeout time.Duration
}

// Member keeps one engine in sync with its fleet's store: Sync publishes the engine's report
// and applies the fleet's view (or tells the engine it lost the fleet); Run calls Sync at every
// tick of an injected ticker. Safe for concurrent use, but syncs do not overlap: one runs at a
// time. Build it with NewMember.
type Member struct {
	eng   *engine.Engine
	store engine.FleetStore
	cfg   MemberConfig

	syncMu sync.Mutex // one sync at a time; guards r and v
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
}

// NewMember returns a member syncing eng with store. eng must have Config.Fleet.Enabled; cfg's
// instance name must be valid (CheckName). Each error names what is wrong.
func NewMember(eng *engine.Engine, store engine.FleetStore, cfg MemberConfig) (*Member, error) {
	switch {
	case eng == nil:
		return nil, errors.New("fleet: the engine is nil")
	case store == nil:
		return nil, errors.New("fleet: the store is nil")
	case !eng.Config().Fleet.Enabled:
		return nil, errors.New("fleet: the engine's Config.Fleet.Enabled is false")
	case cfg.Interval < 0:
		return nil, fmt.Errorf("fleet: Interval must be >= 0 (got %s)", cfg.Interval)
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
	return &Member{eng: eng, store: store, cfg: cfg, status: Status{Instance: cfg.Instance}}, nil
}

// Sync runs one sync: the engine's report goes to the store and the store's view to the
// engine, or, when the store fails or takes longer than the timeout, the engine is told it lost
// the fleet (it falls back to its local view at once) and the report stays pending for the next
// sync. It returns the store's error. Decisions never wait for it.
func (m *Member) Sync(ctx context.Context) error {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	start := time.Now()
	m.eng.FleetReport(&m.r)
	var err error
	if m.cfg.Timeout > 0 {
		c, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		err = m.store.Sync(c, m.cfg.Instance, &m.r, &m.v)
		cancel()
	} else {
		err = m.store.Sync(ctx, m.cfg.Instance, &m.r, &m.v)
	}
	if err != nil {
		m.eng.FleetLost()
	} else {
		m.eng.FleetApply(&m.r, &m.v)
	}
	m.mu.Lock()
	m.status.Latency = time.Since(start)
	m.status.Healthy = err == nil
	if err != nil {
		m.status.Failures++
		m.status.LastError = err.Error()
	} else {
		m.status.Syncs++
		m.status.LastError = ""
	}
	m.mu.Unlock()
	return err
}

// SyncFast is Sync without the timeout or the status bookkeeping, for a store that cannot
// block (Memory) driven by a virtual clock: the simulator calls it for every client at every
// sync of its virtual time.
func (m *Member) SyncFast() error {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	m.eng.FleetReport(&m.r)
	if err := m.store.Sync(context.Background(), m.cfg.Instance, &m.r, &m.v); err != nil {
		m.eng.FleetLost()
		return err
	}
	m.eng.FleetApply(&m.r, &m.v)
	return nil
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

// Engine returns the member's engine.
func (m *Member) Engine() *engine.Engine { return m.eng }
