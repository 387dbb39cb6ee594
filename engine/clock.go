package engine

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// WallClock is the real time source. Its zero value is ready to use and safe for concurrent use.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// ManualClock is a Clock that moves only when told to, for tests and the virtual-time simulator.
// It is safe for concurrent use and lock-free: Now is two atomic loads, and a Set or Advance
// within about 146 years of the clock's frame (below) is one compare-and-swap. Now returns
// exactly the time last given to Set (same instant, location and monotonic reading), or the
// time NewManualClock was given moved by Advance. Create it with NewManualClock; the zero value
// reads the zero time.
//
// Internally the clock is a frame (a base time, fixed) and an offset from it in int64
// nanoseconds. A time that the frame cannot represent exactly (another location or monotonic
// state, or more than 2^62 ns away) starts a new frame with that time as its base, which
// allocates; the engine reads the offset directly while the frame it started on is current.
type ManualClock struct {
	f     atomic.Pointer[clockFrame] // nil: the zero time
	start *clockFrame                // the frame NewManualClock made (nil for the zero value); immutable
}

// clockFrame is a base time and the clock's offset from it, in nanoseconds. base and fast are
// immutable; ns is frozenOffset while the frame is being replaced (see ManualClock.rebase).
type clockFrame struct {
	base time.Time
	fast bool // base is far from Time's limits: offsets may be subtracted as int64
	ns   atomic.Int64
}

const (
	// maxOffset bounds a frame's offsets (|ns| < 2^62, about 146 years), so that the difference
	// of two offsets never overflows and neither does a monotonic reading plus an offset.
	maxOffset = 1 << 62
	// frozenOffset marks a frame being replaced: readers wait for the new frame.
	frozenOffset = math.MinInt64
)

// newFrame returns a frame based at t with offset 0.
func newFrame(t time.Time) *clockFrame {
	s := t.Unix()
	return &clockFrame{base: t, fast: s > -(1<<61) && s < 1<<61}
}

// offset returns t's offset from the frame's base, and whether base plus that offset gives
// back exactly t (same instant, location and monotonic state, |offset| < maxOffset).
func (f *clockFrame) offset(t time.Time) (int64, bool) {
	d := t.Sub(f.base)
	if d <= -maxOffset || d >= maxOffset || f.base.Add(d) != t {
		return 0, false
	}
	return int64(d), true
}

// NewManualClock returns a ManualClock reading t.
func NewManualClock(t time.Time) *ManualClock {
	c := &ManualClock{start: newFrame(t)}
	c.f.Store(c.start)
	return c
}

// load returns the current frame and offset (nil for a zero-value clock never set).
func (c *ManualClock) load() (*clockFrame, int64) {
	for {
		f := c.f.Load()
		if f == nil {
			return nil, 0
		}
		if ns := f.ns.Load(); ns != frozenOffset {
			return f, ns
		}
		runtime.Gosched() // a writer is installing the next frame
	}
}

// timeAt returns the time of offset ns in frame f (the zero time for a nil frame).
func timeAt(f *clockFrame, ns int64) time.Time {
	if f == nil {
		return time.Time{}
	}
	return f.base.Add(time.Duration(ns))
}

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time { return timeAt(c.load()) }

// Set moves the clock to t (backwards too; the engine treats time going backwards as no time passing).
func (c *ManualClock) Set(t time.Time) {
	for {
		f, old, ok := c.current()
		if ok && c.swap(f, old, t) {
			return
		}
	}
}

// SetElapsed moves the clock to d after the time NewManualClock was given (the zero time for
// the zero value), backwards too: the same as Set(t0.Add(d)), but while the clock is still in
// its first frame (no Set to a time it could not hold) it is a single compare-and-swap with no
// time arithmetic. The simulator moves its virtual clock this way.
func (c *ManualClock) SetElapsed(d time.Duration) {
	f := c.start
	if f == nil || d <= -maxOffset || d >= maxOffset {
		c.Set(timeAt(f, 0).Add(d))
		return
	}
	for c.f.Load() == f {
		old := f.ns.Load()
		if old == frozenOffset {
			break
		}
		if f.ns.CompareAndSwap(old, int64(d)) {
			return
		}
	}
	c.Set(f.base.Add(d))
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	for {
		f, old, ok := c.current()
		if ok && c.swap(f, old, timeAt(f, old).Add(d)) {
			return
		}
	}
}

// current returns the frame and offset an update starts from; ok is false while a writer is
// installing the next frame (the caller retries).
func (c *ManualClock) current() (f *clockFrame, ns int64, ok bool) {
	f = c.f.Load()
	if f == nil {
		return nil, 0, true
	}
	if ns = f.ns.Load(); ns == frozenOffset {
		runtime.Gosched()
		return nil, 0, false
	}
	return f, ns, true
}

// swap moves the clock from offset old of frame f (nil: a zero-value clock never set) to t,
// atomically, and reports whether it did (false: another writer came first, start again). It
// is a compare-and-swap of the offset when f can represent t exactly; otherwise f is frozen
// first and replaced by a frame based at t, so no concurrent update is lost.
func (c *ManualClock) swap(f *clockFrame, old int64, t time.Time) bool {
	if f == nil {
		return c.f.CompareAndSwap(nil, newFrame(t))
	}
	if ns, ok := f.offset(t); ok {
		return f.ns.CompareAndSwap(old, ns)
	}
	if !f.ns.CompareAndSwap(old, frozenOffset) {
		return false
	}
	c.f.Store(newFrame(t))
	return true
}
