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

func (o *overlap) Admit(strategy.Time, strategy.Attempt) strategy.Admission {
	defer o.enter()()
	return strategy.Admission{}
}
func (o *overlap) Record(strategy.Time, strategy.Attempt, strategy.Outcome, time.Duration) {
	defer o.enter()()
}
func (o *overlap) Decide(strategy.Time, strategy.Attempt, strategy.Outcome) strategy.Verdict {
	defer o.enter()()
	return strategy.Verdict{}
}
func (o *overlap) SetPending(n int) { defer o.enter()(); o.pending = append(o.pending, n) }

func (*overlap) Name() string { return "overlap" }

// Asserts that the calls into a strategy that is not safe for concurrent use never overlap,
// whatever the callers do at once, and that the pending counts it is told end at zero.
func TestSerialised(t *testing.T) {
	s := &overlap{}
	d, err := driver.New("test", s, nil, false, nil)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				sa, _, now, _, _ := d.Admitted(context.Background(), 5, 0, nil)
				d.Record(now, sa, strategy.FastFail, time.Millisecond)
				d.Decide(now, sa, strategy.FastFail)
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
	d, err := driver.New("test", nil, clock, false, nil)
	require.NoError(t, err)
	assert.Equal(t, strategy.CortexName, d.Strategy().Name())

	start, now := d.Start()
	assert.Equal(t, strategy.Time(0), now, "Time 0 is the clock's reading at New")
	clock.Advance(time.Hour)
	lat, now := d.End(start)
	assert.Equal(t, strategy.Time(time.Hour), now)
	assert.Less(t, lat, time.Hour, "the latency is measured on the real clock")
}

// holder holds the first holds attempts for wait, then admits, and keeps the attempts it saw.
type holder struct {
	strategy.None
	holds int
	wait  time.Duration
	seen  []strategy.Attempt
}

func (h *holder) Admit(_ strategy.Time, a strategy.Attempt) strategy.Admission {
	h.seen = append(h.seen, a)
	if len(h.seen) <= h.holds {
		return strategy.Hold(h.wait, "RATE_LIMITED")
	}
	return strategy.Admission{}
}

// Asserts that Admitted asks again after each hold (telling held of it), that the attempt
// carries the context's deadline on the strategy's clock, that a hold past the deadline is the
// answer at once, and that a context ended during a hold is an error.
func TestAdmitted(t *testing.T) {
	h := &holder{holds: 2, wait: time.Millisecond}
	d, err := driver.New("test", h, nil, false, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	told := 0
	sa, _, now, adm, err := d.Admitted(ctx, 7, 1, func(a strategy.Admission) {
		told++
		assert.True(t, a.Held())
	})
	require.NoError(t, err)
	assert.True(t, adm.Admitted())
	assert.Equal(t, 2, told)
	assert.Len(t, h.seen, 3)
	assert.Equal(t, strategy.Attempt{Priority: 7, Retry: 1, Deadline: sa.Deadline, Ask: engine.AskAgain}, sa, "asked again after a hold")
	left, ok := sa.Remaining(now)
	assert.True(t, ok)
	assert.InDelta(t, float64(time.Hour), float64(left), float64(time.Minute))

	long := &holder{holds: 1, wait: 2 * time.Hour}
	d, err = driver.New("test", long, nil, false, nil)
	require.NoError(t, err)
	_, _, _, adm, err = d.Admitted(ctx, 7, 0, func(strategy.Admission) { t.Error("a hold past the deadline is not slept") })
	require.NoError(t, err)
	assert.True(t, adm.Held(), "the hold is the answer")

	stuck := &holder{holds: 1 << 30, wait: time.Hour}
	d, err = driver.New("test", stuck, nil, false, nil)
	require.NoError(t, err)
	cctx, ccancel := context.WithCancel(context.Background())
	_, _, _, _, err = d.Admitted(cctx, 7, 0, func(strategy.Admission) { ccancel() })
	assert.ErrorIs(t, err, context.Canceled)
}

// Asserts that Wait sleeps its delay counted as pending, returns the context's error at once
// when the context ends first, and that Fits says whether a delay ends before the deadline.
func TestWait(t *testing.T) {
	d, err := driver.New("test", strategy.NewNone(), nil, false, nil)
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

// waker is a strategy that parks every attempt asked as new until its Record is told an
// outcome: then NextWake says a wake is due and Wake releases one parked attempt of each
// priority asked so far. It keeps the attempts it is asked about and the priorities unparked.
type waker struct {
	mu       sync.Mutex
	seen     []strategy.Attempt
	ready    bool
	parked   [engine.MaxPriority + 1]int
	unparked []int
}

func (w *waker) Admit(_ strategy.Time, a strategy.Attempt) strategy.Admission {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, a)
	if a.Ask == engine.AskNew && a.Park {
		w.parked[a.Priority]++
		return strategy.Admission{Wait: time.Hour, Parked: true, Reason: engine.ReasonHeld}
	}
	return strategy.Admission{}
}
func (w *waker) Record(strategy.Time, strategy.Attempt, strategy.Outcome, time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ready = true
}
func (w *waker) Decide(strategy.Time, strategy.Attempt, strategy.Outcome) strategy.Verdict {
	return strategy.Verdict{}
}
func (*waker) SetPending(int)  {}
func (*waker) Name() string    { return "waker" }
func (*waker) ConcurrentSafe() {}
func (w *waker) NextWake(strategy.Time) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return 0, w.ready && w.total() > 0
}
func (w *waker) Wake(_ strategy.Time, n *[engine.MaxPriority + 1]int) (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ready {
		return time.Hour, w.total() > 0
	}
	for q, k := range w.parked {
		n[q] += k
		w.parked[q] = 0
	}
	return 0, false
}
func (w *waker) Unpark(_ strategy.Time, p int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.parked[p]--
	w.unparked = append(w.unparked, p)
}
func (w *waker) total() (n int) {
	for _, k := range w.parked {
		n += k
	}
	return n
}

// Asserts that a call the strategy parks (Admission.Parked, an hour's wait) is asked about
// again as woken (engine.AskWoken) once an outcome recorded makes the strategy's NextWake say
// a wake is due, not after its wait; that the driver says it can park (Attempt.Park); and that
// a call whose context ends while parked is unparked from the strategy.
func TestParkedCallIsWoken(t *testing.T) {
	w := &waker{}
	d, err := driver.New("test", w, nil, false, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	done := make(chan strategy.Admission)
	go func() {
		_, _, _, adm, err := d.Admitted(ctx, 8, 0, nil)
		assert.NoError(t, err)
		done <- adm
	}()
	require.Eventually(t, func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.parked[8] == 1 }, time.Minute, time.Millisecond)
	d.Record(0, strategy.Attempt{}, strategy.Success, time.Millisecond)
	adm := <-done
	assert.True(t, adm.Admitted())
	w.mu.Lock()
	require.Len(t, w.seen, 2)
	assert.True(t, w.seen[0].Park, "the driver can park")
	assert.Equal(t, engine.AskNew, w.seen[0].Ask)
	assert.Equal(t, engine.AskWoken, w.seen[1].Ask, "woken, not after its hour")
	w.ready = false
	w.mu.Unlock()

	cctx, ccancel := context.WithCancel(context.Background())
	_, _, _, _, err = d.Admitted(cctx, 3, 0, func(strategy.Admission) { ccancel() })
	assert.ErrorIs(t, err, context.Canceled)
	w.mu.Lock()
	defer w.mu.Unlock()
	assert.Equal(t, []int{3}, w.unparked, "an abandoned parked call leaves the strategy's parked ones")
}
