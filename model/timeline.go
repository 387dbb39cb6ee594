package model

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Active is the fault of one kind in effect.
type Active struct {
	On       bool
	Value    float64       // in the unit of the kind's row
	Until    time.Duration // when it ends (run time); 0 until cleared
	Injected bool          // injected at run time (false: the scenario's timeline)
}

// Effector puts the timeline's faults on a service (the simulator's, or live mode's fault
// injector and the embedded service behind it) and logs the timeline's events.
type Effector interface {
	// Start puts f in effect at t (replacing the fault of its kind, if any), before the event
	// that says so; fx is the Effects of every fault in effect with f. An error refuses the
	// fault, which then never started (a FaultRefused event says why).
	Start(t time.Duration, f scenarios.Fault, fx scenarios.Effects) error
	// End takes the fault of kind off at t, after the event that says so; fx is the Effects of
	// the faults left.
	End(t time.Duration, kind scenarios.FaultKind, fx scenarios.Effects)
	// Emit logs an event of the timeline (a fault started, ended, cleared or refused; a note).
	Emit(e source.Event)
}

// Timeline is a run's fault timeline and captions: the scenario's scheduled faults and notes,
// the faults in effect (scheduled or injected, one per kind) and the caption for a strategy.
// Times are run time (since t = 0). The simulator walks it on virtual time, live mode on the
// wall clock; both call Begin, then Captions, when a tick begins. Not safe for concurrent use.
type Timeline struct {
	side    Effector          // where the faults act and the events go
	faults  []scenarios.Fault // the scenario's, as scheduled
	notes   []scenarios.Note  // the scenario's, in time order
	started []bool            // scheduled fault i has started
	active  [scenarios.NumFaultKinds]Active
	fx      scenarios.Effects // of the faults in effect
	next    int               // the first note not reached yet
	at      time.Duration     // the time of the last Captions
}

// NewTimeline returns the timeline of faults and notes at t = 0 (its own copies, the notes
// sorted by time, stably), with no fault in effect, acting through side.
func NewTimeline(faults []scenarios.Fault, notes []scenarios.Note, side Effector) Timeline {
	tl := Timeline{
		side:    side,
		faults:  slices.Clone(faults),
		notes:   slices.Clone(notes),
		started: make([]bool, len(faults)),
		fx:      scenarios.NoEffects(),
	}
	slices.SortStableFunc(tl.notes, func(a, b scenarios.Note) int { return cmp.Compare(a.At, b.At) })
	return tl
}

// CheckFault validates a fault's kind and value with the bounds of the table of fault kinds.
func CheckFault(f scenarios.Fault) error {
	field, problem := f.Kind.Check(f.Value)
	switch {
	case problem == "":
		return nil
	case f.Kind.Index() < 0:
		return fmt.Errorf("fault: %s", problem)
	}
	return fmt.Errorf("%s fault: %s %s", f.Kind, field, problem)
}

// Begin applies the timeline when the tick starting at t begins: the faults whose duration
// ran out end, and the scheduled faults due start (a fault whose whole span is already past,
// with a tick longer than it, is skipped), each through the Effector, which logs the events.
func (tl *Timeline) Begin(t time.Duration) {
	for k := range tl.active {
		if a := tl.active[k]; a.On && a.Until > 0 && t >= a.Until {
			tl.end(k, t, source.FaultEnded)
		}
	}
	for i, f := range tl.faults {
		if tl.started[i] || f.At > t {
			continue
		}
		tl.started[i] = true
		if end := f.At + f.Duration; f.Duration > 0 && end <= t {
			continue // entirely in the past (a tick longer than the fault)
		}
		g := f
		if f.Duration > 0 {
			g.Duration = f.At + f.Duration - t
		}
		tl.start(g, t, false)
	}
}

// Inject starts f at t for f.Duration (0 or less: until cleared), replacing the fault of its
// kind; f.At is ignored. An invalid fault is refused (a FaultRefused event).
func (tl *Timeline) Inject(f scenarios.Fault, t time.Duration) {
	f.Duration = max(f.Duration, 0)
	tl.start(f, t, true)
}

// Clear ends the fault of kind at t, injected or scheduled, if one is in effect.
func (tl *Timeline) Clear(kind scenarios.FaultKind, t time.Duration) {
	if k := kind.Index(); k >= 0 && tl.active[k].On {
		tl.end(k, t, source.FaultCleared)
	}
}

// ClearAll ends every fault in effect at t, in the order of the table of fault kinds.
func (tl *Timeline) ClearAll(t time.Duration) {
	for k := range tl.active {
		if tl.active[k].On {
			tl.end(k, t, source.FaultCleared)
		}
	}
}

// start puts f in effect at t, or refuses it.
func (tl *Timeline) start(f scenarios.Fault, t time.Duration, injected bool) {
	if err := CheckFault(f); err != nil {
		tl.side.Emit(refused(f, t, err))
		return
	}
	k := f.Kind.Index()
	next := tl.active
	next[k] = Active{On: true, Value: f.Value, Injected: injected}
	if f.Duration > 0 {
		next[k].Until = t + f.Duration
	}
	effects := EffectsOf(&next)
	if err := tl.side.Start(t, f, effects); err != nil {
		tl.side.Emit(refused(f, t, err))
		return
	}
	tl.active, tl.fx = next, effects
	tl.side.Emit(source.Event{T: t, Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultStarted, Kind: f.Kind,
		Value: f.Value, Duration: f.Duration, Injected: injected}})
}

// end takes the fault at index k off at t; change is FaultEnded or FaultCleared.
func (tl *Timeline) end(k int, t time.Duration, change source.FaultChange) {
	kind := scenarios.FaultKinds[k]
	tl.active[k] = Active{}
	tl.fx = EffectsOf(&tl.active)
	tl.side.Emit(source.Event{T: t, Kind: source.EventFault, Fault: source.FaultEvent{Change: change, Kind: kind}})
	tl.side.End(t, kind, tl.fx)
}

// refused is the event of a fault refused at t.
func refused(f scenarios.Fault, t time.Duration, err error) source.Event {
	return source.Event{T: t, Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultRefused,
		Kind: f.Kind, Value: f.Value, Reason: err.Error()}}
}

// EffectsOf is what the faults in effect (those On, indexed as scenarios.FaultKinds) do: each
// one's lever (scenarios.FaultSpec.Lever) with its value.
func EffectsOf(active *[scenarios.NumFaultKinds]Active) scenarios.Effects {
	fx := scenarios.NoEffects()
	specs := scenarios.FaultSpecs()
	for k, a := range active {
		if a.On {
			fx.Set(specs[k].Lever, a.Value)
		}
	}
	return fx
}

// Captions emits the notes reached by t (at or before it) since the last call that are for
// strategy: a note about other strategies is not this run's. The caption (Note) is then the
// last note reached for the run's strategy.
func (tl *Timeline) Captions(t time.Duration, strategy string) {
	for ; tl.next < len(tl.notes) && tl.notes[tl.next].At <= t; tl.next++ {
		if n := &tl.notes[tl.next]; n.For(strategy) {
			tl.side.Emit(source.Event{T: t, Kind: source.EventNote, Text: n.Text})
		}
	}
	tl.at = t
}

// Note is the caption of a run of strategy now: the last note reached that is for it (a
// switch of strategy shows the new strategy's caption at once), "" before the first.
func (tl *Timeline) Note(strategy string) string {
	return scenarios.NoteAt(tl.notes[:tl.next], tl.at, strategy)
}

// Effects is what the faults in effect do to the service.
func (tl *Timeline) Effects() scenarios.Effects { return tl.fx }

// Fault returns the fault of kind in effect (On false when none, or for an unknown kind).
func (tl *Timeline) Fault(kind scenarios.FaultKind) Active {
	if k := kind.Index(); k >= 0 {
		return tl.active[k]
	}
	return Active{}
}

// Faults appends the faults in effect at now to dst, in the order of the table of fault kinds,
// each with its remaining time (0 until cleared), as a snapshot lists them.
func (tl *Timeline) Faults(dst []source.ActiveFault, now time.Duration) []source.ActiveFault {
	for k, a := range tl.active {
		if !a.On {
			continue
		}
		af := source.ActiveFault{Kind: scenarios.FaultKinds[k], Value: a.Value, Injected: a.Injected}
		if a.Until > 0 {
			af.Remaining = max(0, a.Until-now)
		}
		dst = append(dst, af)
	}
	return dst
}
