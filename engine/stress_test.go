package engine

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentStress asserts that many goroutines recording (successes, failures, timeouts),
// deciding (ShouldRetry, ShouldRetryTo, Decide, DecideTo, timeouts included), snapshotting and
// using the controls at once (while another moves the clock) keep the engine consistent: no
// race (under -race), every decision sane, tokens within the budget, and the counters adding
// up exactly.
func TestConcurrentStress(t *testing.T) {
	const workers, ops = 8, 3000
	e, clock := newTestEngine(t, func(c *Config) {
		c.Deterministic = false
		c.AdaptiveWeights = true
		c.CircuitCooldown = time.Second
		c.RecoveryRamp = 2 * time.Second
	})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // the clock moves on its own
		for {
			select {
			case <-stop:
				return
			default:
				clock.Advance(time.Millisecond)
			}
		}
	}()
	decisions := make([][5]uint64, workers)
	records := make([]uint64, workers)
	maxDelay := e.Config().BackoffMaxDelay
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 99))
			var d Decision
			for range ops {
				switch r.IntN(11) {
				case 0, 1:
					e.RecordSuccess(time.Duration(r.IntN(100)) * time.Millisecond)
					records[w]++
				case 2, 3:
					e.RecordFailure(time.Duration(r.IntN(3000)) * time.Millisecond)
					records[w]++
				case 4, 5:
					d := e.ShouldRetry(r.IntN(13)-1, r.IntN(4), r.IntN(10) != 0)
					decisions[w][d.Action]++
					if d.Delay < 0 || d.Delay > maxDelay || d.CPS < 0 || d.CPS > 1 {
						errs <- d.String()
						return
					}
				case 6:
					s := e.Snapshot()
					if s.CPS < 0 || s.CPS > 1 || s.Tokens < 0 || s.Tokens > float64(s.TokenCapacity) {
						errs <- "snapshot CPS or tokens out of range"
						return
					}
				case 8:
					e.RecordTimeout(time.Duration(r.IntN(5000)) * time.Millisecond)
					records[w]++
				case 9, 10:
					f := Failure{Priority: r.IntN(13) - 1, Attempt: r.IntN(4), NotRetryable: r.IntN(10) == 0, Timeout: r.IntN(2) == 0}
					switch r.IntN(3) {
					case 0:
						d = e.Decide(f)
					case 1:
						e.DecideTo(&d, f)
					default:
						e.ShouldRetryTo(&d, f.Priority, f.Attempt, !f.NotRetryable)
					}
					decisions[w][d.Action]++
					if d.Delay < 0 || d.Delay > maxDelay || d.CPS < 0 || d.CPS > 1 {
						errs <- d.String()
						return
					}
				case 7:
					switch r.IntN(20) {
					case 0:
						e.ForceOpen()
					case 1:
						_ = e.SetWeights(Weights{F: r.Float64(), L: r.Float64(), Q: r.Float64(), B: r.Float64(), C: r.Float64()})
					case 2:
						e.SetAdaptive(r.IntN(2) == 0)
					case 3:
						_ = e.Transitions()
					default:
						e.SetQueueDepth(r.IntN(2000))
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	close(errs)
	for msg := range errs {
		require.Fail(t, "bad value under concurrency", msg)
	}
	var want [5]uint64
	var recs uint64
	for w := range workers {
		for a := range want {
			want[a] += decisions[w][a]
		}
		recs += records[w]
	}
	s := e.Snapshot()
	assert.Equal(t, want, s.Decisions, "every decision counted once")
	assert.Equal(t, recs, s.Successes+s.Failed, "every outcome counted once")
}

// TestManualClock asserts that the manual clock moves only when told, and that concurrent
// advances all count.
func TestManualClock(t *testing.T) {
	c := NewManualClock(epoch)
	assert.Equal(t, epoch, c.Now())
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				c.Advance(time.Millisecond)
				_ = c.Now()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, epoch.Add(8*time.Second), c.Now())
	c.Set(epoch)
	assert.Equal(t, epoch, c.Now())
	var zero ManualClock
	assert.True(t, zero.Now().IsZero(), "the zero ManualClock reads the zero time")

	before := time.Now()
	got := WallClock{}.Now()
	assert.False(t, got.Before(before), "the wall clock reads real time")
}

// TestManualClockExact asserts that Now returns exactly the time last set (instant, location
// and monotonic reading), whether the clock's frame can hold it as an offset or a new frame has
// to start (another location, far away, from the zero value), and that concurrent Sets and
// Advances across frames lose no advance.
func TestManualClockExact(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	tests := []struct {
		name  string
		start time.Time
		set   []time.Time
	}{
		{"same frame", epoch, []time.Time{epoch.Add(time.Hour), epoch.Add(-time.Hour), epoch}},
		{"other location", epoch, []time.Time{epoch.In(paris), epoch.Add(time.Second), epoch.In(paris)}},
		{"far away", epoch, []time.Time{epoch.AddDate(500, 0, 0), epoch.AddDate(-2000, 0, 0), epoch}},
		{"from the zero time", time.Time{}, []time.Time{epoch, time.Time{}, epoch.Add(time.Nanosecond)}},
		{"monotonic", WallClock{}.Now(), []time.Time{epoch, WallClock{}.Now(), WallClock{}.Now().Add(time.Minute)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewManualClock(tt.start)
			assert.True(t, c.Now() == tt.start, "starts at the given time")
			for _, at := range tt.set {
				c.Set(at)
				assert.True(t, c.Now() == at, "reads %v after Set(%v)", c.Now(), at)
				c.Advance(time.Second)
				assert.True(t, c.Now() == at.Add(time.Second), "Advance moves from the time set")
			}
		})
	}

	c := NewManualClock(epoch)
	far := epoch.AddDate(300, 0, 0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				if g == 0 && i%100 == 0 {
					c.Set(far) // a new frame while others advance
					continue
				}
				c.Advance(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	got := c.Now()
	assert.True(t, got.After(far), "the last Set(far) happened before the remaining advances")
	assert.LessOrEqual(t, got.Sub(far), 1500*time.Millisecond+495*time.Millisecond, "no advance counted twice")
}

// TestEngineClockFrames asserts that the engine's elapsed time stays right when its manual
// clock leaves the frame the engine started on (a Set to another location, far away) and
// comes back: time going backwards still counts as no time passing.
func TestEngineClockFrames(t *testing.T) {
	clock := NewManualClock(epoch)
	cfg := DefaultConfig()
	cfg.Clock = clock
	cfg.Seed = 1
	cfg.CircuitCooldown = time.Second
	e, err := New(cfg)
	require.NoError(t, err)
	e.ForceOpen()
	clock.Set(epoch.Add(500 * time.Millisecond).In(time.FixedZone("X", 7200)))
	assert.Equal(t, Open, e.Snapshot().Circuit, "0.5 s in another location: still OPEN")
	clock.Set(epoch.Add(time.Second).In(time.FixedZone("X", 7200)))
	assert.Equal(t, HalfOpen, e.Snapshot().Circuit, "1 s in another frame: the cooldown elapsed")
	clock.Set(epoch)
	assert.Equal(t, HalfOpen, e.Snapshot().Circuit, "back in the first frame, earlier: no time passes")
	tr := e.Transitions()
	require.Len(t, tr, 2)
	assert.True(t, tr[1].At.Equal(epoch.Add(time.Second)), "the transition is stamped 1 s after the origin")
}

// TestManualClockSetElapsed asserts that SetElapsed(d) reads exactly as Set(t0.Add(d)), t0
// being the time the clock was created at, in the clock's first frame, after a Set that
// started another frame, and on a zero-value clock.
func TestManualClockSetElapsed(t *testing.T) {
	zone := time.FixedZone("X", 7200)
	tests := []struct {
		name   string
		clock  func() *ManualClock
		before func(c *ManualClock)
		t0     time.Time
	}{
		{"first frame", func() *ManualClock { return NewManualClock(epoch) }, func(*ManualClock) {}, epoch},
		{"after another frame", func() *ManualClock { return NewManualClock(epoch) },
			func(c *ManualClock) { c.Set(epoch.In(zone)) }, epoch},
		{"zero value", func() *ManualClock { return &ManualClock{} }, func(*ManualClock) {}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.clock()
			tt.before(c)
			for _, d := range []time.Duration{time.Second, -time.Hour, 0, 200 * 365 * 24 * time.Hour, time.Minute} {
				c.SetElapsed(d)
				assert.True(t, c.Now() == tt.t0.Add(d), "SetElapsed(%v) reads %v", d, c.Now())
			}
		})
	}
}
