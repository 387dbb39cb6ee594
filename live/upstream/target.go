package upstream

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Option sets one of a Target's injectables.
type Option func(*Target)

// WithClock sets the clock the control loop reads: the utilisation window, the crash clock,
// the restart delay and the warm-up are measured on it (default: the wall clock). The loop
// still runs every Config.Tick of real time, and service times are always real timers: a
// request's answer is real. A test moves a manual clock and sees its effect at the next tick.
// A nil clock keeps the wall clock.
func WithClock(c engine.Clock) Option {
	return func(t *Target) {
		if c != nil {
			t.clock = c
		}
	}
}

// WithRand sets the random source of the service times (default: a PCG seeded with
// Config.Seed; nil keeps it). The target owns it from then on: it is only used under the
// target's lock.
func WithRand(r *rand.Rand) Option { return func(t *Target) { t.rng = r } }

// WithMiddleware wraps the target's handler in wrap's, in every life of the target (wrap is
// called once, by New): the handler wrap returns receives every request the target's server
// reads and decides whether to pass it to the target's own. Live mode's embedded stack mounts
// the fault injector of package live/proxy this way, so that its faults act inside the
// target's server and a request makes one socket hop instead of two (client to proxy, proxy to
// target). Requests the wrapping handler holds are waited for by Close like the target's own
// (their connections are). A nil wrap, or one returning nil, keeps the target's handler as is.
func WithMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(t *Target) { t.wrap = wrap }
}

// ErrClosed is returned by Start and the controls of a Target that was closed.
var ErrClosed = errors.New("target: closed")

// errNotStarted is returned by Down and Up before Start.
var errNotStarted = errors.New("target: not started")

// streamService is the PCG stream of the default random source.
const streamService = 0x7a26e7

// Target is the embedded HTTP service. Build it with New, then Start it; every method is safe
// for concurrent use.
type Target struct {
	cfg   Config
	clock engine.Clock

	// ctl serialises what changes the listener (Start, the control loop's step, Down, Up and
	// the shutdown), which does network I/O and so runs outside mu.
	ctl sync.Mutex

	// mu guards the rest; handlers take it briefly to be admitted and to finish.
	mu        sync.Mutex
	rng       *rand.Rand
	started   bool
	closed    bool
	outage    bool
	life      *life  // the current listener and server; nil while not serving
	addr      string // resolved listening address, fixed at Start
	listenErr error
	upPending bool // Up failed to listen again: the loop tries again at every step

	// svc is the service's physics (model.Service: its state, workers, capacity, service
	// times, warm-up, utilisation window and crash clock), on the run time since origin; fx
	// holds the capacity and latency faults SetCapacity and SetLatency put on it.
	svc     model.Service
	fx      scenarios.Effects
	latency time.Duration      // SetLatency's, as given
	origin  time.Time          // the clock's reading at Start
	queue   ring.Ring[*waiter] // requests waiting for a worker; admission keeps it at or under QueueLimit

	able     float64   // requests capacity could serve since the last step (accrued at every capacity change)
	ableAt   time.Time // time able was accrued to
	lastStep time.Time
	tickUtil float64
	winUtil  float64
	crash    model.Crash // the latest crash's

	counters Counters

	// dispatched, when set (by tests only, under mu), is called under mu with the context of
	// each queued request as it is given a worker, in that order.
	dispatched func(context.Context)

	wrap    func(http.Handler) http.Handler // WithMiddleware's, or nil
	handler http.Handler                    // what every life serves: handle, wrapped

	handlers sync.WaitGroup // handlers running; Add only under mu while !closed
	// conns counts the connections of every life, from their StateNew (in Serve's goroutine,
	// before Serve returns) to their StateClosed (at the end of their goroutine), so that
	// Close also waits for net/http's own per-connection goroutines.
	conns    sync.WaitGroup
	closing  chan struct{} // closed by Close
	stopOnce sync.Once
	done     chan struct{} // closed once everything has stopped
}

// New returns a Target for cfg, not yet listening, or cfg's Validate error.
func New(cfg Config, opts ...Option) (*Target, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Target{
		cfg:     cfg,
		clock:   engine.WallClock{},
		svc:     model.NewService(cfg.service(), cfg.Tick),
		fx:      scenarios.NoEffects(),
		closing: make(chan struct{}),
		done:    make(chan struct{}),
	}
	t.svc.Down(source.ServiceUnknown) // stopped until Start
	for _, o := range opts {
		o(t)
	}
	if t.rng == nil {
		t.rng = rand.New(rand.NewPCG(uint64(cfg.Seed), streamService))
	}
	t.handler = http.HandlerFunc(t.handle)
	if t.wrap != nil {
		if h := t.wrap(t.handler); h != nil {
			t.handler = h
		}
	}
	return t, nil
}

// Config returns the target's configuration.
func (t *Target) Config() Config { return t.cfg }

// Addr returns the host:port the target listens on (the same after every restart), or ""
// before Start.
func (t *Target) Addr() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.addr
}

// URL returns "http://" + Addr(), or "" before Start.
func (t *Target) URL() string {
	if a := t.Addr(); a != "" {
		return "http://" + a
	}
	return ""
}

// Done returns a channel closed once the target has stopped: after Close, or after Start's
// context was cancelled and everything stopped.
func (t *Target) Done() <-chan struct{} { return t.done }

// goDownLocked ends the current life at now in state st (CRASHED, DOWN or STOPPED): the queue
// is lost, in-service work too, and capacity is 0. It returns the life for the caller to stop
// once mu is released (nil if there was none).
func (t *Target) goDownLocked(now time.Time, st State) *life {
	t.accrueLocked(now)
	lf := t.life
	t.life = nil
	if lf != nil {
		close(lf.down)
	}
	for t.queue.Len() > 0 {
		w := t.queue.Pop()
		if t.cfg.DropExpired && w.ctx.Err() != nil {
			t.counters.Dropped++
		} else {
			t.counters.Lost++
		}
	}
	t.counters.Lost += int64(t.svc.Busy)
	t.svc.Busy = 0
	t.svc.Down(st.Service()) // a restarted process remembers nothing of the load that killed it
	t.updateLocked(now)
	return lf
}

// startWarmingLocked begins the warm-up at now (after a restart or an outage): WARMING at
// WarmStart, or UP at once without a Warmup.
func (t *Target) startWarmingLocked(now time.Time) {
	t.svc.StartWarming(now.Sub(t.origin))
	t.updateLocked(now)
}

// accrueLocked adds to able what the capacity in effect could serve up to now.
func (t *Target) accrueLocked(now time.Time) {
	if d := now.Sub(t.ableAt); d > 0 {
		t.able += t.svc.Capacity * d.Seconds()
		t.ableAt = now
	}
}

// updateLocked recomputes the effective workers and capacity at now (model.Service.Resize:
// max(1, round(Workers x warm x capacity factor)) workers while serving, none otherwise, over
// ServiceTime + latency), and starts queued requests on freed capacity.
func (t *Target) updateLocked(now time.Time) {
	t.accrueLocked(now)
	t.svc.Resize(t.fx)
	t.dispatchLocked()
}

// dispatchLocked gives free workers to queued requests in FIFO order. With DropExpired, a
// request whose client has gone is skipped.
func (t *Target) dispatchLocked() {
	for t.svc.Busy < t.svc.Eff && t.queue.Len() > 0 {
		w := t.queue.Pop()
		if t.cfg.DropExpired && w.ctx.Err() != nil {
			t.counters.Dropped++
			continue
		}
		t.svc.Busy++
		w.d = t.svc.Draw(t.rng)
		w.assigned = true
		if t.dispatched != nil {
			t.dispatched(w.ctx)
		}
		close(w.ready)
	}
}

// step is one tick of the control loop at now: it closes the utilisation sample of the time
// since the last step, runs the crash clock, advances the warm-up and restarts a crashed
// target whose delay is over. Steps at a time not after the last one do nothing, so the
// result depends only on the sequence of clock readings.
func (t *Target) step(now time.Time) {
	t.ctl.Lock()
	defer t.ctl.Unlock()
	t.mu.Lock()
	elapsed := now.Sub(t.lastStep)
	if t.closed || !t.started || elapsed <= 0 {
		t.mu.Unlock()
		return
	}
	t.lastStep = now
	t.accrueLocked(now)
	able := t.able
	t.able = 0
	var stop *life
	var crash *model.Crash
	t.tickUtil, t.winUtil, _, crash = t.svc.Sample(now.Sub(t.origin), elapsed, able)
	if crash != nil {
		t.counters.Crashes++
		t.crash = *crash
		stop = t.goDownLocked(now, StateCrashed)
	}
	if t.svc.State == source.ServiceWarming {
		t.svc.Warmed(now.Sub(t.origin))
		t.updateLocked(now)
	}
	restart := stop == nil && t.svc.RestartDue(now.Sub(t.origin), t.outage)
	restart = restart || (t.upPending && t.life == nil) // Up found the port taken: try again
	t.mu.Unlock()
	if stop != nil {
		stop.stop()
	}
	if restart {
		_ = t.relisten(now) // on failure Err says why; the next step tries again
	}
}

// SetCapacity scales the workers by factor, in (0, 1] (live mode's capacity fault; 1 undoes
// it). Requests in service when the capacity drops finish their work; queued ones wait until
// the busy workers fall under the new count.
func (t *Target) SetCapacity(factor float64) error {
	if !(factor > 0 && factor <= 1) {
		return fmt.Errorf("target: capacity factor must be in (0, 1], got %v", factor)
	}
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fx.Capacity = factor
	t.updateLocked(now)
	return nil
}

// SetLatency adds d (>= 0) to the mean service time of the requests that get a worker from
// now on (live mode's latency fault; 0 undoes it): latency rises and capacity drops.
func (t *Target) SetLatency(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("target: added latency must not be negative, got %s", d)
	}
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.latency, t.fx.Latency = d, d.Seconds()
	t.updateLocked(now)
	return nil
}

// Snapshot returns the target's state now.
func (t *Target) Snapshot() Snapshot {
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := Snapshot{
		State:             stateOf(t.svc.State),
		Addr:              t.addr,
		Workers:           t.cfg.Workers,
		Effective:         t.svc.Eff,
		Busy:              t.svc.Busy,
		Queue:             t.queue.Len(),
		QueueLimit:        t.cfg.QueueLimit,
		ServiceTime:       t.cfg.ServiceTime + t.latency,
		Capacity:          t.svc.Capacity,
		CapacityFactor:    t.fx.Capacity,
		Latency:           t.latency,
		Warm:              t.svc.Warm,
		Utilisation:       t.tickUtil,
		WindowUtilisation: t.winUtil,
		Overload:          t.svc.Overload(),
		RestartIn:         t.svc.RestartIn(now.Sub(t.origin)),
		CrashUtilisation:  t.crash.Utilisation,
		CrashOverload:     t.crash.Overloaded,
		Outage:            t.outage,
		Err:               t.listenErr,
		Counters:          t.counters,
	}
	return s
}
