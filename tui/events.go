package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// eventsPanel is the scrolling event log: circuit transitions, crashes and restarts, faults,
// notes and user controls, newest at the bottom.
type eventsPanel struct {
	base
	run int // which run of the frame
}

// newEvents returns an empty event log of run index run.
func newEvents(st Styles, run int) *eventsPanel { return &eventsPanel{base: base{st: st}, run: run} }

// Update redraws the log on a full redraw and when a control was logged.
func (p *eventsPanel) Update(msg tea.Msg) (*eventsPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedLog) {
		title := "Events"
		if len(f.f.runs) > 1 && p.run < len(f.f.runs) {
			title += " · " + f.f.runs[p.run].meta.Strategy
		}
		p.view = box(p.st, title, p.body(f.f), p.w, p.h)
	}
	return p, nil
}

func (p *eventsPanel) body(f *frame) string {
	if p.run >= len(f.runs) {
		return ""
	}
	_, ih := inner(p.w, p.h)
	evs := f.runs[p.run].hist.log()
	n := ih
	if len(evs) > n {
		evs = evs[len(evs)-n:]
	}
	iw, _ := inner(p.w, p.h)
	if len(evs) == 0 {
		lines := strings.Split(wrap("nothing yet: faults, crashes, circuit changes and your controls appear here", max(iw, 1)), "\n")
		if len(lines) > ih && ih > 0 {
			lines = lines[:ih]
			lines[ih-1] = ansi.Truncate(lines[ih-1], max(iw-1, 1), "") + "…"
		}
		return p.st.Muted.Render(strings.Join(lines, "\n"))
	}
	lines := make([]string, len(evs))
	for i, e := range evs {
		lines[i] = ansi.Truncate(p.line(e), iw, "…") // a long note ends with "…", not mid-word
	}
	return strings.Join(lines, "\n")
}

// line is one line of the log: time, kind and what happened, in the kind's colour.
func (p *eventsPanel) line(e source.Event) string {
	kind, style := "event", p.st.Text
	if int(e.Kind) >= 0 && int(e.Kind) < len(p.st.Events) {
		kind, style = e.Kind.String(), p.st.Events[e.Kind]
	}
	return p.st.Muted.Render(fmt.Sprintf("%7s ", fmtDur(e.T))) + style.Render(fmt.Sprintf("%-7s %s", kind, strings.TrimSpace(eventText(e))))
}

// eventText words an event for the log, without its kind (the log's first column): the
// sources send data, the dashboard chooses the words.
func eventText(e source.Event) string {
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
		return controlText(e)
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

// controlText words a control a source applied, or gives the dashboard's own words.
func controlText(e source.Event) string {
	c := e.Control
	switch c.Control {
	case source.ControlWeights:
		parts := make([]string, 0, len(engine.SignalNames))
		for i, v := range c.Weights.Array() {
			parts = append(parts, fmt.Sprintf("%s %.2f", engine.SignalNames[i], v))
		}
		return "weights set: " + strings.Join(parts, " ")
	case source.ControlAdaptive:
		return "adaptive weights " + onOff(c.On)
	case source.ControlClass:
		return fmt.Sprintf("class %s: share x%.2f, priority %d", c.Class, c.Share, c.Priority)
	case source.ControlStrategy:
		return "strategy: " + c.Strategy
	}
	return e.Text
}
