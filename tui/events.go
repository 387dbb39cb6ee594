package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/source"
)

// eventKinds names each source.EventKind in the log.
var eventKinds = [...]string{"note", "fault", "service", "circuit", "control"}

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

func (p *eventsPanel) line(e source.Event) string {
	kind, style := "event", p.st.Text
	if int(e.Kind) >= 0 && int(e.Kind) < len(eventKinds) {
		kind, style = eventKinds[e.Kind], p.st.Events[e.Kind]
	}
	text := strings.TrimPrefix(strings.TrimPrefix(e.Text, kind+":"), kind+" ") // "circuit circuit: ..." reads badly
	return p.st.Muted.Render(fmt.Sprintf("%7s ", fmtDur(e.T))) + style.Render(fmt.Sprintf("%-7s %s", kind, strings.TrimSpace(text)))
}
