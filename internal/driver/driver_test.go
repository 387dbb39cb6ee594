package driver_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/driver"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// overlap is a strategy that notices overlapping calls (it is not safe for concurrent use, on
// purpose) and keeps the pending counts it is told.
type overlap struct {
	strategy.None
	inside     atomic.Int32
	overlapped atomic.Bool
	pending    []int
}

func (o *overlap) enter() func() {
	if o.inside.Add(1) > 1 {
		o.overlapped.Store(true)
	}
	time.Sleep(10 * time.Microsecond) // widen the window an overlap would need
	return func() { o.inside.Add(-1) }
}

func (o *overlap) Admit(now time.Time, p, r int) bool { defer o.enter()(); return true }
func (o *overlap) Record(time.Time, strategy.Outcome, time.Duration, int) {
	defer o.enter()()
}
func (o *overlap) Decide(now time.Time, p, r int, out strategy.Outcome) strategy.Verdict {
	defer o.enter()()
	return strategy.Verdict{}
}
func (o *overlap) SetPending(n int) { defer o.enter()(); o.pending = append(o.pending, n) }

// Asserts that the calls into a strategy that is not safe for concurrent use never overlap,
// whatever the callers do at once, and that the pending counts it is told end at zero.
func TestSerialised(t *testing.T) {
	s := &overlap{}
	d, err := driver.New("test", s, nil, false)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				_, now := d.Start()
				d.Admit(now, 5, 0)
				d.Record(now, strategy.FastFail, time.Millisecond, 0)
				d.Decide(now, 5, 0, strategy.FastFail)
				_ = d.Wait(context.Background(), time.Microsecond)
			}
		})
	}
	wg.Wait()
	assert.False(t, s.overlapped.Load(), "calls overlapped")
	require.NotEmpty(t, s.pending)
	assert.Equal(t, 0, s.pending[len(s.pending)-1], "the last count told is zero")
	assert.Equal(t, 0, d.Pending())
}

// Asserts that a nil strategy is CORTEX on the given clock, that the strategies documented as
// safe for concurrent use are recognised, and that Start and End read the injected clock for
// the strategy's now and the monotonic clock for the latency.
func TestDefaults(t *testing.T) {
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	d, err := driver.New("test", nil, clock, false)
	require.NoError(t, err)
	assert.Equal(t, strategy.CortexName, d.Strategy().Name())
	assert.True(t, driver.ConcurrentSafe(d.Strategy()))
	assert.True(t, driver.ConcurrentSafe(strategy.NewNaive()))
	assert.False(t, driver.ConcurrentSafe(&overlap{}))

	start, now := d.Start()
	assert.Equal(t, clock.Now(), now)
	clock.Advance(time.Hour)
	lat, now := d.End(start)
	assert.Equal(t, clock.Now(), now)
	assert.Less(t, lat, time.Hour, "the latency is measured on the real clock")
}

// Asserts that Wait sleeps its delay counted as pending, returns the context's error at once
// when the context ends first, and that Fits says whether a delay ends before the deadline.
func TestWait(t *testing.T) {
	d, err := driver.New("test", strategy.NewNone(), nil, false)
	require.NoError(t, err)
	require.NoError(t, d.Wait(context.Background(), time.Millisecond))

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for d.Pending() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	assert.ErrorIs(t, d.Wait(ctx, time.Minute), context.Canceled)
	assert.Less(t, time.Since(start), time.Minute)
	assert.Equal(t, 0, d.Pending())
	assert.ErrorIs(t, d.Wait(ctx, 0), context.Canceled, "a delay of 0 still checks the context")

	dl, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	assert.True(t, driver.Fits(dl, time.Minute))
	assert.False(t, driver.Fits(dl, 2*time.Hour))
	assert.True(t, driver.Fits(context.Background(), 1000*time.Hour))
}
