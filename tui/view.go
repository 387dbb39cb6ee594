package tui

import (
	"strings"

	"github.com/cortex-tui/cortex-tui/source"
)

// Sizes of the layout, in cells.
const (
	minFullW = 80 // below this width or minFullH height the layout collapses to the essentials
	minFullH = 24
)

// resize records the window size, lays the panels out and redraws them.
func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.fr.small = m.width < minFullW || m.height < minFullH
	m.sizePicker()
	m.layout()
	m.redraw()
}

// layout gives every panel its size for the current window.
func (m *Model) layout() {
	w, h := m.width, m.height
	captionH := 1
	if h >= 36 {
		captionH = 2
	}
	bodyH := max(h-2-captionH, 0)
	m.header.SetSize(w, 1)
	m.caption.SetSize(w, captionH)
	m.footer.SetSize(w, 1)
	m.help.SetSize(w, max(h-1, 0))
	m.small.SetSize(w, h)
	m.summary.SetSize(w, max(h-1, 0))
	m.compare.SetSize(w, bodyH)

	botH := min(max(bodyH/4, 6), 12)
	topH := max((bodyH-botH)/2+1, 8)
	midH := max(bodyH-botH-topH, 0)
	sigW := min(max(w*2/5, 46), 72)
	m.signals.SetSize(sigW, topH)
	m.cps.SetSize(w-sigW, topH)
	shedW := min(max(w*2/5, 40), 80)
	m.traffic.SetSize(w-shedW, midH)
	m.shedding.SetSize(shedW, midH)
	decW := min(max(w/3, 36), 44)
	m.decisions.SetSize(decW, botH)
	m.events.SetSize(w-decW, botH)
}

// frameMsg returns the message that makes panels redraw from the current frame.
func (m *Model) frameMsg() frameMsg { return frameMsg{f: &m.fr} }

// redraw redraws every panel on screen and recomposes the body.
func (m *Model) redraw() {
	f := m.frameMsg()
	m.header, _ = m.header.Update(f)
	m.footer, _ = m.footer.Update(f)
	switch {
	case m.showHelp:
		m.help, _ = m.help.Update(f)
	case m.screen == screenSummary:
		m.summary, _ = m.summary.Update(f)
	case m.fr.small:
		m.small, _ = m.small.Update(f)
	case len(m.fr.runs) > 1:
		m.caption, _ = m.caption.Update(f)
		m.compare, _ = m.compare.Update(f)
	default:
		m.caption, _ = m.caption.Update(f)
		m.signals, _ = m.signals.Update(f)
		m.cps, _ = m.cps.Update(f)
		m.traffic, _ = m.traffic.Update(f)
		m.shedding, _ = m.shedding.Update(f)
		m.decisions, _ = m.decisions.Update(f)
		m.events, _ = m.events.Update(f)
	}
	m.compose()
}

// redrawHeader redraws the header alone (speed, pause).
func (m *Model) redrawHeader() {
	m.header, _ = m.header.Update(m.frameMsg())
	m.compose()
}

// redrawPanel redraws one panel after a selection changed, not every chart.
func (m *Model) redrawPanel(p any) {
	f := m.frameMsg()
	switch p := p.(type) {
	case *signalsPanel:
		if m.fr.small { // the collapsed layout shows the weights and the selection
			m.small, _ = m.small.Update(f)
		} else {
			m.signals, _ = p.Update(f)
		}
	case *sheddingPanel:
		m.shedding, _ = p.Update(f)
	case *eventsPanel:
		if len(m.fr.runs) > 1 {
			m.compare.redrawEvents(f)
		} else {
			m.events, _ = p.Update(f)
		}
	}
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
		r.hist.pending = append(r.hist.pending, source.Event{T: r.hist.last.T, Kind: source.EventControl,
			Text: "next tick: " + text})
	}
	m.redrawPanel(m.events)
}

// logControl writes a control the dashboard applies itself (pause, speed, compare, export) to
// every run's event log, at the run's current time, and shows it at once. Controls applied by a
// source (faults, weights, classes, strategy) are logged by the source.
func (m *Model) logControl(text string) {
	for _, r := range m.fr.runs {
		e := source.Event{T: r.hist.last.T, Kind: source.EventControl, Text: text}
		if n := len(r.hist.events); n > 0 && sameSetting(r.hist.events[n-1], e) {
			r.hist.events[n-1] = e // "+ + +" logs the speed reached, not each step
			continue
		}
		r.hist.addEvent(e)
	}
	m.redrawPanel(m.events)
}

// compose joins the cached panel strings into the body (everything above the footer).
func (m *Model) compose() {
	w, h := m.width, max(m.height-1, 0)
	var body string
	switch {
	case m.showHelp:
		body = m.help.View()
	case m.screen == screenSummary:
		body = m.summary.View()
	case m.fr.small:
		body = m.header.View() + "\n" + m.small.View()
	case len(m.fr.runs) > 1:
		body = stack(m.header.View(), m.caption.View(), m.compare.View())
	default:
		body = stack(m.header.View(), m.caption.View(),
			side(m.signals.View(), m.cps.View()),
			side(m.traffic.View(), m.shedding.View()),
			side(m.decisions.View(), m.events.View()))
	}
	m.body = fit(body, w, h)
}

// sizePicker gives the picker the window, less the footer's line while a message shows.
func (m *Model) sizePicker() {
	h := m.height
	if m.footer.status != "" {
		h--
	}
	m.picker.SetSize(m.width, max(h, 0))
}

// setStatus shows a message in the footer until the next key press.
func (m *Model) setStatus(s string, isErr bool) {
	m.footer.SetStatus(s, isErr)
	m.footer, _ = m.footer.Update(m.frameMsg())
	m.sizePicker()
}

// clearStatus removes the footer's message.
func (m *Model) clearStatus() {
	if m.footer.status == "" {
		return
	}
	m.footer.SetStatus("", false)
	m.footer, _ = m.footer.Update(m.frameMsg())
	m.sizePicker()
}
