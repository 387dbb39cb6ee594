package sim

import (
	"fmt"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// kindAt is the fault kind at index k of scenarios.FaultKinds.
func kindAt(k int) scenarios.FaultKind { return scenarios.FaultKinds[k] }

// Inject starts fault f now (at the start of the next tick), for f.Duration or until cleared
// when 0, replacing an active fault of the same kind. f.At is ignored. An invalid fault is
// reported as an error event and ignored.
func (s *Sim) Inject(f scenarios.Fault) {
	if err := checkFault(f); err != nil {
		s.emit(s.now, source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultRefused,
			Kind: f.Kind, Value: f.Value, Reason: err.Error()}})
		return
	}
	if f.Duration < 0 {
		f.Duration = 0
	}
	s.startFault(f, s.now, -1)
	s.updateService(s.now)
}

// Clear ends the fault of that kind (injected or scheduled), if any.
func (s *Sim) Clear(kind scenarios.FaultKind) {
	k := kind.Index()
	if k < 0 || !s.faults[k].on {
		return
	}
	s.endFault(k, s.now, source.FaultCleared)
	s.updateService(s.now)
}

// ClearAll ends every active fault.
func (s *Sim) ClearAll() {
	for k := range s.faults {
		if s.faults[k].on {
			s.endFault(k, s.now, source.FaultCleared)
		}
	}
	s.updateService(s.now)
}

// SetWeights replaces the CORTEX weights of every client (validated and renormalised by the
// engine). It is a no-op returning nil for other strategies; the weights also apply to
// engines created later by SetStrategy.
func (s *Sim) SetWeights(w engine.Weights) error {
	if _, err := w.Normalized(); err != nil {
		return err
	}
	for i := range s.clients {
		if h := s.clients[i].holder; h != nil {
			if err := h.Engine().SetWeights(w); err != nil {
				return err
			}
		}
	}
	s.weights = &w
	s.emit(s.now, source.Event{Kind: source.EventControl, Control: source.ControlEvent{Control: source.ControlWeights, Weights: w}})
	return nil
}

// SetAdaptive turns CORTEX adaptive weights on or off for every client.
func (s *Sim) SetAdaptive(on bool) {
	for i := range s.clients {
		if h := s.clients[i].holder; h != nil {
			h.Engine().SetAdaptive(on)
		}
	}
	s.adaptive = &on
	s.emit(s.now, source.Event{Kind: source.EventControl, Control: source.ControlEvent{Control: source.ControlAdaptive, On: on}})
}

// SetClass changes the traffic share (multiplier of the base rate, >= 0) and the priority
// (0..10) of class i, from the next arrival on.
func (s *Sim) SetClass(i int, share float64, priority int) error {
	if i < 0 || i >= len(s.classes) {
		return fmt.Errorf("class %d does not exist (the scenario has %d classes)", i, len(s.classes))
	}
	if err := source.CheckClass(s.classes[i].name, share, priority); err != nil {
		return err
	}
	s.classes[i].share = share
	s.classes[i].priority = priority
	s.emit(s.now, source.Event{Kind: source.EventControl, Control: source.ControlEvent{Control: source.ControlClass,
		Class: s.classes[i].name, Share: share, Priority: priority}})
	return nil
}

// SetStrategy switches every client to the named strategy from now on: fresh strategy state,
// the same requests in flight (their next decisions go to the new strategy).
func (s *Sim) SetStrategy(name string) error {
	s.switches++
	if err := s.buildClients(name); err != nil {
		s.switches--
		return err
	}
	for i := range s.clients {
		s.clients[i].lastPending = -1 // tell the new strategy its pending count
	}
	s.strategy = s.clients[0].strat.Name()
	s.emit(s.now, source.Event{Kind: source.EventControl, Control: source.ControlEvent{Control: source.ControlStrategy, Strategy: s.strategy}})
	return nil
}

// Restart starts the run again from t = 0 with the same seed, scenario and strategy; the
// controls (faults, weights, class shares) are reset.
func (s *Sim) Restart() {
	// The strategy was valid when it was built, so rebuilding it cannot fail.
	_ = s.reset(s.strategy)
}
