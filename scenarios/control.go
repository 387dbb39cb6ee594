package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// ControlKind says which control a ControlEvent is: sent to a run (source.Source.Control), applied
// by it (an event of its log), or scheduled by a scenario's timeline ([[control]]).
type ControlKind uint8

// The controls of a ControlEvent.
const (
	ControlText     ControlKind = iota // applied by the dashboard itself and worded in the event's text; not a run's
	ControlWeights                     // set the CORTEX weights of every client: Weights (any scale; the engines renormalise them)
	ControlAdaptive                    // turn CORTEX adaptive weights on or off: On
	ControlClass                       // set a class's traffic share and priority: Class (its name), Share, Priority
	ControlStrategy                    // switch every client to a strategy from now on: Strategy
	ControlInject                      // start Fault now for Fault.Duration (0: until cleared), replacing one of its kind
	ControlClear                       // end the injected or scheduled fault of kind Fault.Kind, if any
	ControlClearAll                    // end every active fault
	ControlRestart                     // start the run again from t=0, same seed, scenario and strategy; controls reset
	// NumControls counts the controls: every ControlKind is below it.
	NumControls
)

var controlNames = [NumControls]string{ControlText: "text", ControlWeights: "weights", ControlAdaptive: "adaptive",
	ControlClass: "class", ControlStrategy: "strategy", ControlInject: "inject", ControlClear: "clear",
	ControlClearAll: "clear-all", ControlRestart: "restart"}

// String names the control: "weights", "adaptive", "class", "strategy", "inject", "clear",
// "clear-all", "restart" or "text"; a [[control]]'s do key says the same words.
func (c ControlKind) String() string {
	if c < NumControls {
		return controlNames[c]
	}
	return fmt.Sprintf("Control(%d)", int(c))
}

// ControlEvent is one control: what a run applies (source.Source.Control), what its event log
// says it applied, and what a scenario's timeline schedules. Only the fields of its Control
// are set.
type ControlEvent struct {
	Control  ControlKind
	Weights  engine.Weights // ControlWeights: as set (the engines keep them renormalised)
	On       bool           // ControlAdaptive: adaptive weights on
	Class    string         // ControlClass: the class's name, its new share and priority
	Share    float64
	Priority int
	Strategy string // ControlStrategy: the strategy from now on
	Fault    Fault  // ControlInject: the fault (At is ignored); ControlClear: its Kind
}

// ScheduledControl is a control of a scenario's timeline ([[control]]): applied at At, as if
// pressed then in the dashboard. A recorded demo is a scenario whose controls are the ones the
// presenter applied.
type ScheduledControl struct {
	At time.Duration // a multiple of the tick, before the end of the run
	ControlEvent
}

// ScheduledKinds are the controls a scenario's timeline may schedule, in the order the
// documentation lists them (a restart and the dashboard's own words are not a scenario's).
var ScheduledKinds = []ControlKind{ControlInject, ControlClear, ControlClearAll, ControlWeights, ControlAdaptive, ControlClass, ControlStrategy}

// controlKeys are the keys of a [[control]] table, in the documentation's order; each do
// takes some of them (controlArgs).
var controlKeys = append([]string{"at", "do", "kind", "duration", "weights", "on", "class", "share", "priority", "strategy"}, faultValueKeys...)

// controlArgs are the keys each do takes besides at and do (inject also its kind's value key,
// and duration); every other key of the table is an error.
var controlArgs = map[ControlKind][]string{
	ControlInject:   {"kind", "duration"},
	ControlClear:    {"kind"},
	ControlClearAll: nil,
	ControlWeights:  {"weights"},
	ControlAdaptive: {"on"},
	ControlClass:    {"class", "share", "priority"},
	ControlStrategy: {"strategy"},
}

// CheckClass validates the share and priority a ControlClass gives class name: a share is a
// finite multiplier >= 0 of the class's base rate, a priority is in 0..MaxPriority. A run
// checks every ControlClass it is given with it, and a scenario's [[control]] with it too.
func CheckClass(name string, share float64, priority int) error {
	if !(share >= 0) || math.IsInf(share, 0) {
		return fmt.Errorf("class %s: share must be a finite number >= 0 (got %v)", name, share)
	}
	if priority < 0 || priority > MaxPriority {
		return fmt.Errorf("class %s: priority must be in 0..%d (got %d)", name, MaxPriority, priority)
	}
	return nil
}

// control decodes one [[control]] table.
func (d *decoder) control(t *table) ScheduledControl {
	var c ScheduledControl
	t.Require("at", `at = "62s"`)
	t.Require("do", `do = "inject"`)
	t.Duration("at", &c.At)
	var do string
	t.Str("do", &do)
	kind := slices.IndexFunc(ScheduledKinds, func(k ControlKind) bool { return k.String() == do })
	if kind < 0 {
		if do != "" {
			names := make([]string, len(ScheduledKinds))
			for i, k := range ScheduledKinds {
				names[i] = k.String()
			}
			d.Addf(t.Field("do"), "unknown control %q; valid: %s", do, strings.Join(names, ", "))
		}
		for _, k := range controlKeys {
			t.Get(k) // the do is wrong: its keys are not unknown too
		}
		t.Done()
		return c
	}
	c.Control = ScheduledKinds[kind]
	args := controlArgs[c.Control]
	var extra []string
	if c.Control == ControlInject {
		var name string
		t.Require("kind", `kind = "outage"`)
		t.Str("kind", &name)
		c.Fault.Kind = FaultKind(name)
		t.Duration("duration", &c.Fault.Duration)
		if spec, ok := c.Fault.Kind.Spec(); ok && spec.Key != "" {
			extra = append(extra, spec.Key)
			c.Fault.Value = math.NaN() // none given: the dashboard's value (Resolve)
			if t.Has(spec.Key) {
				d.faultValue(t, spec, &c.Fault.Value)
			}
		}
	}
	for _, k := range controlKeys[2:] {
		if !t.Has(k) || slices.Contains(args, k) || slices.Contains(extra, k) {
			continue
		}
		t.Get(k)
		d.Addf(t.Field(k), "is not a key of do = %q, which takes %s", do, takes(args, extra))
	}
	switch c.Control {
	case ControlClear:
		var name string
		t.Require("kind", `kind = "outage"`)
		t.Str("kind", &name)
		c.Fault.Kind = FaultKind(name)
	case ControlWeights:
		t.Require("weights", `weights = { F = 0.3, L = 0.2, Q = 0.15, B = 0.15, C = 0.2 }`)
		if w := t.Sub("weights", engine.SignalNames[:]...); w != nil {
			var a [5]float64
			for i, name := range engine.SignalNames {
				w.Require(name, name+" = 0.2")
				w.Number(name, &a[i])
			}
			w.Done()
			c.Weights = engine.WeightsFrom(a)
		}
	case ControlAdaptive:
		t.Require("on", `on = true`)
		t.Boolean("on", &c.On)
	case ControlClass:
		t.Require("class", `class = "analytics"`)
		t.Str("class", &c.Class)
		c.Share, c.Priority = math.NaN(), -1 // left out: the class's own (Resolve)
		t.Number("share", &c.Share)
		t.Integer("priority", &c.Priority, 0, MaxPriority)
		if !t.Has("share") && !t.Has("priority") {
			d.Addf(t.Field("share"), "a class control sets share, priority or both (e.g. share = 2)")
		}
	case ControlStrategy:
		t.Require("strategy", `strategy = "naive"`)
		t.Str("strategy", &c.Strategy)
	}
	t.Done()
	return c
}

// takes lists the keys a do takes, for a message.
func takes(args, extra []string) string {
	all := append(append([]string(nil), args...), extra...)
	if len(all) == 0 {
		return "no other key"
	}
	return strings.Join(all, ", ")
}

// Resolve fills what a [[control]] left out with the value the dashboard's key would give at
// that point of the run: an injected fault's value (its kind's FaultSpec.InjectValue, for a
// rate a share of the service's capacity), a class's share or priority as the scenario sets it
// (or an earlier control). Parse resolves every control, so a parsed scenario's controls are
// complete values.
func (s *Scenario) Resolve() {
	share := make(map[string]float64, len(s.Classes))
	prio := make(map[string]int, len(s.Classes))
	for _, c := range s.Classes {
		share[c.Name], prio[c.Name] = 1, c.Priority
	}
	for i := range s.Controls {
		c := &s.Controls[i]
		switch c.Control {
		case ControlInject:
			if spec, ok := c.Fault.Kind.Spec(); ok && math.IsNaN(c.Fault.Value) {
				c.Fault.Value = spec.InjectValue(s.Service.Capacity())
			}
		case ControlClass:
			if math.IsNaN(c.Share) {
				c.Share = share[c.Class]
			}
			if c.Priority < 0 {
				c.Priority = prio[c.Class]
			}
			share[c.Class], prio[c.Class] = c.Share, c.Priority
		}
	}
}

// validateControls checks the timeline's controls: each at a tick boundary before the end of
// the run, in time order, and each control's values as a run checks them when the dashboard
// sends them.
func (s Scenario) validateControls(p *problems) {
	for i, c := range s.Controls {
		path := fmt.Sprintf("control[%d]", i+1)
		switch {
		case c.At < 0:
			p.Addf(path+".at", "must not be negative, got %s", FormatDuration(c.At))
		case i > 0 && c.At < s.Controls[i-1].At:
			p.Addf(path+".at", "must not be before control[%d].at (%s): controls go in time order, got %s", i, FormatDuration(s.Controls[i-1].At), FormatDuration(c.At))
		case s.Duration > 0 && c.At >= s.End():
			p.Addf(path+".at", "is at or after the end of the run (duration + drain = %s), got %s", FormatDuration(s.End()), FormatDuration(c.At))
		case s.tickValid() && c.At%s.Tick != 0:
			p.Addf(path+".at", "must be a multiple of tick (%s): controls apply between ticks, got %s", FormatDuration(s.Tick), FormatDuration(c.At))
		}
		switch c.Control {
		case ControlInject, ControlClear:
			if c.Fault.Kind.Index() < 0 {
				_, msg := c.Fault.Kind.Check(0)
				p.Addf(path+".kind", "%s", msg)
				break
			}
			if c.Control == ControlInject {
				if field, msg := c.Fault.Kind.Check(c.Fault.Value); msg != "" {
					p.Addf(path+"."+field, "%s", msg)
				}
				if c.Fault.Duration < 0 {
					p.Addf(path+".duration", "must not be negative (0 or left out: until cleared), got %s", FormatDuration(c.Fault.Duration))
				}
			}
		case ControlWeights:
			if _, err := c.Weights.Normalized(); err != nil {
				p.Addf(path+".weights", "%v", err)
			}
		case ControlClass:
			if !slices.ContainsFunc(s.Classes, func(k Class) bool { return k.Name == c.Class }) {
				names := make([]string, len(s.Classes))
				for i, k := range s.Classes {
					names[i] = k.Name
				}
				p.Addf(path+".class", "no class %q; the classes are %s", c.Class, strings.Join(names, ", "))
			} else if err := CheckClass(c.Class, c.Share, c.Priority); err != nil {
				p.Addf(path, "%v", err)
			}
		case ControlStrategy:
			validateStrategies(p, path+".strategy", []string{c.Strategy})
		case ControlAdaptive, ControlClearAll:
		default:
			p.Addf(path+".do", "control %s cannot be scheduled", c.Control)
		}
	}
}

// formatControls writes the timeline's controls as [[control]] tables (MarshalTOML), every
// value explicit, in time order.
func (s Scenario) formatControls(kv func(key, value string), table func(header string)) {
	for _, c := range s.Controls {
		table("[[control]]")
		kv("at", quote(FormatDuration(c.At)))
		kv("do", quote(c.Control.String()))
		switch c.Control {
		case ControlInject:
			kv("kind", quote(string(c.Fault.Kind)))
			if c.Fault.Duration > 0 {
				kv("duration", quote(FormatDuration(c.Fault.Duration)))
			}
			writeFaultValue(kv, c.Fault)
		case ControlClear:
			kv("kind", quote(string(c.Fault.Kind)))
		case ControlWeights:
			a := c.Weights.Array()
			parts := make([]string, len(a))
			for i, name := range engine.SignalNames {
				parts[i] = name + " = " + number(a[i])
			}
			kv("weights", "{ "+strings.Join(parts, ", ")+" }")
		case ControlAdaptive:
			kv("on", fmt.Sprint(c.On))
		case ControlClass:
			kv("class", quote(c.Class))
			kv("share", number(c.Share))
			kv("priority", fmt.Sprint(c.Priority))
		case ControlStrategy:
			kv("strategy", quote(c.Strategy))
		}
	}
}

// Scheduled reports whether c is a control a scenario's timeline may hold: one of
// ScheduledKinds (a recording keeps only those).
func (c ControlEvent) Scheduled() bool { return slices.Contains(ScheduledKinds, c.Control) }

// CountControls says how many controls n is, for a message: "no control", "1 control",
// "9 controls".
func CountControls(n int) string {
	switch n {
	case 0:
		return "no control"
	case 1:
		return "1 control"
	}
	return fmt.Sprintf("%d controls", n)
}
