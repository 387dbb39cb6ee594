package live

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// maxQueued bounds the snapshots a run keeps for its reader (Advance): ten minutes of 100 ms
// ticks. Older ones are dropped if nobody reads them.
const maxQueued = 6000

// minWait is the shortest sleep of the real-time loop: arrivals due within it are sent
// together.
const minWait = 500 * time.Microsecond

// EndGrace is how long a run of Config.Duration waits past its duration for the requests
// still alive (or the scenario's deadline, if shorter), after which every request left is
// cancelled: a healthy service answers its last requests within it, and a target that holds,
// trickles or never answers cannot keep the run past it.
const EndGrace = time.Second

// Run is one live run: a load generator and a source.Source. Build it with New; Start runs
// its real-time loop. Every method is safe for concurrent use.
type Run struct {
	cfg    Config
	scn    scenarios.Scenario
	tick   time.Duration
	total  time.Duration // length of the run, < 0 unbounded
	arrEnd time.Duration // end of the arrival phase, < 0 unbounded
	// settleAt is when the run may end early, once no request is alive (Config.Duration); 0:
	// it lasts total.
	settleAt time.Duration
	ownBase  bool

	mu        sync.Mutex
	stack     *Stack
	fleet     *fleet
	members   *members // the engines' fleet membership (Config.Join); nil when alone
	fleetMode string   // "FLEET" or "LOCAL" as the event log last said it ("" before)
	strategy  string
	began     string // the strategy the run began (or restarted) with
	switches  uint64
	ctl       model.Controls      // the classes' (scaled) rates, shares and priorities, the CORTEX weights and adaptive switch
	rates     []float64           // rate x share of each class, this tick
	arr       *scenarios.Arrivals // the scenario's arrivals, drawn as the simulator draws them
	arrivals  []scenarios.Arrival // this tick's, in time order
	next      int                 // the first arrival of this tick not sent yet
	start     time.Time           // wall time of t = 0, moved forward by pauses
	paused    bool
	pausedAt  time.Time
	now       time.Duration // start of the current tick
	done      bool
	closed    bool
	tl        model.Timeline // the fault timeline (its faults on the stack's) and the captions
	sch       model.Schedule // the scenario's controls ([[control]]), applied when their tick begins
	events    []source.Event
	out       []source.Snapshot
	svc       serviceWatch
	told      [source.NumFailureCauses]bool // the causes of failure diagnose has told
	// explainedTill is, per cause, until when the faults explain its failures (an attempt a
	// blackhole held times out up to a timeout after the fault ends); see markExplained.
	explainedTill [source.NumFailureCauses]time.Duration
	circuits      [2]int
	emergency     float64
	classTick     []source.ClassTick

	wake     chan struct{} // pokes the real-time loop (resume, restart)
	loopStop context.CancelFunc
	loopDone chan struct{}
}

// The live run is a source.Source, can be paused, and its engines can join a fleet.
var (
	_ source.Source = (*Run)(nil)
	_ source.Pauser = (*Run)(nil)
	_ source.Fleet  = (*Run)(nil)
)

// New builds a run from cfg, builds its stack and its fleet, and returns it at t = 0, not yet
// running: Start runs it in real time (or Advance, with a manual clock, in tests). An invalid
// cfg or a stack that cannot be built is an error.
func New(cfg Config) (*Run, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	scn := cfg.Scenario.WithTiming()
	cfg.Scenario = scn
	if cfg.Join != nil {
		j := *cfg.Join
		if err := j.check(); err != nil {
			return nil, err
		}
		j.engineFor = cfg.engineFor
		cfg.Join = &j
	}
	r := &Run{cfg: cfg, scn: scn, tick: min(max(scn.Tick, MinTick), time.Second), wake: make(chan struct{}, 1)}
	switch {
	case cfg.Duration < 0:
		r.total, r.arrEnd = -1, -1
	case cfg.Duration == 0:
		r.total, r.arrEnd = scn.Duration+scn.Drain, scn.Duration
	default: // arrivals until Duration, then the requests alive, up to EndGrace more
		r.total, r.arrEnd, r.settleAt = cfg.Duration+min(scn.Deadline, EndGrace), min(cfg.Duration, scn.Duration), cfg.Duration
	}
	if r.cfg.Base == nil {
		r.cfg.Base = NewBaseTransport(maxConns(cfg.MaxInFlight))
		r.ownBase = true
	}
	if err := r.reset(cfg.Strategy); err != nil {
		r.closeBase()
		return nil, err
	}
	return r, nil
}

// reset (re)builds the stack, the fleet and every counter for strategyName at t = 0. r.mu is
// held, or r is not shared yet.
func (r *Run) reset(strategyName string) error {
	r.teardown()
	st, err := r.cfg.Stack(context.Background())
	if err != nil {
		return err
	}
	if st == nil || st.URL == nil || st.Faults == nil {
		if st != nil && st.Close != nil {
			_ = st.Close()
		}
		return fmt.Errorf("live: the stack builder returned no URL or no fault controls")
	}
	r.stack = st
	r.ctl = model.NewControls(r.scn.Classes, r.cfg.Scale)
	r.classTick = make([]source.ClassTick, len(r.ctl.Classes))
	r.fleet = newFleet(r.scn.Clients, st.URL, r.cfg.Base, r.cfg, len(r.ctl.Classes))
	r.switches = 0
	name, err := r.fleet.build(strategyName, r.cfg.Seed, 0, &r.ctl)
	if err == nil {
		err = r.rejoin(name)
	}
	if err != nil {
		r.teardown()
		return err
	}
	r.strategy, r.began = name, name
	r.readEmergency()
	r.arr = scenarios.NewArrivals(r.scn, rand.New(rand.NewPCG(uint64(r.cfg.Seed), scenarios.ArrivalStream)), len(r.fleet.clients))
	r.now, r.done, r.next, r.arrivals = 0, false, 0, r.arrivals[:0]
	scaled := ScaledScenario(r.scn, r.cfg.Scale) // a rate limit shrinks with the rates
	r.tl = model.NewTimeline(scaled.Faults, r.scn.Notes, runSide{r})
	r.sch = model.NewSchedule(r.scn.Controls) // at full scale: apply scales each, Played records them so
	r.events, r.out = nil, nil
	r.svc = serviceWatch{}
	r.told = [source.NumFailureCauses]bool{}
	r.explainedTill = [source.NumFailureCauses]time.Duration{}
	r.circuits = [2]int{}
	r.fleetMode = ""
	r.start = r.cfg.Clock.Now()
	if r.paused {
		r.pausedAt = r.start
	}
	if r.cfg.Scale < 1 {
		r.emit(0, source.Event{Kind: source.EventControl, Text: fmt.Sprintf(
			"live traffic scaled x%.3g: rates and capacity together (the captions tell the scenario at full scale)", r.cfg.Scale)})
	}
	r.beginTick(0)
	return nil
}

// readEmergency keeps the CORTEX engines' emergency threshold, for the fleet's band.
func (r *Run) readEmergency() {
	if m := r.fleet.clients[0].cur.Load(); m != nil && m.holder != nil {
		r.emergency = m.holder.Engine().Config().EmergencyThreshold
	}
}

// rejoin makes the engines just built members of the run's fleet (Config.Join), after the
// previous build's members left; a no-op without Join. A new member takes its predecessor's
// name: the store counts the lease that one held as handed back.
func (r *Run) rejoin(name string) error {
	r.members.close()
	r.members = nil
	if r.cfg.Join == nil {
		return nil
	}
	g, err := r.cfg.Join.join(name, r.fleet.current())
	if err != nil {
		return err
	}
	r.members = g
	return nil
}

// teardown stops the fleet (every request cancelled, every goroutine returned), its members'
// sync loops, and closes the stack, if any.
func (r *Run) teardown() {
	r.members.close()
	r.members = nil
	if r.fleet != nil {
		r.fleet.close()
		r.fleet = nil
	}
	if r.stack != nil {
		if r.stack.Close != nil {
			_ = r.stack.Close()
		}
		r.stack = nil
	}
}

// Start runs the real-time loop in the background: arrivals are sent when the wall clock
// reaches them and ticks close on time, until Close or the end of ctx (after which Advance
// still catches up with the clock; Close releases the run). Calling it twice does nothing.
func (r *Run) Start(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.loopDone != nil || r.closed {
		return
	}
	ctx, r.loopStop = context.WithCancel(ctx)
	r.loopDone = make(chan struct{})
	go r.loop(ctx, r.loopDone)
}

// loop sends arrivals and closes ticks in real time: it sleeps until the next arrival or the
// end of the tick (at least minWait), and waits for a poke while paused or done.
func (r *Run) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-r.wake:
		}
		r.mu.Lock()
		wait, idle := time.Duration(0), r.paused || r.done || r.closed
		if !idle {
			el := r.elapsed()
			at := r.advanceTo(el)
			wait = max(at-el, minWait)
			idle = r.done
		}
		r.mu.Unlock()
		if idle {
			continue // until a poke (resume, restart) or the end
		}
		timer.Reset(wait)
	}
}

// poke wakes the real-time loop.
func (r *Run) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// elapsed is the run's time now: wall time since t = 0, pauses excluded.
func (r *Run) elapsed() time.Duration {
	if r.paused {
		return r.pausedAt.Sub(r.start)
	}
	return r.cfg.Clock.Now().Sub(r.start)
}

// advanceTo sends every arrival due by el and closes every tick that ends by it, and returns
// the time of the next thing to do (an arrival or the end of the tick).
func (r *Run) advanceTo(el time.Duration) time.Duration {
	for !r.done {
		end := r.now + r.tick
		for r.next < len(r.arrivals) && r.arrivals[r.next].At <= el {
			r.dispatch(r.arrivals[r.next])
			r.next++
		}
		if el < end {
			if r.next < len(r.arrivals) {
				return min(r.arrivals[r.next].At, end)
			}
			return end
		}
		r.closeTick(end)
		if !r.done {
			r.beginTick(end)
		}
	}
	return el
}

// dispatch sends one arrival.
func (r *Run) dispatch(a scenarios.Arrival) {
	r.fleet.tally.arrived(a.Class)
	r.fleet.send(a.Class, a.Client, r.ctl.Classes[a.Class].Priority)
}

// beginTick applies what changes when the tick starting at t begins: the fault timeline (the
// faults' ends and starts, on the stack's fault controls), the caption, and draws the tick's
// arrivals.
func (r *Run) beginTick(t time.Duration) {
	r.now = t
	for _, c := range r.sch.Due(t) {
		if r.apply(c) == nil { // valid (the scenario's Validate); a refusal is logged as for a key
			r.sch.Applied(t-t%r.scn.Tick, c)
		}
	}
	r.tl.Begin(t)
	r.tl.Captions(t, r.strategy)
	r.drawArrivals(t)
}

// drawArrivals draws the arrivals of the tick starting at t exactly as the simulator does
// (scenarios.Arrivals), the total rate capped at MaxRPS.
func (r *Run) drawArrivals(t time.Duration) {
	r.arrivals, r.next = r.arrivals[:0], 0
	if r.arrEnd >= 0 && t >= r.arrEnd {
		return
	}
	r.rates = r.rates[:0]
	for _, c := range r.ctl.Classes {
		r.rates = append(r.rates, c.Rate*c.Share)
	}
	limit := t + r.tick
	if r.arrEnd >= 0 {
		limit = min(limit, r.arrEnd)
	}
	r.arrivals = r.arr.Draw(r.arrivals, t, limit, t+r.tick/2, r.rates, r.cfg.MaxRPS)
}

// closeTick ends the tick at end: the run's end stops the fleet first (its last requests are
// counted in this tick), then the tick's snapshot is queued for Advance.
func (r *Run) closeTick(end time.Duration) {
	settled := r.settleAt > 0 && end >= r.settleAt && len(r.fleet.slots) == 0
	if (r.total >= 0 && end >= r.total) || settled {
		r.done = true
		r.fleet.close()
		r.stack.Faults.ClearAll()
	}
	snap := source.Snapshot{T: end, Dt: r.tick, Done: r.done, Classes: make([]source.ClassTick, len(r.classTick))}
	snap.Counts = r.fleet.tally.take(r.classTick)
	r.diagnose(end, &snap.Counts)
	for i := range r.classTick {
		r.classTick[i].Priority = r.ctl.Classes[i].Priority
	}
	copy(snap.Classes, r.classTick)
	snap.Service, snap.Counts.Crashes = r.service(end)
	snap.Note = r.tl.Note(r.strategy)
	snap.Cortex = r.fleetView(end)
	snap.Faults = r.tl.Faults(nil, end)
	if len(r.events) > 0 {
		snap.Events = append([]source.Event(nil), r.events...)
		r.events = r.events[:0]
	}
	if len(r.out) >= maxQueued {
		r.out = append(r.out[:0], r.out[1:]...)
	}
	r.out = append(r.out, snap)
}

// emit appends event e of the tick, at t.
func (r *Run) emit(t time.Duration, e source.Event) {
	e.T = t
	r.events = append(r.events, e)
}

// Meta describes the run as configured now: Live is set, Total and Duration are 0 for an
// unbounded run, class rates are the scaled ones.
func (r *Run) Meta() source.Meta {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := source.Meta{
		Scenario: r.scn.Name,
		Summary:  r.scn.Summary,
		Story:    r.scn.Story,
		Strategy: r.strategy,
		Seed:     r.cfg.Seed,
		Tick:     r.tick,
		Total:    max(r.total, 0),
		Duration: max(r.arrEnd, 0),
		Classes:  r.ctl.Meta(),
		Live:     true,
	}
	if _, custom := r.cfg.customEngine(r.strategy); custom {
		m.Engine = r.cfg.EngineName
	}
	return m
}

// Fleet says which fleet the run's CORTEX engines join (Config.Join); nil without one.
func (r *Run) Fleet() *source.FleetMeta {
	j := r.cfg.Join // set once, by New
	if j == nil {
		return nil
	}
	return &source.FleetMeta{Name: j.Name, Store: j.Store, Instance: j.Instance}
}

// Advance ignores d: the run follows the wall clock. It catches up with the clock (sending the
// arrivals due and closing the ticks ended, which the real-time loop otherwise does) and
// returns the snapshots of the ticks completed since the last call, oldest first; nil once the
// run is over and read, and while paused.
func (r *Run) Advance(time.Duration) []source.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if !r.paused && !r.done && !r.gone() {
		r.advanceTo(r.elapsed())
	}
	out := r.out
	r.out = nil
	return out
}

// Done reports whether the run is over (its Duration elapsed) or closed.
func (r *Run) Done() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done || r.closed
}

// SetPaused stops (true) or resumes (false) the run: while paused no arrival is sent and the
// run's time stands still; requests already alive go on, their outcomes counted in the tick
// that resumes.
func (r *Run) SetPaused(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on == r.paused {
		return
	}
	now := r.cfg.Clock.Now()
	if on {
		r.pausedAt = now
	} else {
		r.start = r.start.Add(now.Sub(r.pausedAt))
	}
	r.paused = on
	r.poke()
}

// Close stops the run: the real-time loop, every request (cancelled at once), the stack (proxy
// and target), and the base transport's idle connections when the run made it. It returns
// once every goroutine the run started has ended. Closing twice is fine.
func (r *Run) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	stop, done := r.loopStop, r.loopDone
	r.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.teardown()
	r.closeBase()
	return nil
}

// closeBase closes the idle connections of the base transport the run made.
func (r *Run) closeBase() {
	if t, ok := r.cfg.Base.(*http.Transport); ok && r.ownBase {
		t.CloseIdleConnections()
	}
}
