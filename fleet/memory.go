package fleet

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Memory is the in-process fleet store: the engines of one process (the simulator's clients, or
// several engines of one service) share it. It follows the rules of the package doc exactly,
// on the time of its clock. Safe for concurrent use; Sync never blocks on anything but the
// store's mutex. Build it with NewMemory.
type Memory struct {
	mu      sync.Mutex
	opts    Options
	clock   engine.Clock
	fp      string // the members' configuration fingerprint ("" before the first sync)
	desc    string
	w       window
	members map[string]*member
	sweep   int64 // ns: silent members are looked for again from then on
	b       bucket
	fps     Fingerprints
}

// member is one instance as the store knows it.
type member struct {
	seen  int64   // ns of its last sync
	held  float64 // its lease
	token uint64  // the token it joined with
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-process store with opts, reading time from clock (nil: the
// wall clock). It returns an error naming each bad option.
func NewMemory(opts Options, clock engine.Clock) (*Memory, error) {
	o, err := opts.Check()
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = engine.WallClock{}
	}
	return &Memory{opts: o, clock: clock, members: map[string]*member{}}, nil
}

// Sync publishes instance's report r and answers the fleet's view into *v (see the package
// doc). It fails on a bad instance name or report, and with a *RefusedError when the fleet's
// members run another configuration or another instance holds the name; ctx is not read
// (nothing blocks).
func (m *Memory) Sync(_ context.Context, instance string, r *engine.FleetReport, v *engine.FleetView) error {
	if err := CheckName("instance", instance); err != nil {
		return err
	}
	if err := CheckReport(r); err != nil {
		return err
	}
	now := m.clock.Now().UnixNano()
	sec := floorDiv(now, int64(time.Second))
	short, long := Spans(r)

	m.mu.Lock()
	defer m.mu.Unlock()
	fp, desc := m.fps.Of(m.opts, short, long)
	m.expire(now)
	mb := m.members[instance]
	others := len(m.members)
	if mb != nil {
		others--
	}
	if m.fp != "" && m.fp != fp {
		if others > 0 {
			return &RefusedError{Reason: RefusedConfig, Instance: instance, Fleet: m.desc}
		}
		// The fleet is empty: it takes the new configuration, afresh.
		m.w, m.b, m.members, mb = window{}, bucket{}, map[string]*member{}, nil
	}
	if mb != nil && mb.token != r.Token {
		return &RefusedError{Reason: RefusedDuplicate, Instance: instance}
	}
	m.fp, m.desc = fp, desc

	dt := time.Second
	old := 0.0
	if mb != nil {
		old = mb.held
		dt = time.Duration(min(max(now-mb.seen, int64(10*time.Millisecond)), int64(max(2*m.opts.Expiry, time.Second))))
	}
	b := bound(r, old, dt, m.opts)
	m.w.at(sec, short, long)
	m.w.add(&b)

	m.b.refill(m.opts.Budget, now)
	n := len(m.members)
	if mb == nil && !r.Leave {
		n++
	}
	g, lease := m.b.exchange(m.opts.Budget, old, b.held, b.ret, r, b.counts.Successes, b.earned, n)
	switch {
	case r.Leave:
		delete(m.members, instance)
	case mb == nil:
		m.members[instance] = &member{seen: now, held: lease, token: r.Token}
	default:
		mb.seen, mb.held = now, lease
	}
	*v = engine.FleetView{
		Short:        m.w.sh.counts,
		ShortLatency: m.w.sh.latency,
		Long:         m.w.lo,
		Instances:    len(m.members),
		Capacity:     m.opts.Budget.Capacity,
		Tokens:       m.b.tokens,
		Leased:       m.b.out,
		Granted:      g,
		Spent:        m.w.sh.spent,
		Held:         lease,
	}
	return nil
}

// expire reclaims the leases of instances silent for longer than the expiry (lost, not
// refunded: they may have been spent), looking at most eight times an expiry.
func (m *Memory) expire(now int64) {
	if now < m.sweep {
		return
	}
	expiry := int64(m.opts.Expiry)
	for name, mb := range m.members {
		if now-mb.seen > expiry {
			m.b.out = max(0, m.b.out-mb.held)
			delete(m.members, name)
		}
	}
	m.sweep = now + expiry/8
}

// bounded is a report as the store counts it (bound).
type bounded struct {
	counts    engine.FleetCounts
	latency   engine.FleetHistogram
	spent     float64
	held, ret float64
	earned    float64
}

// bound returns what the store counts of report r from an instance whose lease the store
// knows as old tokens and whose last sync was dt ago (a second when it is new): its outcomes up
// to opts.MaxRate per second of dt, its latency sums up to 2^37 ns (137 s) per latency, what it
// spent, holds and hands back within old, its credit within what its successes earn.
func bound(r *engine.FleetReport, old float64, dt time.Duration, opts Options) bounded {
	lim := uint64(math.Floor(opts.MaxRate * dt.Seconds()))
	var b bounded
	b.counts.Successes = min(r.Counts.Successes, lim)
	b.counts.Failures = min(r.Counts.Failures, lim)
	b.counts.Timeouts = min(r.Counts.Timeouts, b.counts.Failures)
	for i, c := range r.Latency.Counts {
		c = min(c, lim)
		b.latency.Counts[i] = c
		if c > 0 {
			b.latency.Sums[i] = min(r.Latency.Sums[i], c<<37)
		}
	}
	b.spent = min(r.Spent, old)
	b.held = min(r.Held, old)
	b.ret = min(r.Return, old-b.held)
	b.earned = min(r.Earned, float64(b.counts.Successes)*opts.Budget.RefillPerSuccess)
	return b
}

// window is a fleet's outcomes as rolling sums over the short and the long span, from one
// entry per second (a ring of long seconds): each second that leaves a span is subtracted
// once, so a sync costs the same whatever the window.
type window struct {
	short, long int64
	cur         int64 // the second the sums are at
	ring        []second
	sh          second             // the short span: outcomes, latencies, spending
	lo          engine.FleetCounts // the long span's outcomes
}

// second is one second of the fleet's outcomes.
type second struct {
	sec     int64
	counts  engine.FleetCounts
	latency engine.FleetHistogram
	spent   float64
}

// at brings the sums to second sec (a second before the current one stays in it): the
// seconds that left a span since are subtracted, and a window of other spans starts afresh.
func (w *window) at(sec, short, long int64) {
	if w.ring == nil || w.short != short || w.long != long {
		*w = window{short: short, long: long, cur: sec, ring: make([]second, long)}
		for i := range w.ring {
			w.ring[i].sec = math.MinInt64
		}
		return
	}
	if sec <= w.cur {
		return
	}
	if sec-w.cur >= long {
		w.sh, w.lo, w.cur = second{}, engine.FleetCounts{}, sec
		return
	}
	for x := w.cur + 1; x <= sec; x++ {
		if e := &w.ring[mod(x-short, long)]; e.sec == x-short {
			w.sh.sub(e, true)
		}
		if e := &w.ring[mod(x, long)]; e.sec == x-long {
			subCounts(&w.lo, e.counts)
		}
	}
	w.cur = sec
}

// add adds a bounded report to the current second and to both spans.
func (w *window) add(b *bounded) {
	e := &w.ring[mod(w.cur, w.long)]
	if e.sec != w.cur {
		*e = second{sec: w.cur}
	}
	for _, s := range []*second{e, &w.sh} {
		s.counts.Add(b.counts)
		s.latency.Add(&b.latency)
		s.spent += b.spent
	}
	w.lo.Add(b.counts)
}

// sub subtracts e from s (its latencies and spending too with all).
func (s *second) sub(e *second, all bool) {
	subCounts(&s.counts, e.counts)
	if !all {
		return
	}
	for i := range s.latency.Counts {
		s.latency.Counts[i] -= min(s.latency.Counts[i], e.latency.Counts[i])
		s.latency.Sums[i] -= min(s.latency.Sums[i], e.latency.Sums[i])
	}
	s.spent = max(0, s.spent-e.spent)
}

// subCounts subtracts o from c, never below zero.
func subCounts(c *engine.FleetCounts, o engine.FleetCounts) {
	c.Successes -= min(c.Successes, o.Successes)
	c.Failures -= min(c.Failures, o.Failures)
	c.Timeouts -= min(c.Timeouts, o.Timeouts)
}

// mod is a mod b in [0, b) (b > 0).
func mod(a, b int64) int64 { return ((a % b) + b) % b }

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
