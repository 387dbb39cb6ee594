package source

import (
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Control says which control a ControlEvent is: sent to a source (Source.Control), applied by
// it (an EventControl), or scheduled by a scenario's timeline (scenarios.ControlKind, where the
// scenario format's [[control]] needs it; one type for the three).
type Control = scenarios.ControlKind

// The controls of a ControlEvent (scenarios.ControlKind's).
const (
	ControlText     = scenarios.ControlText     // applied by the dashboard itself and worded in Event.Text; not a source's
	ControlWeights  = scenarios.ControlWeights  // set the CORTEX weights of every client: Weights (any scale; the engines renormalise them)
	ControlAdaptive = scenarios.ControlAdaptive // turn CORTEX adaptive weights on or off: On
	ControlClass    = scenarios.ControlClass    // set a class's traffic share and priority: Class (its name), Share, Priority
	ControlStrategy = scenarios.ControlStrategy // switch every client to a strategy from now on: Strategy
	ControlInject   = scenarios.ControlInject   // start Fault now for Fault.Duration (0: until cleared), replacing one of its kind
	ControlClear    = scenarios.ControlClear    // end the injected or scheduled fault of kind Fault.Kind, if any
	ControlClearAll = scenarios.ControlClearAll // end every active fault
	ControlRestart  = scenarios.ControlRestart  // start the run again from t=0, same seed, scenario and strategy; controls reset
	NumControls     = scenarios.NumControls     // counts the controls: every Control is below it
)

// ControlEvent is one control: what Source.Control applies, what an EventControl says a source
// applied, and what a scenario's timeline schedules (scenarios.ControlEvent). Only the fields of
// its Control are set.
type ControlEvent = scenarios.ControlEvent

// The controls as values, for Source.Control.

// SetWeights is the control that sets the CORTEX weights of every client.
func SetWeights(w engine.Weights) ControlEvent {
	return ControlEvent{Control: ControlWeights, Weights: w}
}

// SetAdaptive is the control that turns CORTEX adaptive weights on or off.
func SetAdaptive(on bool) ControlEvent { return ControlEvent{Control: ControlAdaptive, On: on} }

// SetClass is the control that sets class's share (a multiplier of its base rate, >= 0) and
// priority (0..scenarios.MaxPriority).
func SetClass(class string, share float64, priority int) ControlEvent {
	return ControlEvent{Control: ControlClass, Class: class, Share: share, Priority: priority}
}

// SetStrategy is the control that switches every client to the named strategy.
func SetStrategy(name string) ControlEvent {
	return ControlEvent{Control: ControlStrategy, Strategy: name}
}

// Inject is the control that starts fault f now.
func Inject(f scenarios.Fault) ControlEvent { return ControlEvent{Control: ControlInject, Fault: f} }

// Clear is the control that ends the fault of kind.
func Clear(kind scenarios.FaultKind) ControlEvent {
	return ControlEvent{Control: ControlClear, Fault: scenarios.Fault{Kind: kind}}
}

// ClearAll is the control that ends every fault.
func ClearAll() ControlEvent { return ControlEvent{Control: ControlClearAll} }

// Restart is the control that starts the run again from t=0.
func Restart() ControlEvent { return ControlEvent{Control: ControlRestart} }
