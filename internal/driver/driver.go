// Package driver is what the clients that retry real calls through a strategy share
// (cortexhttp for HTTP requests, cortexgrpc for gRPC calls): the strategy built by default, its
// calls serialised when it is not safe for concurrent use, the clock read once per attempt and
// turned into the strategy's Time, the admission asked again after each hold within the call's
// context and deadline (a parked call when the strategy's Wake releases it: park.go), the count of calls waiting for a retry fed to the strategy's
// SetPending, and the wait before a retry, raced against the call's context.
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
	wallTime bool           // clock is the wall clock: now is the time read for the latency
	epoch    strategy.Epoch // the strategy's Time 0: the clock's reading when New ran

	pendingMu sync.Mutex // orders the updates of pending with the calls to SetPending
	pending   atomic.Int64

	parking parking // the parked calls, for a strategy that wakes them (park.go)
}

// New returns a driver of s on clock (nil: the wall clock). A nil s is a new CORTEX strategy
// on clock, randomly seeded, configured by eng (nil: engine.DefaultConfig; a cortex.toml
// file's, package engineconf). concurrent declares s safe for concurrent
// use; a strategy that says so itself (strategy.IsConcurrent) needs no declaration. The error,
// from building the default strategy, is prefixed with pkg.
func New(pkg string, s strategy.Strategy, clock engine.Clock, concurrent bool, eng *engine.Config) (*Driver, error) {
	if clock == nil {
		clock = engine.WallClock{}
	}
	d := &Driver{strat: s, clock: clock, epoch: strategy.NewEpoch(clock.Now())}
	_, d.wallTime = clock.(engine.WallClock)
	if d.strat == nil {
		st, err := strategy.New(strategy.CortexName, strategy.Env{
			Clock:  clock,
			Rand:   rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
			Cortex: eng,
		})
		if err != nil {
			return nil, fmt.Errorf("%s: the default strategy: %w", pkg, err)
		}
		d.strat = st
	}
	d.lock = !concurrent && !strategy.IsConcurrent(d.strat)
	d.parking.w, _ = d.strat.(strategy.Waker)
	return d, nil
}

// Strategy returns the strategy driven.
func (d *Driver) Strategy() strategy.Strategy { return d.strat }

// Clock returns the clock the strategy's Times are read from.
func (d *Driver) Clock() engine.Clock { return d.clock }

// Start reads the clock at the start of an attempt: start, on the monotonic clock, for its
// latency, and now, the strategy's time (the same read on the wall clock: a clock read costs
// 25-100 ns).
func (d *Driver) Start() (start time.Time, now strategy.Time) {
	start = time.Now()
	if d.wallTime {
		return start, d.epoch.Time(start)
	}
	return start, d.epoch.Time(d.clock.Now())
}

// End returns the latency of an attempt that started at start, and the strategy's now.
func (d *Driver) End(start time.Time) (latency time.Duration, now strategy.Time) {
	end := time.Now()
	if d.wallTime {
		return end.Sub(start), d.epoch.Time(end)
	}
	return end.Sub(start), d.epoch.Time(d.clock.Now())
}

// Admitted asks the strategy's Admit for attempt retry (priority prio) of a call whose context
// is ctx until it admits or refuses it, sleeping each hold within ctx; held, when not nil, is
// told of each hold before its sleep. A hold that would end at or after ctx's deadline is the
// answer itself (adm.Held(): the call fails as refused). It returns the attempt as the strategy
// knows it (its Deadline is ctx's, on the strategy's clock, measured on the real one), the
// time the attempt starts (the start of its latency) and the strategy's now at that start, and
// the last admission; err is ctx's error when it ended during a hold.
func (d *Driver) Admitted(ctx context.Context, prio, retry int, held func(strategy.Admission)) (
	sa strategy.Attempt, start time.Time, now strategy.Time, adm strategy.Admission, err error) {
	dl, hasDeadline := ctx.Deadline()
	ask := engine.AskNew
	for {
		start, now = d.Start()
		sa = strategy.Attempt{Priority: prio, Retry: retry, Park: d.parking.w != nil, Ask: ask}
		if hasDeadline {
			sa.Deadline = now.Add(dl.Sub(start))
			if sa.Deadline == 0 {
				sa.Deadline = -1 // 0 would mean none
			}
		}
		adm = d.admit(now, sa)
		if !adm.Held() || hasDeadline && dl.Sub(start) <= adm.Wait {
			return sa, start, now, adm, nil
		}
		if held != nil {
			held(adm)
		}
		if adm.Parked {
			if ask, err = d.waitParked(ctx, d.park(prio), prio, adm.Wait); err != nil {
				return sa, start, now, adm, err
			}
			continue
		}
		ask = engine.AskAgain
		if err := Sleep(ctx, adm.Wait); err != nil {
			return sa, start, now, adm, err
		}
	}
}

// admit asks the strategy's Admit, serialised when the strategy needs it.
func (d *Driver) admit(now strategy.Time, sa strategy.Attempt) strategy.Admission {
	if !d.lock {
		return d.strat.Admit(now, sa)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.strat.Admit(now, sa)
}

// Record tells the strategy the outcome and latency of an attempt it admitted, serialised when
// it needs it.
func (d *Driver) Record(now strategy.Time, sa strategy.Attempt, o strategy.Outcome, latency time.Duration) {
	if !d.lock {
		d.strat.Record(now, sa, o, latency)
	} else {
		d.mu.Lock()
		d.strat.Record(now, sa, o, latency)
		d.mu.Unlock()
	}
	if d.parking.w != nil && d.parking.waiting() { // the outcome may have freed a slot or shown a recovery
		d.scheduleWake()
	}
}

// Release tells the strategy that an attempt it admitted ended without an outcome
// (strategy.Canceled: a canceled context, an error no retry can cure): it only releases what
// Admit took.
func (d *Driver) Release(now strategy.Time, sa strategy.Attempt) {
	d.Record(now, sa, strategy.Canceled, 0)
}

// Decide asks the strategy's Decide, serialised when the strategy needs it.
func (d *Driver) Decide(now strategy.Time, sa strategy.Attempt, o strategy.Outcome) strategy.Verdict {
	if !d.lock {
		return d.strat.Decide(now, sa, o)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.strat.Decide(now, sa, o)
}

// Pending returns the number of calls waiting for a retry (sleeping on a delay > 0), what the
// strategy's SetPending was last told.
func (d *Driver) Pending() int { return int(d.pending.Load()) }

// Fits reports whether a retry after delay starts before ctx's deadline (always, without one).
func Fits(ctx context.Context, delay time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > delay
}

// Wait sleeps delay before a retry, counted as pending, or until ctx is done, whose cause it
// then returns (nil after the full delay). A delay <= 0 only checks ctx.
func (d *Driver) Wait(ctx context.Context, delay time.Duration) error {
	if delay <= 0 {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	}
	d.addPending(1)
	defer d.addPending(-1)
	return Sleep(ctx, delay)
}

// Sleep waits delay, or until ctx is done, whose cause it then returns. The timer is stopped
// on every path.
func Sleep(ctx context.Context, delay time.Duration) error {
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
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
