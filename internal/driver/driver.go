// Package driver is what the clients that retry real calls through a strategy share
// (cortexgrpc, for gRPC calls): the strategy built by default, its calls serialised when it is
// not safe for concurrent use, the clock read once per attempt, the count of calls waiting for
// a retry fed to the strategy's SetPending, and the wait before a retry, raced against the
// call's context and never past its deadline.
package driver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Driver drives one strategy for many concurrent calls. Build it with New. It is safe for
// concurrent use; calls into a strategy that is not are serialised by its mutex.
type Driver struct {
	strat    strategy.Strategy
	lock     bool       // serialise calls into strat
	mu       sync.Mutex // held around every call into strat when lock
	clock    engine.Clock
	wallTime bool // clock is the wall clock: now is the time read for the latency

	pendingMu sync.Mutex // orders the updates of pending with the calls to SetPending
	pending   atomic.Int64
}

// New returns a driver of s on clock (nil: the wall clock). A nil s is a new CORTEX strategy
// (engine.DefaultConfig on clock, randomly seeded). concurrent declares s safe for concurrent
// use; the strategies documented as safe are recognised without it. The error, from building
// the default strategy, is prefixed with pkg.
func New(pkg string, s strategy.Strategy, clock engine.Clock, concurrent bool) (*Driver, error) {
	if clock == nil {
		clock = engine.WallClock{}
	}
	d := &Driver{strat: s, clock: clock}
	_, d.wallTime = clock.(engine.WallClock)
	if d.strat == nil {
		st, err := strategy.New(strategy.CortexName, strategy.Env{
			Clock: clock,
			Rand:  rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		})
		if err != nil {
			return nil, fmt.Errorf("%s: the default strategy: %w", pkg, err)
		}
		d.strat = st
	}
	d.lock = !concurrent && !ConcurrentSafe(d.strat)
	return d, nil
}

// ConcurrentSafe reports whether s is one of the strategies documented as safe for concurrent
// use. The strategy package has no marker for it; this list follows its doc comments.
func ConcurrentSafe(s strategy.Strategy) bool {
	switch s.(type) {
	case *strategy.Cortex, *strategy.Naive, *strategy.None:
		return true
	}
	return false
}

// Strategy returns the strategy driven.
func (d *Driver) Strategy() strategy.Strategy { return d.strat }

// Start reads the clock at the start of an attempt: start, on the monotonic clock, for its
// latency, and now, the strategy's time (the same read on the wall clock: a clock read costs
// 25-100 ns).
func (d *Driver) Start() (start, now time.Time) {
	start = time.Now()
	if d.wallTime {
		return start, start
	}
	return start, d.clock.Now()
}

// End returns the latency of an attempt that started at start, and the strategy's now.
func (d *Driver) End(start time.Time) (latency time.Duration, now time.Time) {
	end := time.Now()
	if d.wallTime {
		return end.Sub(start), end
	}
	return end.Sub(start), d.clock.Now()
}

// Admit asks the strategy's Admit, serialised when the strategy needs it.
func (d *Driver) Admit(now time.Time, prio, retry int) bool {
	if !d.lock {
		return d.strat.Admit(now, prio, retry)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.strat.Admit(now, prio, retry)
}

// Record tells the strategy an attempt's outcome and latency, serialised when it needs it.
func (d *Driver) Record(now time.Time, o strategy.Outcome, latency time.Duration, retry int) {
	if !d.lock {
		d.strat.Record(now, o, latency, retry)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.strat.Record(now, o, latency, retry)
}

// Decide asks the strategy's Decide, serialised when the strategy needs it.
func (d *Driver) Decide(now time.Time, prio, retry int, o strategy.Outcome) strategy.Verdict {
	if !d.lock {
		return d.strat.Decide(now, prio, retry, o)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.strat.Decide(now, prio, retry, o)
}

// Pending returns the number of calls waiting for a retry (sleeping on a delay > 0), what the
// strategy's SetPending was last told.
func (d *Driver) Pending() int { return int(d.pending.Load()) }

// Fits reports whether a retry after delay starts before ctx's deadline (always, without one).
func Fits(ctx context.Context, delay time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > delay
}

// Wait sleeps delay before a retry, counted as pending, or until ctx is done, whose error it
// then returns (nil after the full delay). A delay <= 0 only checks ctx. The timer is stopped
// on every path.
func (d *Driver) Wait(ctx context.Context, delay time.Duration) error {
	if delay <= 0 {
		return ctx.Err()
	}
	d.addPending(1)
	defer d.addPending(-1)
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// addPending moves the pending count by n and tells the strategy. pendingMu keeps the calls to
// SetPending in the order of the updates, so the strategy is never left with a stale count.
func (d *Driver) addPending(n int64) {
	d.pendingMu.Lock()
	p := int(d.pending.Add(n))
	if d.lock {
		d.mu.Lock()
		d.strat.SetPending(p)
		d.mu.Unlock()
	} else {
		d.strat.SetPending(p)
	}
	d.pendingMu.Unlock()
}
