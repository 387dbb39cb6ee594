package fleet_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
)

// benchMember returns an engine with outcomes in its window, a member syncing it with store
// as instance name, and its first sync done (the engine reads the fleet view).
func benchMember(b *testing.B, store fleet.Store, name string) *fleet.Member {
	b.Helper()
	cfg := engine.DefaultConfig()
	cfg.Seed = 7
	cfg.TokenBucketCapacity = 1 << 40
	cfg.Fleet = engine.DefaultFleetConfig()
	cfg.Fleet.MaxAge = time.Hour
	e, err := engine.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		if i%10 == 0 {
			e.RecordFailure(200 * time.Millisecond)
		} else {
			e.RecordSuccess(time.Duration(20+i%30) * time.Millisecond)
		}
	}
	m, err := fleet.NewMember([]*engine.Engine{e}, store, fleet.MemberConfig{Instance: name})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkDecisionWhileSyncing measures ShouldRetry on a wall-clock engine while its member
// syncs in the background with an in-process store as fast as it can (a ticker of 1 ms, five
// to twenty times more often than a real fleet): the decisions share only the engine's mutex
// with the sync, never the store.
func BenchmarkDecisionWhileSyncing(b *testing.B) {
	for _, syncing := range []bool{false, true} {
		b.Run(fmt.Sprintf("syncing=%v", syncing), func(b *testing.B) {
			store, err := fleet.NewMemory(fleet.Options{Budget: fleet.Budget{Capacity: 1 << 50, RefillRate: 1 << 40}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			m := benchMember(b, store, "bench")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			if syncing {
				tick := time.NewTicker(time.Millisecond)
				go func() { defer close(done); m.Run(ctx, tick.C) }()
				defer tick.Stop()
			} else {
				close(done)
			}
			e := m.Engine()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				e.ShouldRetry(i%11, i%3, true)
			}
			b.StopTimer()
			cancel()
			<-done
		})
	}
}

// BenchmarkSyncMemory measures one sync of a member with the in-process store (five members
// publishing): the engine's report and apply, and the store's merge of the window.
func BenchmarkSyncMemory(b *testing.B) {
	store, err := fleet.NewMemory(fleet.Options{Budget: fleet.Budget{Capacity: 500, RefillRate: 100}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	var ms []*fleet.Member
	for i := range 5 {
		ms = append(ms, benchMember(b, store, fmt.Sprintf("i%d", i)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m := ms[i%len(ms)]
		m.Engine().RecordSuccess(25 * time.Millisecond)
		if err := m.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
