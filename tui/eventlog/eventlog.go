// Package eventlog is the dashboard's event log, a component of its own: a run's events
// (circuit transitions, crashes and restarts, faults, notes and controls) newest at the
// bottom, worded here (words.go: the sources send data, the dashboard chooses the words), with
// its own keys to scroll back and to show one kind of event at a time.
package eventlog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"

	"github.com/cortex-tui/cortex-tui/keymap"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model is the scrolling event log: circuit transitions, crashes and restarts, faults, notes
// and user controls, newest at the bottom. Consecutive circuit events are one line with their
// count (a flapping fleet would push everything else out), the log scrolls back with the log
// keys and shows one kind of event at a time with the filter key. It is used from the Bubble
// Tea goroutine only.
type Model struct {
	common.Base
	keys   keymap.KeyMap
	words  Controls       // the dashboard's words for the controls
	events []source.Event // as last shown
	title  string         // "Events", with the run's strategy in compare mode
	shown  bool           // Show was called: there is a run
	offset int            // lines scrolled back from the newest (0: follow)
	kind   int            // the filter: 0 every kind, k+1 only source.EventKind(k)
	// drawnW and drawnH are the size the log was last drawn at.
	drawnW, drawnH int
}

// numEventKinds is how many kinds of event there are (source.EventKind 0..numEventKinds-1).
const numEventKinds = int(source.EventTarget) + 1

// Page is how many lines a log key scrolls.
const Page = 5

// New returns an empty event log drawn with st, naming the keys of keys, wording the controls
// a source applied with words.
func New(st common.Styles, keys keymap.KeyMap, words Controls) *Model {
	return &Model{Base: common.Base{St: st}, keys: keys, words: words, title: "Events"}
}

// Show draws events (a run's log, oldest first) under title; the log keeps its scrolling and
// its filter. The same events and title at the same size draw nothing again: the root shows the
// log at every frame, and it changes a few times a run. The log keeps a copy of events (a
// history replaces its last circuit line in place).
func (p *Model) Show(events []source.Event, title string) {
	if p.shown && title == p.title && p.drawnW == p.W && p.drawnH == p.H && slices.Equal(events, p.events) {
		return
	}
	p.events, p.title, p.shown = append(p.events[:0], events...), title, true
	p.redraw()
}

// Hide draws the log of no run: its border and title alone.
func (p *Model) Hide(title string) {
	p.events, p.title, p.shown = p.events[:0], title, false
	p.redraw()
}

// Update scrolls the log back (the log up key) and forward (down) by Page lines, and shows one
// kind of event at a time, then all again (the filter key). Other messages change nothing.
func (p *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	switch {
	case key.Matches(km, p.keys.LogUp):
		p.offset += Page // clamped to what the log holds when drawn
	case key.Matches(km, p.keys.LogDown):
		p.offset = max(p.offset-Page, 0)
	case key.Matches(km, p.keys.LogFilter):
		p.kind = (p.kind + 1) % (numEventKinds + 1)
		p.offset = 0
	default:
		return p, nil
	}
	p.redraw()
	return p, nil
}

// redraw draws the log into its cached view.
func (p *Model) redraw() {
	title, body := p.body()
	p.Rendered = common.Box(p.St, title, body, p.W, p.H)
	p.drawnW, p.drawnH = p.W, p.H
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

func (p *Model) body() (string, string) {
	title := p.title
	if !p.shown {
		return title, ""
	}
	iw, ih := common.Inner(p.W, p.H)
	kind := p.kind - 1
	if kind >= 0 {
		title += " · " + source.EventKind(kind).String() + " only"
	}
	lines := logLines(p.events, kind)
	if len(lines) == 0 {
		empty := "nothing yet: faults, crashes, circuit changes and your controls appear here"
		if kind >= 0 {
			empty = fmt.Sprintf("no %s event yet (%s: next kind)", source.EventKind(kind), common.KeyName(p.keys.LogFilter))
		}
		text := strings.Split(common.Wrap(empty, max(iw, 1)), "\n")
		if len(text) > ih && ih > 0 {
			text = text[:ih]
			text[ih-1] = ansi.Truncate(text[ih-1], max(iw-1, 1), "") + "…"
		}
		return title, p.St.Muted.Render(strings.Join(text, "\n"))
	}
	// The window ends offset events before the newest; the offset is clamped to what the log
	// holds. Each event is wrapped onto as many lines as its words take (continued under its
	// text, never cut mid-word), and the window holds the newest whole events that fit.
	if ih <= 0 {
		return title, ""
	}
	fill, rowsUsed := 0, 0 // the oldest events that fill the log: scrolled back no further
	for fill < len(lines) {
		n := len(p.wrapped(lines[fill], iw))
		if rowsUsed+n > ih {
			break
		}
		rowsUsed += n
		fill++
	}
	offset := min(p.offset, max(len(lines)-max(fill, 1), 0))
	end := len(lines) - offset
	var rows []string
	start := end
	for start > 0 {
		wrapped := p.wrapped(lines[start-1], iw)
		if len(rows)+len(wrapped) > ih {
			if len(rows) == 0 { // the newest alone is taller than the log: its first lines
				rows = wrapped[:ih]
				rows[ih-1] = ansi.Truncate(rows[ih-1], max(iw-1, 1), "") + "…"
				start--
			}
			break
		}
		rows = append(wrapped, rows...)
		start--
	}
	if above := start; above > 0 || offset > 0 {
		title = common.FitTitle(p.W, fmt.Sprintf("%s · %d above, %d below · %s/%s", title, above, offset,
			common.KeyName(p.keys.LogUp), common.KeyName(p.keys.LogDown)), fmt.Sprintf("%s · %d↑ %d↓", title, above, offset), title)
	}
	return title, strings.Join(rows, "\n")
}

// logIndent is the width of an event line's time and kind columns: its wrapped text continues
// under its first word.
const logIndent = 16

// wrapped is the event line l wrapped to w cells: its first line with the time and the kind,
// the rest of its words on lines indented under the text.
func (p *Model) wrapped(l logLine, w int) []string {
	line := p.line(l)
	if ansi.StringWidth(line) <= w || w <= logIndent+8 {
		return []string{ansi.Truncate(line, max(w, 0), "…")}
	}
	e := l.e
	style := p.St.Text
	if int(e.Kind) >= 0 && int(e.Kind) < len(p.St.Events) {
		style = p.St.Events[e.Kind]
	}
	head := ansi.Truncate(line, logIndent, "")
	text := strings.TrimPrefix(ansi.Strip(line), ansi.Strip(head))
	parts := strings.Split(common.Wrap(text, w-logIndent), "\n")
	out := []string{head + style.Render(parts[0])}
	for _, more := range parts[1:] {
		out = append(out, strings.Repeat(" ", logIndent)+style.Render(more))
	}
	return out
}

// line is one line of the log: time, kind and what happened, in the kind's colour; joined
// circuit events say how many changes since when ("×12 since 41.0s").
func (p *Model) line(l logLine) string {
	e := l.e
	kind, style := "event", p.St.Text
	if int(e.Kind) >= 0 && int(e.Kind) < len(p.St.Events) {
		kind, style = e.Kind.String(), p.St.Events[e.Kind]
	}
	text := strings.TrimSpace(Text(e, p.words))
	if l.n > 1 {
		text += fmt.Sprintf(" (×%d since %s)", l.n, common.FmtClock(l.from))
	}
	return p.St.Muted.Render(fmt.Sprintf("%7s ", common.FmtClock(e.T))) + style.Render(fmt.Sprintf("%-7s %s", kind, text))
}
