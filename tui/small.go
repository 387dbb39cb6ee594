package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// smallPanel is the collapsed layout below minFullW x minFullH, under the header: a note that the
// window is small (naming the window's size), the CPS with its badge and sparkline, the signals,
// and the first run's strategy, service, success and amplification, as far as its height goes.
type smallPanel struct{ base }

// newSmall returns an empty collapsed layout.
func newSmall(st Styles) *smallPanel { return &smallPanel{base{st: st}} }

// Update redraws the panel on a full redraw and when the weights or their selection changed.
func (p *smallPanel) Update(msg tea.Msg) (*smallPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedWeights) {
		p.view = fit(p.render(f.f), p.w, p.h)
	}
	return p, nil
}

func (p *smallPanel) render(f *frame) string {
	st := p.st
	warn := fmt.Sprintf("small window %dx%d: %dx%d shows every panel", f.width, f.height, minFullW, minFullH)
	if len(warn) > p.w {
		warn = fmt.Sprintf("small window: %dx%d shows all", minFullW, minFullH)
	}
	lines := []string{st.Warn.Render(warn)}
	if len(f.runs) > 0 {
		r := f.runs[0]
		if cv := r.hist.last.Cortex; cv != nil {
			head := fmt.Sprintf("%s CPS %s floor %d ", st.badge(cv.State), fmtCPS(cv.CPS), cv.Floor)
			vals := r.hist.cps.tail(nil, p.w)
			spark := ""
			if rest := p.w - len(cv.State.String()) - 2 - 19; rest > 0 {
				spark = st.band(cv.State).Render(sparkline(vals, rest, 1))
			}
			lines = append(lines, head+spark)
			sig := cv.Signals.Array()
			sparkW := max(p.w-15, 0)
			for i, s := range signalNames {
				sel := " "
				if i == f.selWeight {
					sel = st.Accent.Render("▸")
				}
				lines = append(lines, fmt.Sprintf("%s%s %4.2f w%.2f %s", sel, s.key, sig[i], f.weights[i],
					st.level(sig[i]).Render(sparkline(r.hist.sig[i].tail(nil, sparkW), sparkW, 1))))
			}
		}
		svc := r.hist.last.Service
		lines = append(lines, fmt.Sprintf("%s · service %s · success %.0f%% · amplification x%.1f",
			r.meta.Strategy, st.service(svc.State), 100*r.hist.totals().SuccessRate(), r.hist.totals().Amplification()))
	}
	return strings.Join(lines, "\n")
}
