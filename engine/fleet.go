package engine

import (
	"context"
	"fmt"
	"math"
	"time"
)

// A fleet is many engines, one per instance of a service, that watch the same downstream and
// share one retry budget through a FleetStore (an in-process one, or Redis). The engine does no
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
	hh := histogram{counts: h.Counts, sums: h.Sums}
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
}

// FleetStore is where a fleet's engines meet: Sync publishes one instance's report and answers
// the fleet's view into *v, taking the tokens the report asks for from the fleet's bucket,
// atomically. A store is safe for concurrent use. Sync may block on the network: only the
// sync loop calls it, never a decision. It returns an error when the store cannot be reached or
// answers nonsense; *v is then undefined.
type FleetStore interface {
	Sync(ctx context.Context, instance string, r *FleetReport, v *FleetView) error
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
	// above twice that.
	Lease float64
}

// DefaultFleetConfig returns a fleet membership switched on with its defaults: views fresh
// for 500 ms, leases of at least 4 tokens.
func DefaultFleetConfig() FleetConfig {
	return FleetConfig{Enabled: true, MaxAge: 500 * time.Millisecond, Lease: 4}
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
}

// fleetState is the engine's side of a fleet. Not safe for concurrent use: the engine's mutex
// guards it.
type fleetState struct {
	on     bool
	maxAge time.Duration
	lease  float64

	// pending: recorded since the last applied report
	counts FleetCounts
	hist   FleetHistogram
	spent  float64
	ret    float64 // tokens being handed back
	need   float64 // the price of the costliest retry refused for want of leased tokens
	last   float64 // tokens spent over the last applied report

	held float64 // usable leased tokens

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
// engine's spending since the view counted.
func (f *fleetState) burn() float64 {
	if f.capacity <= 0 {
		return 0
	}
	return clamp01(1 - (f.tokens+f.leased-f.spent)/f.capacity)
}

// take spends cost leased tokens if the fleet keeps floor(reserve*capacity) unspent after them
// (free tokens plus every lease, less what this engine spent since the view: the tokens burn
// counts as left; at least this engine's own lease, for a store that reports no leases) and the lease holds them; a retry refused for want of leased tokens only is
// remembered, so the next sync asks for enough. The reserve counts the other instances' leases
// too: with 150 members, tokens leased out elsewhere are not spent, and counting only the free
// ones refused low priorities while the bucket was nearly full (burn 0.00).
func (f *fleetState) take(cost, reserve float64) bool {
	if f.capacity <= 0 {
		return true
	}
	cost, keep := priced(cost, reserve, f.capacity)
	if f.tokens+max(f.leased-f.spent, f.held)-cost < keep {
		return false
	}
	if f.held < cost {
		f.need = max(f.need, cost)
		return false
	}
	f.held -= cost
	f.spent += cost
	return true
}

// FleetReport fills *r with what the engine publishes now: its outcomes and spending since
// its last applied report, and its side of the lease (tokens handed back, tokens wanted, tokens
// held). It changes nothing but the lease (tokens above twice the target move to Return); pass
// the same report to FleetApply once the store answered, or call FleetLost. On an engine
// without Config.Fleet.Enabled it fills the spans and zeroes the rest.
func (e *Engine) FleetReport(r *FleetReport) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := &e.fleet
	r.Window = e.cfg.Window
	r.Horizon = e.cfg.FailureHorizon
	if r.Horizon <= 0 || r.Horizon > r.Window {
		r.Horizon = r.Window
	}
	if !f.on {
		r.Counts, r.Latency = FleetCounts{}, FleetHistogram{}
		r.Spent, r.Return, r.Want, r.Held, r.Earned = 0, 0, 0, 0, 0
		return
	}
	target := max(f.lease, 2*f.last, f.need)
	if f.capacity > 0 {
		target = min(target, f.capacity)
	}
	if f.held > 2*target {
		f.ret += f.held - target
		f.held = target
	}
	r.Counts = f.counts
	r.Latency = f.hist
	r.Spent = f.spent
	r.Return = f.ret
	r.Held = f.held
	r.Want = max(0, target-f.held)
	r.Earned = float64(f.counts.Successes) * e.cfg.TokenRefillPerSuccess
}

// FleetApply takes the store's answer v to report r (from FleetReport): what r published
// leaves the pending report, the granted tokens join the lease, and the view becomes the fleet
// view, fresh for Config.Fleet.MaxAge: F is the fleet's failure rate (short span or window,
// whichever is higher, as locally), L the deviation of the fleet's P99 from this engine's
// baseline, B the fleet bucket's burn. A no-op on an engine without Config.Fleet.Enabled.
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
	f.spent = max(0, f.spent-r.Spent)
	f.ret = max(0, f.ret-r.Return)
	f.last = r.Spent
	f.need = 0
	if g := v.Granted; g > 0 && !math.IsInf(g, 0) {
		f.held += g
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

// fleetSignals replaces F, L and B by the fleet's while the fleet view is fresh at t.
func (e *Engine) fleetSignals(t time.Duration, s *Signals) {
	f := &e.fleet
	if !f.fresh(t) {
		return
	}
	s.F = f.f
	s.L = e.bl.deviation(f.p99)
	s.B = f.burn()
}

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
	s.Held = f.held
	s.Failures = f.failures
	local := Signals{F: e.failureRate(), L: e.bl.deviation(e.p99()), Q: e.qSignal, B: e.tb.burn(t), C: e.br.score()}
	s.LocalCPS = clamp01(e.w.dot(&local))
	return s
}
