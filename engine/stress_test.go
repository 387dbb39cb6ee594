package engine

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentStress asserts that many goroutines recording, deciding, snapshotting and
// using the controls at once (while another moves the clock) keep the engine consistent: no
// race (under -race), every decision sane, and the counters adding up exactly.
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
			for range ops {
				switch r.IntN(8) {
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
					if s.CPS < 0 || s.CPS > 1 {
						errs <- "snapshot CPS out of range"
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
