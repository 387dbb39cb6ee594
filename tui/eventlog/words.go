package eventlog

import (
	"fmt"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// Controls words a control a source applied (an EventControl's ControlEvent; the dashboard's
// words for each of its controls, tui/controls.go); "" keeps the event's own Text.
type Controls func(c source.ControlEvent) string

// Text words an event for the log, without its kind (the log's first column): the sources
// send data, the dashboard chooses the words, those of the controls through controls.
func Text(e source.Event, controls Controls) string {
	switch e.Kind {
	case source.EventFault:
		return faultText(e.Fault)
	case source.EventService:
		return serviceText(e.Service)
	case source.EventCircuit:
		c := e.Circuit
		text := fmt.Sprintf("%d of %d clients %s", c.Open, c.Clients, engine.Open)
		if c.HalfOpen > 0 {
			text += fmt.Sprintf(", %d %s", c.HalfOpen, engine.HalfOpen)
		}
		return text
	case source.EventControl:
		if controls != nil {
			if t := controls(e.Control); t != "" {
				return t
			}
		}
	}
	return e.Text
}

// faultText words a fault event: "injected fault latency +1s started until cleared",
// "outage fault ended".
func faultText(f source.FaultEvent) string {
	switch f.Change {
	case source.FaultStarted:
		from, until := "scheduled", " until cleared"
		if f.Injected {
			from = "injected"
		}
		if f.Duration > 0 {
			until = " for " + f.Duration.String()
		}
		return fmt.Sprintf("%s fault %s started%s", from, f.Kind.Label(f.Value), until)
	case source.FaultEnded:
		return fmt.Sprintf("%s fault ended", f.Kind)
	case source.FaultCleared:
		return fmt.Sprintf("%s fault cleared", f.Kind)
	case source.FaultRefused:
		return "inject refused: " + f.Reason
	}
	return string(f.Kind)
}

// serviceText words a service event: "CRASHED under overload (...)", "restarting: ...".
func serviceText(v source.ServiceEvent) string {
	switch {
	case v.Cause == source.CauseOverload:
		return fmt.Sprintf("%s under overload (utilisation %.1fx for %s); restart in %s", v.State, v.Utilisation, v.Overloaded, v.RestartIn)
	case v.Cause == source.CauseRestart && v.State == source.ServiceWarming:
		return fmt.Sprintf("restarting: capacity %.0f%%, warming up over %s", 100*v.WarmStart, v.Warmup)
	case v.Cause == source.CauseRestart:
		return "restarted"
	case v.Cause == source.CauseWarmedUp:
		return "warmed up: full capacity"
	}
	return v.State.String()
}

// OnOff spells a switch: "on" or "off".
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
