package engine

import (
	"fmt"
	"math"
	"time"
)

// A fleet is many engines, one per instance of a service, that watch the same downstream and
// share one retry budget through a store (package fleet: fleet.Store, in process or on Redis). The engine does no
// I/O: a sync loop outside it (package fleet) calls FleetReport for what to publish, hands the
// report to the store, and gives the store's answer back to FleetApply, or calls FleetLost when
// the store failed. Decisions never wait for the store: they read the last view the loop
// applied, and fall back to the engine's own view when that view is missing or too old.

// FleetBins is the number of latency bins of a FleetHistogram: the engine's log-linear bins
// (4 per power of two from 65 µs to 69 s).
const FleetBins = histBins

// FleetCounts are the outcomes over a span of time: successes, failures (timeouts included,
// as in signal F) and the failures that were timeouts.
type FleetCounts struct {
	Successes uint64
	Failures  uint64 // timeouts included
	Timeouts  uint64 // the failures that were timeouts
}

// Add adds o to c.
func (c *FleetCounts) Add(o FleetCounts) {
	c.Successes += o.Successes
	c.Failures += o.Failures
	c.Timeouts += o.Timeouts
}

// FailureRate returns Failures / (Successes + Failures), 0 when there is no outcome.
func (c FleetCounts) FailureRate() float64 {
	n := c.Successes + c.Failures
	if n == 0 {
		return 0
	}
	return float64(c.Failures) / float64(n)
}

// FleetHistogram is a latency histogram in the engine's bins (FleetBins): the number of
// latencies in each bin and their sum in nanoseconds. Stores add histograms bin by bin
// (Add); the zero value is empty.
type FleetHistogram struct {
	Counts [FleetBins]uint64
	Sums   [FleetBins]uint64 // nanoseconds
}

// Add adds every bin of o to h.
func (h *FleetHistogram) Add(o *FleetHistogram) {
	for i := range h.Counts {
		h.Counts[i] += o.Counts[i]
		h.Sums[i] += o.Sums[i]
	}
}

// P99 returns the 99th percentile of the histogram's latencies as the engine reads it (the
// mean latency of the bin holding it), 0 when empty.
func (h *FleetHistogram) P99() time.Duration {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	var hh histogram
	for i := range hh.bins {
		hh.bins[i] = histBin{count: h.Counts[i], sum: h.Sums[i]}
	}
	return hh.quantile(0.99, n)
}

// FleetReport is what an instance publishes at a sync: its outcomes since its last successful
// sync, and its side of the budget lease. FleetReport fills it; a store reads it.
type FleetReport struct {
	Horizon time.Duration  // the span of FleetView.Short: the engine's FailureHorizon (its Window when 0)
	Window  time.Duration  // the span of FleetView.Long: the engine's Window
	Counts  FleetCounts    // outcomes recorded since the last successful sync
	Latency FleetHistogram // their latencies
	Spent   float64        // leased tokens spent since the last successful sync
	Return  float64        // leased tokens handed back to the fleet's bucket
	Want    float64        // tokens asked for (0: none)
	Held    float64        // leased tokens this instance holds after Return, before the grant
	// Earned is the refill credit the outcomes earned the fleet's bucket: Successes times
	// TokenRefillPerSuccess (0 with a flat refill).
	Earned float64
	// Leave says that the instance leaves the fleet with this report: Return holds its whole
	// lease (Held is 0, Want 0), and the store forgets the instance once it has credited them
	// (FleetLeave fills it).
	Leave bool
	// Token is a random number the instance drew when it joined (package fleet's Member): a
	// store refuses a sync from a second instance of the same name (another token) while the
	// first is a member. 0 for an engine's own report: the sync loop sets it.
	Token uint64
}

// FleetView is a store's answer to a sync: the fleet's outcomes (every instance's reports,
// this one's included) and the fleet bucket after the sync's grant.
type FleetView struct {
	Short        FleetCounts    // outcomes over the report's Horizon
	ShortLatency FleetHistogram // their latencies
	Long         FleetCounts    // outcomes over the report's Window
	Instances    int            // instances that synced within the store's member timeout
	Capacity     float64        // the fleet bucket's capacity, tokens (0: no budget, every take succeeds)
	Tokens       float64        // tokens free in the fleet bucket after the grant
	Leased       float64        // tokens leased to instances and not yet spent, the grant included
	Granted      float64        // tokens granted to this instance by this sync
	Spent        float64        // tokens the fleet spent over the report's Horizon
	// Held is the lease the store records for this instance after the sync, the grant
	// included: at most the report's Held plus Granted. Tokens the instance reported and the
	// store does not know of (a store restarted empty, a lie) are dropped from its lease, so
	// the fleet never has more tokens in circulation than its capacity.
	Held float64
	// Repaired counts the bad values the store has found in its own state and repaired
	// (wrong types, non-finite or out-of-range numbers written by something else), since the
	// store's state was created; never applied.
	Repaired uint64
}

// FleetConfig configures an engine's membership of a fleet (Config.Fleet). The zero value is
// off: the engine is alone, and behaves and costs as without it.
type FleetConfig struct {
	Enabled bool // take part in a fleet: keep what FleetReport publishes, read FleetApply's view (default false)
	// MaxAge is how long a fleet view stays fresh without a new one: past it the engine reads
	// its local view again (default 500ms, about two syncs of the fleet package's default
	// interval).
	MaxAge time.Duration
	// Lease is the smallest number of tokens the engine asks to hold (default 4): it asks for
	// max(Lease, twice what it spent over the last sync interval, the price of the last retry
	// refused for want of leased tokens), capped at the capacity, and hands back what it holds
	// above twice that. With a Pool, the pool's sync loop applies it to the pool.
	Lease float64
	// Envelope bounds how far the fleet's view may move the engine's own signals: while the
	// fleet view is fresh, F and L are the fleet's, kept within Envelope of the engine's own F
	// and L (default 0.3; 1 lets the fleet's replace them whatever they are). A store that
	// answers garbage, or an instance that lies, moves an honest engine's signals by at most
	// that much. 0 means the default.
	Envelope float64
	// Pool, when set, is the lease the engine draws its fleet tokens from, shared with the
	// other engines of its process (one member per process, package fleet): the engine's
	// FleetReport then carries no lease (the pool's owner reports it once for all) and
	// FleetApply leaves the grant to the pool. nil: the engine holds a lease of its own.
	Pool *FleetPool
}

// DefaultEnvelope is FleetConfig.Envelope's default.
const DefaultEnvelope = 0.3

// DefaultFleetConfig returns a fleet membership switched on with its defaults: views fresh
// for 500 ms, leases of at least 4 tokens, the fleet's F and L within 0.3 of the engine's own,
// a lease of its own.
func DefaultFleetConfig() FleetConfig {
	return FleetConfig{Enabled: true, MaxAge: 500 * time.Millisecond, Lease: 4, Envelope: DefaultEnvelope}
}

// validate appends the fleet fields' problems to errs (checked only when Enabled).
func (f FleetConfig) validate(bad func(field, format string, a ...any)) {
	if !f.Enabled {
		return
	}
	if f.MaxAge <= 0 {
		bad("Fleet.MaxAge", "must be > 0 when Fleet.Enabled (got %s)", f.MaxAge)
	}
	if !(f.Lease >= 1) || math.IsInf(f.Lease, 0) {
		bad("Fleet.Lease", "must be a finite number >= 1 when Fleet.Enabled (got %v)", f.Lease)
	}
	if !(f.Envelope >= 0 && f.Envelope <= 1) {
		bad("Fleet.Envelope", "must be in [0, 1] when Fleet.Enabled (got %v; 0: the default)", f.Envelope)
	}
}

// FleetMode says which view an engine's signals and budget read.
type FleetMode uint8

// The fleet modes of Snapshot.Fleet.
const (
	FleetOff   FleetMode = iota // no fleet configured: the engine is alone
	FleetLocal                  // in a fleet, but its view is missing, stale or the last sync failed: local F, L, B and budget
	FleetJoint                  // in a fleet with a fresh view: fleet F, L and B, budget leased from the fleet
)

// String returns the mode's name: "OFF", "LOCAL" or "FLEET".
func (m FleetMode) String() string {
	switch m {
	case FleetOff:
		return "OFF"
	case FleetLocal:
		return "LOCAL"
	case FleetJoint:
		return "FLEET"
	}
	return fmt.Sprintf("FleetMode(%d)", int(m))
}

// FleetStatus is what an engine knows of its fleet (Engine.FleetStatus).
type FleetStatus struct {
	Mode      FleetMode
	Age       time.Duration // since the last applied view (0 before any)
	Instances int           // in the last view
	F         float64       // the fleet's failure rate in the last view (signal F while fresh)
	P99       time.Duration // the fleet's P99 latency over the short span in the last view
	Burn      float64       // the fleet bucket's burn in the last view (signal B while fresh)
	Held      float64       // tokens this engine holds on lease
	Failures  uint64        // failed syncs (FleetLost) since New or Reset
	// LocalCPS is the CPS of the engine's own signals (its local F, L and B with Q and C): what
	// it would decide alone. Snapshot.CPS is the CPS it decides with (the fleet's F, L and B
	// while the view is fresh).
	LocalCPS float64
	// Local are the engine's own signals, those LocalCPS weighs: while the view is fresh,
	// Snapshot().Signals' F and L stay within Config.Fleet.Envelope of Local's.
	Local Signals
}

// fleetState is the engine's side of a fleet. Not safe for concurrent use: the engine's mutex
// guards it (its pool has a mutex of its own).
type fleetState struct {
	on       bool
	maxAge   time.Duration
	lease    float64
	envelope float64
	pool     *FleetPool // the lease: the engine's own, or its process's (Config.Fleet.Pool)
	shared   bool       // the pool is Config.Fleet.Pool: its owner reports and applies it

	// pending: recorded since the last applied report
	counts FleetCounts
	hist   FleetHistogram

	// the last view
	have      bool          // a view was applied and no sync failed since
	ever      bool          // a view was applied since New or Reset
	at        time.Duration // engine time of the last view
	f         float64
	p99       time.Duration
	capacity  float64
	tokens    float64 // free in the bucket after the grant
	leased    float64 // outstanding fleet-wide after the grant
	instances int
	failures  uint64
}

// newFleetState returns the fleet side of an engine configured with c.
func newFleetState(c FleetConfig) fleetState {
	f := fleetState{on: c.Enabled, maxAge: c.MaxAge, lease: c.Lease, envelope: c.Envelope, pool: c.Pool, shared: c.Pool != nil}
	if f.envelope == 0 {
		f.envelope = DefaultEnvelope
	}
	if f.pool == nil {
		f.pool = NewFleetPool()
	}
	return f
}

// fresh reports whether the fleet view may be read at t.
func (f *fleetState) fresh(t time.Duration) bool {
	return f.have && t-f.at <= f.maxAge
}

// record adds one outcome to the pending report.
func (f *fleetState) record(o outcome, bin int, ns int64) {
	switch o {
	case succeeded:
		f.counts.Successes++
	case timedOut:
		f.counts.Timeouts++
		f.counts.Failures++
	default:
		f.counts.Failures++
	}
	f.hist.Counts[bin]++
	f.hist.Sums[bin] += uint64(ns)
}

// burn is the fleet's B: the share of the fleet bucket neither free nor leased, with this
// engine's (or its pool's) spending since the view counted.
func (f *fleetState) burn() float64 {
	if f.capacity <= 0 {
		return 0
	}
	return clamp01(1 - (f.tokens+f.leased-f.pool.spentNow())/f.capacity)
}

// take spends a retry of price cost from the pool if the fleet keeps the priority's reserve
// unspent after it (both as priced makes them: FleetPool.take).
func (f *fleetState) take(cost, reserve float64) bool {
	if f.capacity <= 0 {
		return true
	}
	cost, keep := priced(cost, reserve, f.capacity)
	return f.pool.take(cost, f.tokens, f.leased, keep)
}

// FleetReport fills *r with what the engine publishes now: its outcomes since its last
// applied report and, with a lease of its own, its side of the lease (FleetPool.Report:
// tokens spent, handed back, wanted, held; with Config.Fleet.Pool those are left zero for the
// pool's owner to fill). It changes nothing but the lease (tokens above twice the target move
// to Return); pass the same report to FleetApply once the store answered, or call FleetLost. On
// an engine without Config.Fleet.Enabled it fills the spans and zeroes the rest.
func (e *Engine) FleetReport(r *FleetReport) { e.fleetReport(r, false) }

// FleetLeave is FleetReport for the engine's last sync before it leaves its fleet: its own
// lease goes into Return whole (Held 0, Want 0) and r.Leave is set, so the store credits the
// tokens back to the bucket and forgets the instance. Pass r to FleetApply as usual.
func (e *Engine) FleetLeave(r *FleetReport) { e.fleetReport(r, true) }

// fleetReport is FleetReport, or FleetLeave with leave.
func (e *Engine) fleetReport(r *FleetReport, leave bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := &e.fleet
	r.Window = e.cfg.Window
	r.Horizon = e.cfg.FailureHorizon
	if r.Horizon <= 0 || r.Horizon > r.Window {
		r.Horizon = r.Window
	}
	r.Spent, r.Return, r.Want, r.Held, r.Leave = 0, 0, 0, 0, false
	if !f.on {
		r.Counts, r.Latency, r.Earned = FleetCounts{}, FleetHistogram{}, 0
		return
	}
	if !f.shared {
		f.pool.Report(r, f.lease, leave)
	}
	r.Counts = f.counts
	r.Latency = f.hist
	r.Earned = float64(f.counts.Successes) * e.cfg.TokenRefillPerSuccess
}

// FleetApply takes the store's answer v to report r (from FleetReport): what r published
// leaves the pending report, the lease takes the grant (FleetPool.Apply; with Config.Fleet.Pool
// its owner applies it), and the view becomes the fleet view, fresh for Config.Fleet.MaxAge: F is
// the fleet's failure rate (short span or window, whichever is higher, as locally), L the
// deviation of the fleet's P99 from this engine's baseline, each kept within Envelope of the
// engine's own, B the fleet bucket's burn. A no-op on an engine without Config.Fleet.Enabled.
func (e *Engine) FleetApply(r *FleetReport, v *FleetView) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := &e.fleet
	if !f.on {
		return
	}
	t := e.now()
	e.advance(t)
	sub := func(a *uint64, b uint64) { *a -= min(*a, b) }
	sub(&f.counts.Successes, r.Counts.Successes)
	sub(&f.counts.Failures, r.Counts.Failures)
	sub(&f.counts.Timeouts, r.Counts.Timeouts)
	for i := range f.hist.Counts {
		sub(&f.hist.Counts[i], r.Latency.Counts[i])
		sub(&f.hist.Sums[i], r.Latency.Sums[i])
	}
	if !f.shared {
		f.pool.Apply(r, v)
	}
	f.have, f.ever, f.at = true, true, t
	f.f = max(v.Short.FailureRate(), v.Long.FailureRate())
	f.p99 = v.ShortLatency.P99()
	f.capacity = finite(v.Capacity)
	f.tokens = finite(v.Tokens)
	f.leased = finite(v.Leased)
	f.instances = v.Instances
}

// finite returns v, or 0 when v is negative, NaN or infinite.
func finite(v float64) float64 {
	if !(v >= 0) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// FleetLost tells the engine that a sync failed: it reads its local view again at once (F,
// L, B and its own token bucket) until the next FleetApply. What the failed report held stays
// pending, and goes out with the next one. A no-op without Config.Fleet.Enabled.
func (e *Engine) FleetLost() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fleet.on {
		e.fleet.have = false
		e.fleet.failures++
	}
}

// fleetSignals replaces F, L and B by the fleet's while the fleet view is fresh at t, F and L
// kept within the envelope of the engine's own.
func (e *Engine) fleetSignals(t time.Duration, s *Signals) {
	f := &e.fleet
	if !f.fresh(t) {
		return
	}
	s.F = within(f.f, s.F, f.envelope)
	s.L = within(e.bl.deviation(f.p99), s.L, f.envelope)
	s.B = f.burn()
}

// within returns the fleet's signal v kept within d of the engine's own, local.
func within(v, local, d float64) float64 { return min(max(v, local-d), local+d) }

// mode returns the fleet mode of an engine in a fleet at t.
func (f *fleetState) mode(t time.Duration) FleetMode {
	if f.fresh(t) {
		return FleetJoint
	}
	return FleetLocal
}

// FleetStatus returns what the engine knows of its fleet now: the mode Snapshot.Fleet reports,
// and the last view's age, instances, failure rate, P99 and burn, the tokens held on lease,
// the failed syncs and the CPS of the engine's own signals. The zero value (mode OFF) without Config.Fleet.Enabled.
func (e *Engine) FleetStatus() (s FleetStatus) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.fleetOn {
		return s
	}
	t := e.now()
	e.advance(t)
	f := &e.fleet
	s.Mode = f.mode(t)
	s.Age = 0
	if f.ever {
		s.Age = t - f.at
	}
	s.Instances = f.instances
	s.F = f.f
	s.P99 = f.p99
	s.Burn = f.burn()
	s.Held = f.pool.Held()
	s.Failures = f.failures
	s.Local = Signals{F: e.failureRate(), L: e.bl.deviation(e.p99()), Q: e.qSignal, B: e.tb.burn(t), C: e.br.score()}
	s.LocalCPS = clamp01(e.w.dot(&s.Local))
	return s
}
