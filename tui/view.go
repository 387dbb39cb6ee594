package tui

import (
	"strings"

	"github.com/cortex-tui/cortex-tui/source"
)

// resize records the window size, lays the panels out and redraws them.
func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.fr.width, m.fr.height = m.width, m.height
	m.fr.small = m.width < minFullW || m.height < minFullH
	m.footer.SetSize(m.width, 1)
	m.sizePicker()
	m.layout()
	m.redraw()
}

// frameMsg returns the message that makes panels redraw from the current frame.
func (m *Model) frameMsg() frameMsg { return frameMsg{f: &m.fr} }

// redraw redraws the footer and every panel of the current screen, and recomposes the body.
func (m *Model) redraw() {
	m.footer.Show(m.live(), m.current() == layoutSummary)
	m.update(m.frameMsg())
	m.compose()
}

// redrawFor redraws, after a key changed only what c names, the panels of the current screen
// that show it (frameMsg.shows), not every chart, and recomposes the body.
func (m *Model) redrawFor(c change) {
	m.update(frameMsg{f: &m.fr, only: c})
	m.compose()
}

// sameSetting reports whether b sets, at the same time, the same setting as the event a logged
// by logControl (the speed), so that b replaces a.
func sameSetting(a, b source.Event) bool {
	const speed = "speed x"
	return a.Kind == source.EventControl && a.T == b.T && strings.HasPrefix(a.Text, speed) && strings.HasPrefix(b.Text, speed)
}

// applied says in the footer that a control went to the sources, and, while paused, shows it in
// the event log at once, marked as taking effect at the next tick: the sources log it
// themselves with that tick's snapshot, which replaces the pending line.
func (m *Model) applied(text string) {
	m.setStatus(text, false)
	if !m.fr.paused {
		return
	}
	for _, r := range m.fr.runs {
		r.hist.Pending = append(r.hist.Pending, source.Event{T: r.hist.Last.T, Kind: source.EventControl,
			Text: "next tick: " + text})
	}
	m.redrawFor(changedLog)
}

// logControl writes a control the dashboard applies itself (pause, speed, compare, export) to
// every run's event log, at the run's current time, and shows it at once. Controls applied by a
// source (faults, weights, classes, strategy) are logged by the source.
func (m *Model) logControl(text string) {
	for _, r := range m.fr.runs {
		e := source.Event{T: r.hist.Last.T, Kind: source.EventControl, Text: text}
		if n := len(r.hist.Events); n > 0 && sameSetting(r.hist.Events[n-1], e) {
			r.hist.Events[n-1] = e // "+ + +" logs the speed reached, not each step
			continue
		}
		r.hist.AddEvent(e)
	}
	m.redrawFor(changedLog)
}

// sizePicker gives the picker the window, less the footer's line while a message shows.
func (m *Model) sizePicker() {
	h := m.height
	if m.footer.Status() != "" {
		h--
	}
	m.picker.SetSize(m.width, max(h, 0))
}

// setStatus shows a message in the footer until the next key press.
func (m *Model) setStatus(s string, isErr bool) {
	m.footer.SetStatus(s, isErr)
	m.sizePicker()
}

// clearStatus removes the footer's message.
func (m *Model) clearStatus() {
	if m.footer.Status() == "" {
		return
	}
	m.footer.SetStatus("", false)
	m.sizePicker()
}
