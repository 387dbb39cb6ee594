package tui

import (
	"fmt"
	"math"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"
)

// trafficPanel charts originals, retries and successes per second against the service's
// capacity, so amplification shows as the gap between the lines, with the service state.
type trafficPanel struct {
	base
	run                    int
	chart                  chart
	orig, retr, succ, capa []float64
}

// newTraffic returns an empty traffic panel for run index run.
func newTraffic(st Styles, run int) *trafficPanel {
	return &trafficPanel{base: base{st: st}, run: run, chart: newBrailleChart(0, 0)}
}

// SetSize sets the outer size and resizes the chart to the space under the two title lines.
func (p *trafficPanel) SetSize(w, h int) {
	p.base.SetSize(w, h)
	iw, ih := inner(w, h)
	p.chart.Resize(iw, ih-2)
}

// Update redraws the panel on a frameMsg.
func (p *trafficPanel) Update(msg tea.Msg) (*trafficPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok {
		title, body := p.render(f.f)
		p.view = box(p.st, title, body, p.w, p.h)
	}
	return p, nil
}

func (p *trafficPanel) render(f *frame) (string, string) {
	st := p.st
	if p.run >= len(f.runs) {
		return "Traffic", ""
	}
	r := f.runs[p.run]
	h := r.hist
	svc := h.last.Service
	title := fmt.Sprintf("Traffic /s  service %s  queue %d/%d  amplification x%.1f",
		st.service(svc.State), svc.Queue, svc.QueueLimit, h.totals.amplification())
	legend := st.Originals.Render("● originals "+rate(h.originals.last())) + "  " +
		st.Retries.Render("● retries "+rate(h.retries.last())) + "  " +
		st.Successes.Render("● successes "+rate(h.successes.last())) + "  " +
		st.Capacity.Render("· capacity "+rate(svc.Capacity))
	n := historyPoints
	p.orig = h.originals.tail(p.orig[:0], n)
	p.retr = h.retries.tail(p.retr[:0], n)
	p.succ = h.successes.tail(p.succ[:0], n)
	p.capa = h.capac.tail(p.capa[:0], n)
	chart := p.chart.Draw(chartSpec{
		Lines: []series{
			{Values: p.capa, Style: st.Capacity},
			{Values: p.orig, Style: st.Originals},
			{Values: p.retr, Style: st.Retries},
			{Values: p.succ, Style: st.Successes},
		},
		Labels: true,
		Format: rate,
		Muted:  st.Muted,
	})
	return title, legend + "\n" + chart
}

// rate formats a per-second figure compactly: 950, 1.2k, 35k.
func rate(v float64) string {
	switch {
	case v >= 9999.5:
		return strconv.FormatFloat(v/1000, 'f', 0, 64) + "k"
	case v >= 999.5:
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + "k"
	case v < 9.95 && v != math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
