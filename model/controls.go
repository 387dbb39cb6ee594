package model

import (
	"fmt"
	"iter"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Class is one priority class as currently configured.
type Class struct {
	Name     string
	Priority int     // 0..scenarios.MaxPriority
	Rate     float64 // base rate, requests/s (closed loop: the class's share of the users)
	Share    float64 // multiplier of Rate set by a ControlClass control (1: as in the scenario)
}

// Controls are the user's controls of a run that every client shares: the classes' shares and
// priorities, and the CORTEX weights and adaptive switch (kept to configure the engines a
// strategy switch builds later). The zero value has no class and leaves engines as built.
type Controls struct {
	Classes  []Class
	weights  *engine.Weights // as last set; nil: the engines' own
	adaptive *bool           // as last set; nil: the engines' own
}

// NewControls returns the controls of a run of classes at their scenario's priorities, each
// class's rate times scale (live mode's traffic scale; 1 for the simulator), every share 1.
func NewControls(classes []scenarios.Class, scale float64) Controls {
	c := Controls{Classes: make([]Class, len(classes))}
	for i, k := range classes {
		c.Classes[i] = Class{Name: k.Name, Priority: k.Priority, Rate: k.Rate * scale, Share: 1}
	}
	return c
}

// Meta returns the classes as source.Meta describes them.
func (c *Controls) Meta() []source.ClassMeta {
	out := make([]source.ClassMeta, len(c.Classes))
	for i, k := range c.Classes {
		out[i] = source.ClassMeta{Name: k.Name, Priority: k.Priority, Share: k.Share, Rate: k.Rate}
	}
	return out
}

// Apply validates ev, one of the controls of the controls themselves (ControlWeights,
// ControlAdaptive, ControlClass), applies it to every engine of engines (the run's CORTEX
// engines, none for another strategy) and to c, and returns the event that says so. Weights
// are checked once, here (engine.Weights.Normalized: finite, >= 0, not all zero); a class is
// named by ev.Class, its share and priority checked by scenarios.CheckClass. A bad control
// changes nothing and is returned as an error; another kind of control is an error too.
func (c *Controls) Apply(ev source.ControlEvent, engines iter.Seq[*engine.Engine]) (source.Event, error) {
	out := source.ControlEvent{Control: ev.Control}
	switch ev.Control {
	case source.ControlWeights:
		if _, err := ev.Weights.Normalized(); err != nil {
			return source.Event{}, err
		}
		for e := range engines {
			if err := e.SetWeights(ev.Weights); err != nil {
				return source.Event{}, err
			}
		}
		w := ev.Weights
		c.weights = &w
		out.Weights = w
	case source.ControlAdaptive:
		for e := range engines {
			e.SetAdaptive(ev.On)
		}
		on := ev.On
		c.adaptive = &on
		out.On = on
	case source.ControlClass:
		i := c.class(ev.Class)
		if i < 0 {
			return source.Event{}, fmt.Errorf("no class %q (the classes are %s)", ev.Class, c.names())
		}
		if err := scenarios.CheckClass(ev.Class, ev.Share, ev.Priority); err != nil {
			return source.Event{}, err
		}
		c.Classes[i].Share, c.Classes[i].Priority = ev.Share, ev.Priority
		out.Class, out.Share, out.Priority = ev.Class, ev.Share, ev.Priority
	default:
		return source.Event{}, fmt.Errorf("control %s is not one of the run's controls", ev.Control)
	}
	return source.Event{Kind: source.EventControl, Control: out}, nil
}

// Do is Apply for a source: it hands the event that says what was applied to emit (the
// source's event log) and returns only the error of a bad control.
func (c *Controls) Do(ev source.ControlEvent, engines iter.Seq[*engine.Engine], emit func(source.Event)) error {
	out, err := c.Apply(ev, engines)
	if err == nil {
		emit(out)
	}
	return err
}

// Configure gives an engine built after the controls were set (a strategy switch) the weights
// and the adaptive switch last set; it leaves an engine as built for a control never set (and
// for nil Controls).
func (c *Controls) Configure(e *engine.Engine) error {
	if c == nil {
		return nil
	}
	if c.weights != nil {
		if err := e.SetWeights(*c.weights); err != nil {
			return err
		}
	}
	if c.adaptive != nil {
		e.SetAdaptive(*c.adaptive)
	}
	return nil
}

// class returns the index of the class called name, -1 if none.
func (c *Controls) class(name string) int {
	for i, k := range c.Classes {
		if k.Name == name {
			return i
		}
	}
	return -1
}

// names lists the classes' names for an error.
func (c *Controls) names() string {
	s := ""
	for i, k := range c.Classes {
		if i > 0 {
			s += ", "
		}
		s += k.Name
	}
	return s
}
