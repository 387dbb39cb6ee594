package fleet_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// memoryBackend is the in-process store behind the suite's harness: Memory stores on one
// manual clock, which a kill makes fail, a restart replaces by empty ones, and a stall holds
// until the caller's context ends.
type memoryBackend struct {
	clock *engine.ManualClock

	mu      sync.Mutex
	stores  map[string]*fleet.Memory
	opts    map[string]fleet.Options
	down    bool
	stalled chan struct{} // closed when the stall ends; nil when not stalled
}

// errDown is what a killed memory backend answers.
var errDown = errors.New("memory backend killed")

func (b *memoryBackend) store(t *testing.T, name string, opts fleet.Options) fleet.Store {
	m, err := fleet.NewMemory(opts, b.clock)
	require.NoError(t, err)
	b.mu.Lock()
	b.stores[name], b.opts[name] = m, opts
	b.mu.Unlock()
	return storeFunc(func(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error {
		b.mu.Lock()
		down, stalled, m := b.down, b.stalled, b.stores[name]
		b.mu.Unlock()
		if stalled != nil {
			select {
			case <-stalled:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if down {
			return errDown
		}
		return m.Sync(ctx, inst, r, v)
	})
}

type storeFunc func(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error

func (f storeFunc) Sync(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error {
	return f(ctx, inst, r, v)
}

// TestMemorySuite runs the store suite against the in-process store.
func TestMemorySuite(t *testing.T) {
	b := &memoryBackend{
		clock:  engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		stores: map[string]*fleet.Memory{},
		opts:   map[string]fleet.Options{},
	}
	storetest.Run(t, storetest.Harness{
		New:   b.store,
		Clock: b.clock,
		Wait:  b.clock.Advance,
		Kill:  func(*testing.T) { b.mu.Lock(); b.down = true; b.mu.Unlock() },
		Restart: func(t *testing.T) {
			b.mu.Lock()
			defer b.mu.Unlock()
			for name := range b.stores {
				m, err := fleet.NewMemory(b.opts[name], b.clock)
				require.NoError(t, err)
				b.stores[name] = m
			}
			b.down = false
		},
		Stall: func(*testing.T) func() {
			ch := make(chan struct{})
			b.mu.Lock()
			b.stalled = ch
			b.mu.Unlock()
			return func() {
				b.mu.Lock()
				b.stalled = nil
				b.mu.Unlock()
				close(ch)
			}
		},
	})
}
