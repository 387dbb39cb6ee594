package sim

import (
	"iter"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Control applies c at the start of the next tick (source.ControlEvent says what each control
// does). The controls of the run's classes and engines are model.Controls'; a fault is the
// timeline's. An invalid fault is reported as a FaultRefused event, not an error. Every
// control applied before the run is over is recorded at its time (Played), so a recording
// replays it.
func (s *Sim) Control(c source.ControlEvent) error {
	if err := s.control(c); err != nil {
		return err
	}
	if !s.done {
		s.sch.Applied(time.Duration(s.now), c)
	}
	return nil
}

// Played returns the scenario as the run played it since it began (or restarted): its own,
// from the seed and the strategy it began with, its timeline of controls the ones applied so
// far at their times (the dashboard's keys and the timeline's own) and then the timeline's
// still to come, its engine the one cortex ran. A scenario file written from it replays the
// run exactly.
func (s *Sim) Played() scenarios.Scenario {
	scn := s.scn
	scn.Classes, scn.Load = slices.Clone(scn.Classes), slices.Clone(scn.Load)
	scn.Faults, scn.Notes = slices.Clone(scn.Faults), slices.Clone(scn.Notes)
	scn.Seed, scn.Strategy = s.seed, s.began
	scn.Controls = s.sch.Played()
	scn.Engine, scn.EngineName = nil, ""
	if e := s.opts.Engine; e != nil { // the engine it ran (--engine FILE, or the scenario's own)
		c := *e
		scn.Engine, scn.EngineName = &c, s.opts.EngineName
	}
	return scn
}

// control applies c (Control).
func (s *Sim) control(c source.ControlEvent) error {
	switch c.Control {
	case source.ControlInject:
		s.inject(c.Fault)
	case source.ControlClear:
		s.clear(c.Fault.Kind)
	case source.ControlClearAll:
		s.clearAll()
	case source.ControlStrategy:
		return s.setStrategy(c.Strategy)
	case source.ControlRestart:
		s.restart()
	default:
		return s.ctl.Do(c, s.engines(), func(ev source.Event) { s.emit(s.now, ev) })
	}
	return nil
}

// engines yields the clients' CORTEX engines (none for a strategy without one).
func (s *Sim) engines() iter.Seq[*engine.Engine] {
	return func(yield func(*engine.Engine) bool) {
		for i := range s.clients {
			if h := s.clients[i].holder; h != nil && !yield(h.Engine()) {
				return
			}
		}
	}
}

// inject starts fault f now (at the start of the next tick), for f.Duration or until cleared
// when 0, replacing an active fault of the same kind. f.At is ignored. An invalid fault is
// reported as an error event and ignored.
func (s *Sim) inject(f scenarios.Fault) {
	s.tl.Inject(f, time.Duration(s.now))
	s.updateService(s.now)
}

// clear ends the fault of that kind (injected or scheduled), if any.
func (s *Sim) clear(kind scenarios.FaultKind) {
	s.tl.Clear(kind, time.Duration(s.now))
	s.updateService(s.now)
}

// clearAll ends every active fault.
func (s *Sim) clearAll() {
	s.tl.ClearAll(time.Duration(s.now))
	s.updateService(s.now)
}

// setStrategy switches every client to the named strategy from now on: fresh strategy state,
// the same requests in flight (their next decisions go to the new strategy).
func (s *Sim) setStrategy(name string) error {
	s.switches++
	if err := s.buildClients(name); err != nil {
		s.switches--
		return err
	}
	for i := range s.clients {
		s.clients[i].lastPending = -1 // tell the new strategy its pending count
		if s.clients[i].parked > 0 {
			s.wakeAt(int32(i), s.now) // the new strategy knows nothing of them
		}
	}
	s.strategy = s.clients[0].strat.Name()
	s.emit(s.now, source.Event{Kind: source.EventControl, Control: source.SetStrategy(s.strategy)})
	return nil
}

// restart starts the run again from t = 0 with the same seed, scenario and strategy; the
// controls (faults, weights, class shares) are reset.
func (s *Sim) restart() {
	// The strategy was valid when it was built, so rebuilding it cannot fail.
	_ = s.reset(s.strategy)
}
