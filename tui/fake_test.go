package tui

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

var _ source.Source = (*fakeSource)(nil)

// fakeSource is a scripted, deterministic source.Source for the dashboard's tests (like ctop's
// mock collector): tick n's snapshot is a pure function of n, the strategy and the controls,
// and every control call is recorded for assertions. Safe for concurrent use.
type fakeSource struct {
	mu       sync.Mutex
	meta     source.Meta
	notes    []scenarios.Note // the scenario's captions; none: a made-up note every 10 s
	n        int              // ticks produced
	carry    time.Duration    // fraction of a tick carried over
	weights  engine.Weights
	adaptive bool
	faults   map[scenarios.FaultKind]scenarios.Fault
	pending  []source.Event
	closed   bool

	advances  int // Advance calls
	restarts  int
	injected  []scenarios.Fault
	cleared   []scenarios.FaultKind
	clearAlls int
	weightSet []engine.Weights
}

// fakeScenario is the scenario the fake sources pretend to run.
func fakeScenario() scenarios.Scenario {
	return scenarios.Scenario{
		Name: "fake-storm", Summary: "a scripted storm for tests", Story: "CPS rises, then falls.",
		Duration: 50 * time.Second, Drain: 10 * time.Second, Tick: 100 * time.Millisecond, Seed: 7,
		Clients: 4,
		Classes: []scenarios.Class{{Name: "payment", Priority: 9, Rate: 50}, {Name: "search", Priority: 5, Rate: 100}, {Name: "analytics", Priority: 1, Rate: 80}},
		Service: scenarios.Service{Workers: 20, ServiceTime: 100 * time.Millisecond, QueueLimit: 100},
	}
}

// newFake returns a fake source for scn with strategy strat and seed.
func newFake(scn scenarios.Scenario, strat string, seed int64) *fakeSource {
	classes := make([]source.ClassMeta, len(scn.Classes))
	for i, c := range scn.Classes {
		classes[i] = source.ClassMeta{Name: c.Name, Priority: c.Priority, Share: 1, Rate: c.Rate}
	}
	return &fakeSource{
		meta: source.Meta{Scenario: scn.Name, Summary: scn.Summary, Story: scn.Story, Strategy: strat, Seed: seed,
			Tick: scn.Tick, Total: scn.Duration + scn.Drain, Classes: classes},
		notes:   scn.Notes,
		weights: engine.DefaultWeights(),
		faults:  map[scenarios.FaultKind]scenarios.Fault{},
	}
}

// fakeFactory is a SourceFactory of fake sources; made collects every source it built.
type fakeFactory struct {
	mu   sync.Mutex
	made []*fakeSource
	err  error
}

func (f *fakeFactory) build(scn scenarios.Scenario, strat string, seed int64) (source.Source, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	s := newFake(scn, strat, seed)
	f.made = append(f.made, s)
	return s, nil
}

func (f *fakeFactory) last() *fakeSource {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.made[len(f.made)-1]
}

func (s *fakeSource) Meta() source.Meta {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.meta
	m.Classes = append([]source.ClassMeta(nil), m.Classes...)
	return m
}

func (s *fakeSource) Advance(d time.Duration) []source.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advances++
	total := int(s.meta.Total / s.meta.Tick)
	if s.n >= total || s.closed {
		return nil
	}
	s.carry += d
	var out []source.Snapshot
	for s.carry >= s.meta.Tick && s.n < total {
		s.carry -= s.meta.Tick
		s.n++
		out = append(out, s.snapshot(s.n, s.n == total))
	}
	return out
}

// snapshot is tick n: the CPS follows a hump peaking in the middle of the run.
func (s *fakeSource) snapshot(n int, done bool) source.Snapshot {
	t := time.Duration(n) * s.meta.Tick
	x := float64(n) / (s.meta.Total.Seconds() * 10)
	cps := 0.9 * math.Sin(math.Pi*x)
	if _, ok := s.faults[scenarios.FaultOutage]; ok {
		cps = 0.95
	}
	orig := 20 + n%5
	retries := int(cps * 40)
	state := source.ServiceUp
	if cps > 0.8 {
		state = source.ServiceCrashed
	}
	snap := source.Snapshot{
		T: t, Dt: s.meta.Tick, Done: done,
		Counts: source.Counts{Originals: orig, Attempts: orig + retries, Retries: retries,
			Successes: orig - retries/4, Failures: retries / 4, Completed: orig - retries/4,
			Decisions: [5]int{retries + n%4/3, retries / 3, n % 3, 0, n % 2}, Shed: retries / 3, RetryFailures: retries / 5,
			RetryRefused: n % 4 / 3},
		Service: source.Service{State: state, Capacity: 200, Queue: int(cps * 100), QueueLimit: 100, Utilisation: cps},
		Note:    fmt.Sprintf("note at %ds", int(t.Seconds())/10*10),
		Events:  s.pending,
	}
	s.pending = nil
	r := &snap.Counts.Reasons // the reasons of the decisions above, as the simulator counts them
	r[source.ReasonRetry], r[source.ReasonShed] = snap.Counts.Decisions[engine.Retry], snap.Counts.Shed
	r[source.ReasonCircuitOpen], r[source.ReasonMaxRetries] = n%3, n%2
	if len(s.notes) > 0 { // the scenario's captions, each logged in the tick it begins, as the simulator does
		snap.Note = ""
		for _, note := range s.notes {
			if note.At < t {
				snap.Note = note.Text
			}
			if note.At >= t-s.meta.Tick && note.At < t {
				snap.Events = append(snap.Events, source.Event{T: t, Kind: source.EventNote, Text: note.Text})
			}
		}
	}
	for i, c := range s.meta.Classes {
		snap.Classes = append(snap.Classes, source.ClassTick{Priority: c.Priority, Arrived: orig / 3, Succeeded: orig / 4,
			Admitted: retries / (i + 1), Shed: i * retries / 6, BudgetRejected: i})
	}
	for _, f := range s.faults {
		snap.Faults = append(snap.Faults, source.ActiveFault{Kind: f.Kind, Value: f.Value, Injected: true})
	}
	if s.meta.Strategy == "cortex" {
		sig := engine.Signals{F: cps, L: cps * 0.8, Q: cps * 0.5, B: cps * 0.3, C: math.Floor(cps + 0.2)}
		snap.Cortex = &source.CortexView{Signals: sig, SigMin: sig, SigMax: sig, Weights: s.weights, Adaptive: s.adaptive,
			CPS: cps, CPSMin: cps * 0.9, CPSMax: math.Min(1, cps*1.1), State: engine.StateFor(cps, engine.DefaultEmergencyThreshold), Floor: engine.FloorFor(cps)}
	}
	return snap
}

func (s *fakeSource) control(text string) {
	s.pending = append(s.pending, source.Event{T: time.Duration(s.n) * s.meta.Tick, Kind: source.EventControl, Text: text})
}

// Control applies c as the simulator would, recording each call.
func (s *fakeSource) Control(c source.ControlEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch c.Control {
	case source.ControlInject:
		s.inject(c.Fault)
	case source.ControlClear:
		s.clearKind(c.Fault.Kind)
	case source.ControlClearAll:
		clear(s.faults)
		s.clearAlls++
	case source.ControlWeights:
		s.weights = c.Weights
		s.weightSet = append(s.weightSet, c.Weights)
	case source.ControlAdaptive:
		s.adaptive = c.On
	case source.ControlClass:
		return s.setClass(c.Class, c.Share, c.Priority)
	case source.ControlStrategy:
		if c.Strategy == "grpc" {
			return fmt.Errorf("strategy %q is not available in the fake", c.Strategy)
		}
		s.meta.Strategy = c.Strategy
		s.pending = append(s.pending, source.Event{T: time.Duration(s.n) * s.meta.Tick, Kind: source.EventControl,
			Control: source.SetStrategy(c.Strategy)}) // as the simulator says it
	case source.ControlRestart:
		s.n, s.carry, s.restarts = 0, 0, s.restarts+1
		clear(s.faults)
	default:
		return fmt.Errorf("the fake applies no %s control", c.Control)
	}
	return nil
}

func (s *fakeSource) inject(f scenarios.Fault) {
	s.faults[f.Kind] = f
	s.injected = append(s.injected, f)
	s.control(fmt.Sprintf("%s injected", f.Kind))
	s.fault(source.FaultEvent{Change: source.FaultStarted, Kind: f.Kind, Value: f.Value, Injected: true})
}

// fault logs a fault event at the current tick, as the simulator does (the charts mark them).
func (s *fakeSource) fault(e source.FaultEvent) {
	s.pending = append(s.pending, source.Event{T: time.Duration(s.n) * s.meta.Tick, Kind: source.EventFault, Fault: e})
}

func (s *fakeSource) clearKind(kind scenarios.FaultKind) {
	if _, ok := s.faults[kind]; ok {
		s.fault(source.FaultEvent{Change: source.FaultCleared, Kind: kind})
	}
	delete(s.faults, kind)
	s.cleared = append(s.cleared, kind)
}

func (s *fakeSource) setClass(name string, share float64, priority int) error {
	i := slices.IndexFunc(s.meta.Classes, func(c source.ClassMeta) bool { return c.Name == name })
	if i < 0 {
		return fmt.Errorf("no class %q", name)
	}
	s.meta.Classes[i].Share, s.meta.Classes[i].Priority = share, priority
	s.control(fmt.Sprintf("class %s: share x%.2f, priority %d", s.meta.Classes[i].Name, share, priority))
	return nil
}

func (s *fakeSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// snapshotOf returns a copy of the recorded calls, under the lock.
func (s *fakeSource) calls() (advances, restarts int, injected []scenarios.Fault, cleared []scenarios.FaultKind) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.advances, s.restarts, append([]scenarios.Fault(nil), s.injected...), append([]scenarios.FaultKind(nil), s.cleared...)
}

// panicSource panics on Advance, to test recovery.
type panicSource struct{ source.Source }

func (panicSource) Advance(time.Duration) []source.Snapshot { panic("boom") }

var _ source.Inspector = (*fakeSource)(nil)

// RecentDecisions returns decisions made by an engine set up by hand (fakeDecisions), the
// engine's checks included for cortex only, as the simulator keeps them.
func (s *fakeSource) RecentDecisions() []source.DecisionRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := fakeDecisions()
	if s.meta.Strategy != "cortex" {
		for i := range ds {
			ds[i].Explained, ds[i].Why = false, engine.Explanation{}
		}
	}
	return ds
}

// fakeDecisions are five decisions of one engine set up by hand, oldest first: tuned defaults
// in deterministic mode with a 10-token budget that never refills and a full queue (Q = 1, so
// CPS = w_Q = 0.15 and floor 1): a RETRY of priority 9 after a timeout of attempt 1
// (Mid(0, 500ms × 2^1 × (1 + 1.5)) = 1.25s), a shed of priority 0, a 4xx, the attempt limit, and a
// budget refusal of priority 5 once its share of the bucket is spent.
func fakeDecisions() []source.DecisionRecord {
	clock := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cfg := engine.DefaultConfig()
	cfg.Clock, cfg.Seed, cfg.Deterministic = clock, 1, true
	cfg.TokenBucketCapacity, cfg.TokenRefillRate = 10, 0
	eng, err := engine.New(cfg)
	if err != nil {
		panic(err)
	}
	eng.SetQueueDepth(cfg.QueueCapacity)
	var out []source.DecisionRecord
	decide := func(class string, f engine.Failure, failure string) {
		clock.Advance(100 * time.Millisecond)
		d := source.DecisionRecord{T: time.Duration(len(out)+1) * 100 * time.Millisecond, Client: len(out) % 4,
			Class: class, Priority: f.Priority, Attempt: f.Attempt, Failure: failure, Explained: true}
		dec := eng.DecideExplained(f, &d.Why)
		d.Action, d.Reason, d.Delay = dec.Action, dec.Reason, dec.Delay
		out = append(out, d)
	}
	decide("payment", engine.Failure{Priority: 9, Attempt: 1, Timeout: true}, "timeout")
	decide("analytics", engine.Failure{Priority: 0}, "5xx")
	decide("search", engine.Failure{Priority: 5, NotRetryable: true}, "4xx")
	decide("payment", engine.Failure{Priority: 9, Attempt: 3}, "refused")
	for range 10 {
		decide("search", engine.Failure{Priority: 5}, "refused")
		if out[len(out)-1].Reason == engine.ReasonBudgetExhausted {
			break
		}
		out = out[:len(out)-1] // keep only the refusal
	}
	return out
}
