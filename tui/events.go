package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// eventsPanel is the scrolling event log: circuit transitions, crashes and restarts, faults,
// notes and user controls, newest at the bottom. Consecutive circuit events are one line with
// their count (a flapping fleet would push everything else out), the log scrolls back with the
// log keys (the frame's logOffset) and shows one kind of event at a time with the filter key.
type eventsPanel struct {
	common.Base
	run int // which run of the frame
}

// numEventKinds is how many kinds of event there are (source.EventKind 0..numEventKinds-1).
const numEventKinds = int(source.EventControl) + 1

// logPage is how many lines a log key scrolls.
const logPage = 5

// newEvents returns an empty event log of run index run.
func newEvents(st common.Styles, run int) *eventsPanel {
	return &eventsPanel{Base: common.Base{St: st}, run: run}
}

// Update redraws the log on a full redraw and when a control was logged.
func (p *eventsPanel) Update(msg tea.Msg) (*eventsPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedLog) {
		title, body := p.body(f.f)
		p.Rendered = common.Box(p.St, title, body, p.W, p.H)
	}
	return p, nil
}

// logLine is one line of the log: an event, or the last of n consecutive circuit events since
// from.
type logLine struct {
	e    source.Event
	n    int
	from time.Duration
}

// logLines returns the lines of the log showing only kind (-1: every kind), consecutive circuit
// events joined into one.
func logLines(evs []source.Event, kind int) []logLine {
	var out []logLine
	for _, e := range evs {
		if kind >= 0 && int(e.Kind) != kind {
			continue
		}
		if n := len(out); n > 0 && e.Kind == source.EventCircuit && out[n-1].e.Kind == source.EventCircuit {
			out[n-1].e = e
			out[n-1].n++
			continue
		}
		out = append(out, logLine{e: e, n: 1, from: e.T})
	}
	return out
}

func (p *eventsPanel) body(f *frame) (string, string) {
	title := "Events"
	if len(f.runs) > 1 && p.run < len(f.runs) {
		title += " · " + f.runs[p.run].meta.Strategy
	}
	if p.run >= len(f.runs) {
		return title, ""
	}
	iw, ih := common.Inner(p.W, p.H)
	kind := f.logKind - 1
	if kind >= 0 {
		title += " · " + source.EventKind(kind).String() + " only"
	}
	lines := logLines(f.runs[p.run].hist.log(), kind)
	if len(lines) == 0 {
		empty := "nothing yet: faults, crashes, circuit changes and your controls appear here"
		if kind >= 0 {
			empty = fmt.Sprintf("no %s event yet (%s: next kind)", source.EventKind(kind), common.KeyName(f.keyMap().LogFilter))
		}
		text := strings.Split(common.Wrap(empty, max(iw, 1)), "\n")
		if len(text) > ih && ih > 0 {
			text = text[:ih]
			text[ih-1] = ansi.Truncate(text[ih-1], max(iw-1, 1), "") + "…"
		}
		return title, p.St.Muted.Render(strings.Join(text, "\n"))
	}
	// The window ends offset lines before the newest; the offset is clamped to what the log holds.
	offset := min(f.logOffset, max(len(lines)-ih, 0))
	end := len(lines) - offset
	start := max(end-ih, 0)
	if above := start; above > 0 || offset > 0 {
		title = common.FitTitle(p.W, fmt.Sprintf("%s · %d above, %d below · %s/%s", title, above, offset,
			common.KeyName(f.keyMap().LogUp), common.KeyName(f.keyMap().LogDown)), fmt.Sprintf("%s · %d↑ %d↓", title, above, offset), title)
	}
	out := make([]string, 0, end-start)
	for _, l := range lines[start:end] {
		out = append(out, ansi.Truncate(p.line(l), iw, "…")) // a long note ends with "…", not mid-word
	}
	return title, strings.Join(out, "\n")
}

// line is one line of the log: time, kind and what happened, in the kind's colour; joined
// circuit events say how many changes since when ("×12 since 41.0s").
func (p *eventsPanel) line(l logLine) string {
	e := l.e
	kind, style := "event", p.St.Text
	if int(e.Kind) >= 0 && int(e.Kind) < len(p.St.Events) {
		kind, style = e.Kind.String(), p.St.Events[e.Kind]
	}
	text := strings.TrimSpace(eventText(e))
	if l.n > 1 {
		text += fmt.Sprintf(" (×%d since %s)", l.n, common.FmtDur(l.from))
	}
	return p.St.Muted.Render(fmt.Sprintf("%7s ", common.FmtDur(e.T))) + style.Render(fmt.Sprintf("%-7s %s", kind, text))
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
