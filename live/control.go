package live

import (
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// The run's controls (source.ControlEvent): the faults through its timeline onto the stack, the
// classes' and the engines' controls through model.Controls, a strategy switch and a restart.

// Control applies c from now on (source.ControlEvent says what each control does): a fault
// through the stack's fault controls (one they refuse, such as a capacity drop without the
// embedded target, is a FaultRefused event), the classes' and the engines' controls through
// model.Controls, a strategy switch and a restart here. A closed run applies nothing: a
// strategy switch is then an error, every other control does nothing.
func (r *Run) Control(c source.ControlEvent) error {
	if c.Control == source.ControlRestart {
		r.restart()
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.apply(c); err != nil {
		return err
	}
	if !r.done && !r.gone() {
		r.sch.Applied(r.now-r.now%r.scn.Tick, c) // a scenario's controls sit on its own ticks
	}
	return nil
}

// Played returns the scenario as the run played it since it began or restarted
// (source.Recording): the scenario given, its seed and the strategy it began with, its
// controls the ones applied so far at their times (to the scenario's tick below) and then the
// scenario's own still to come, at full scale (a throttle as the scenario and the dashboard's
// key give it, not as --scale applied it), and the engine cortex ran. Safe for concurrent use.
func (r *Run) Played() scenarios.Scenario {
	r.mu.Lock()
	defer r.mu.Unlock()
	scn := r.cfg.Scenario
	scn.Classes, scn.Load = slices.Clone(scn.Classes), slices.Clone(scn.Load)
	scn.Faults, scn.Notes = slices.Clone(scn.Faults), slices.Clone(scn.Notes)
	scn.Seed, scn.Strategy = r.cfg.Seed, r.began
	scn.Controls = r.sch.Played()
	scn.Engine, scn.EngineName = nil, ""
	if e := r.cfg.Engine; e != nil { // the engine it ran, embedded (scenarios.Scenario.Engine)
		c := *e
		scn.Engine, scn.EngineName = &c, r.cfg.EngineName
	}
	return scn
}

// apply applies control c at the run's time (r.mu held): a dashboard's key through Control,
// or a scenario's [[control]] when its tick begins.
func (r *Run) apply(c source.ControlEvent) error {
	if r.gone() {
		if c.Control == source.ControlStrategy {
			return fmt.Errorf("live: the run is closed")
		}
		return nil
	}
	switch c.Control {
	case source.ControlInject:
		if !r.done { // a throttle at full scale, as the dashboard's key and the scenario give it
			r.tl.Inject(scaledFault(c.Fault, r.cfg.Scale), r.now)
		}
	case source.ControlClear:
		r.tl.Clear(c.Fault.Kind, r.now)
	case source.ControlClearAll:
		r.tl.ClearAll(r.now)
	case source.ControlStrategy:
		return r.setStrategy(c.Strategy)
	default:
		return r.ctl.Do(c, r.engines(), func(ev source.Event) { r.emit(r.now, ev) })
	}
	return nil
}

// engines yields the clients' current CORTEX engines (none for a strategy without one).
func (r *Run) engines() iter.Seq[*engine.Engine] {
	return func(yield func(*engine.Engine) bool) {
		for i := range r.fleet.clients {
			if m := r.fleet.clients[i].cur.Load(); m.holder != nil && !yield(m.holder.Engine()) {
				return
			}
		}
	}
}

// runSide is a Run as its timeline's model.Effector: the faults go to the stack's fault
// controls (the injector inside the embedded target, or the proxy), the events to the tick's.
// r.mu is held whenever the timeline calls it.
type runSide struct{ r *Run }

var _ model.Effector = runSide{}

// Start sets f on the stack; the stack's refusal (a capacity drop without the embedded
// target) refuses it.
func (s runSide) Start(_ time.Duration, f scenarios.Fault, _ scenarios.Effects) error {
	return s.r.stack.Faults.Set(f.Kind, f.Value)
}

// End clears the fault of kind on the stack.
func (s runSide) End(_ time.Duration, kind scenarios.FaultKind, _ scenarios.Effects) {
	s.r.stack.Faults.Clear(kind)
}

// Emit adds an event of the timeline to the tick's.
func (s runSide) Emit(e source.Event) { s.r.events = append(s.r.events, e) }

// setStrategy switches every client to the named strategy from now on: new requests use a
// fresh strategy in a fresh transport; requests alive finish on the one they started with.
// r.mu is held.
func (r *Run) setStrategy(name string) error {
	got, err := r.fleet.build(name, r.cfg.Seed, r.switches+1, &r.ctl)
	if err != nil {
		return err
	}
	if err := r.rejoin(got); err != nil {
		r.emit(r.now, source.Event{Kind: source.EventControl, Text: "fleet: the new engines stay alone: " + err.Error()})
	}
	r.switches++
	r.strategy = got
	r.readEmergency()
	r.emit(r.now, source.Event{Kind: source.EventControl, Control: source.SetStrategy(got)})
	return nil
}

// restart starts the run again from t = 0 with the same seed, scenario and strategy: every
// request alive is cancelled, the stack is built anew (a fresh target), controls and faults
// reset. If the stack cannot be built again, the run ends.
func (r *Run) restart() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if err := r.reset(r.strategy); err != nil {
		r.done = true
		r.tl = model.NewTimeline(nil, nil, runSide{r}) // no fault left in effect
		r.out = append(r.out, source.Snapshot{T: r.now, Dt: r.tick, Done: true, Events: []source.Event{{T: r.now,
			Kind: source.EventControl, Text: "restart failed: " + err.Error()}}})
		return
	}
	r.poke()
}

// gone reports whether the run has nothing left to control: closed, or a restart failed to
// build its stack (r.mu held).
func (r *Run) gone() bool { return r.closed || r.fleet == nil || r.stack == nil }
