package fleet

import (
	"context"
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
	seconds map[int64]*second
	oldest  int64 // no second below this is kept
	members map[string]*member
	b       bucket
}

// second is one second of the fleet's outcomes.
type second struct {
	counts  engine.FleetCounts
	latency engine.FleetHistogram
	spent   float64
	keep    int64 // the last second a view can read it
}

// member is one instance as the store knows it.
type member struct {
	seen int64   // ns of its last sync
	held float64 // its lease
}

var _ engine.FleetStore = (*Memory)(nil)

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
	return &Memory{opts: o, clock: clock, seconds: map[int64]*second{}, members: map[string]*member{}}, nil
}

// Sync publishes instance's report r and answers the fleet's view into *v (see the package
// doc). It fails only on a bad instance name or report; ctx is not read (nothing blocks).
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
	s := m.seconds[sec]
	if s == nil {
		s = &second{}
		m.seconds[sec] = s
	}
	s.counts.Add(r.Counts)
	s.latency.Add(&r.Latency)
	s.spent += r.Spent
	s.keep = max(s.keep, sec+long)
	m.expireSeconds(sec)

	expiry := int64(m.opts.Expiry)
	for name, mb := range m.members {
		if now-mb.seen > expiry {
			m.b.out = max(0, m.b.out-mb.held) // reclaimed: lost, not refunded
			delete(m.members, name)
		}
	}
	mb := m.members[instance]
	if mb == nil {
		mb = &member{}
		m.members[instance] = mb
	}
	old := mb.held
	mb.seen = now

	m.b.refill(m.opts.Budget, now)
	g := m.b.exchange(m.opts.Budget, old, r)
	mb.held = r.Held + g

	*v = engine.FleetView{
		Instances: len(m.members),
		Capacity:  m.opts.Budget.Capacity,
		Tokens:    m.b.tokens,
		Leased:    m.b.out,
		Granted:   g,
	}
	for i := sec - long + 1; i <= sec; i++ {
		b := m.seconds[i]
		if b == nil {
			continue
		}
		v.Long.Add(b.counts)
		if i > sec-short {
			v.Short.Add(b.counts)
			v.ShortLatency.Add(&b.latency)
			v.Spent += b.spent
		}
	}
	return nil
}

// expireSeconds drops the seconds no view can read any more, at most once a second.
func (m *Memory) expireSeconds(sec int64) {
	if sec < m.oldest {
		return
	}
	for k, s := range m.seconds {
		if s.keep < sec {
			delete(m.seconds, k)
		}
	}
	m.oldest = sec + 1
}

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
