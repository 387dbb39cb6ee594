package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// comparePanel shows two runs side by side (same scenario, arrivals, faults and seed; two
// strategies): for each, its key numbers, its CPS chart and its traffic chart.
type comparePanel struct {
	base
	cps     [2]*cpsPanel
	traffic [2]*trafficPanel
	events  [2]*eventsPanel
	stats   [2]string
	statsH  int
	eventsH int // 0 when the window is too short for the event logs
}

// newCompare returns an empty compare view.
func newCompare(st Styles) *comparePanel {
	return &comparePanel{
		base:    base{st: st},
		cps:     [2]*cpsPanel{newCPS(st, 0), newCPS(st, 1)},
		traffic: [2]*trafficPanel{newTraffic(st, 0), newTraffic(st, 1)},
		events:  [2]*eventsPanel{newEvents(st, 0), newEvents(st, 1)},
	}
}

// SetSize splits the area in two columns: numbers, CPS chart, traffic chart and, when the window
// is tall enough, the event log in each.
func (p *comparePanel) SetSize(w, h int) {
	p.base.SetSize(w, h)
	p.statsH = 5
	p.eventsH = 0
	if h >= 34 {
		p.eventsH = min(h/5, 10)
	}
	left := w / 2
	rest := max(h-p.statsH-p.eventsH, 0)
	cpsH := rest * 2 / 5
	for i, cw := range []int{left, w - left} {
		p.cps[i].SetSize(cw, cpsH)
		p.traffic[i].SetSize(cw, rest-cpsH)
		p.events[i].SetSize(cw, p.eventsH)
	}
}

// Update redraws both columns on a frameMsg.
func (p *comparePanel) Update(msg tea.Msg) (*comparePanel, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok {
		return p, nil
	}
	// One scale for both sides, over the newest p.w seconds: more than either half's chart
	// shows (one point per column), so a peak just scrolled out of view still sets it a while.
	f.f.trafficY = trafficMax(f.f.runs, p.w)
	defer func() { f.f.trafficY = 0 }()
	for i := range 2 {
		p.cps[i], _ = p.cps[i].Update(f)
		p.traffic[i], _ = p.traffic[i].Update(f)
		w := p.w / 2
		if i == 1 {
			w = p.w - p.w/2
		}
		p.stats[i] = box(p.st, "", p.numbers(f.f, i), w, p.statsH)
	}
	p.redrawEvents(f)
	return p, nil
}

// redrawEvents redraws the event logs alone (a control was logged) and recomposes the columns
// from the cached charts.
func (p *comparePanel) redrawEvents(f frameMsg) {
	cols := make([]string, 2)
	for i := range 2 {
		blocks := []string{p.stats[i], p.cps[i].View(), p.traffic[i].View()}
		if p.eventsH > 0 {
			p.events[i], _ = p.events[i].Update(f)
			blocks = append(blocks, p.events[i].View())
		}
		cols[i] = lipgloss.JoinVertical(lipgloss.Left, blocks...)
	}
	p.view = fit(side(cols...), p.w, p.h)
}

// numbers is the key figures of run i: success, amplification, service state, crashes.
func (p *comparePanel) numbers(f *frame, i int) string {
	st := p.st
	if i >= len(f.runs) {
		return ""
	}
	r := f.runs[i]
	t := r.hist.totals
	badge := ""
	if cv := r.hist.last.Cortex; cv != nil {
		badge = "  " + st.badge(cv.State)
	}
	peak := ""
	if t.PeakAmplification > 0 { // known once a whole second is over
		peak = fmt.Sprintf(" (peak x%.1f)", t.PeakAmplification)
	}
	w, _ := inner(p.w/2, p.statsH)
	success := st.Bold.Render(fmt.Sprintf("%5.1f%%", 100*t.successRate()))
	service := st.service(r.hist.last.Service.State)
	wasted := fmt.Sprintf(" (%d wasted)", t.RetryFailures)
	lines := []string{
		fmt.Sprintf("%s %s   %s x%.2f%s", st.Muted.Render("success"), success, st.Muted.Render("amplification"), t.amplification(), st.Muted.Render(peak)),
		fmt.Sprintf("%s %s   %s %d   %s %d%s", st.Muted.Render("service"), service, st.Muted.Render("crashes"), t.Crashes,
			st.Muted.Render("retries"), t.Retries, st.Muted.Render(wasted)),
	}
	if ansi.StringWidth(lines[0]) > w { // narrow: shorter words, counts in thousands
		lines[0] = fmt.Sprintf("%s %s · %s x%.2f%s", st.Muted.Render("success"), success, st.Muted.Render("amp"), t.amplification(), st.Muted.Render(peak))
	}
	if ansi.StringWidth(lines[1]) > w {
		lines[1] = fmt.Sprintf("%s · %s %d · %s %s", service, st.Muted.Render("crashes"), t.Crashes,
			st.Muted.Render("retries"), rate(float64(t.Retries)))
		if more := st.Muted.Render(fmt.Sprintf(" (%s wasted)", rate(float64(t.RetryFailures)))); ansi.StringWidth(lines[1]+more) <= w {
			lines[1] += more
		}
	}
	return st.Title.Render(r.meta.Strategy) + badge + "\n" + strings.Join(lines, "\n")
}
