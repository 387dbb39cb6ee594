package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/signals"
)

// smallPanel is the collapsed layout below minFullW x minFullH, under the header: a note that the
// window is small (naming the window's size), the CPS with its badge and sparkline, the signals,
// and the first run's strategy, service, success and amplification, as far as its height goes.
type smallPanel struct{ common.Base }

// newSmall returns an empty collapsed layout.
func newSmall(st common.Styles) *smallPanel { return &smallPanel{common.Base{St: st}} }

// Update redraws the panel on a full redraw and when the weights or their selection changed.
func (p *smallPanel) Update(msg tea.Msg) (*smallPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedWeights) {
		p.Rendered = common.Fit(p.render(f.f), p.W, p.H)
	}
	return p, nil
}

func (p *smallPanel) render(f *frame) string {
	st := p.St
	warn := fmt.Sprintf("small window %dx%d: %dx%d shows every panel", f.width, f.height, minFullW, minFullH)
	if len(warn) > p.W {
		warn = fmt.Sprintf("small window: %dx%d shows all", minFullW, minFullH)
	}
	lines := []string{st.Warn.Render(warn)}
	if len(f.runs) > 0 {
		r := f.runs[0]
		if cv := r.hist.Last.Cortex; cv != nil {
			head := fmt.Sprintf("%s CPS %s floor %d ", st.StateBadge(cv.State), common.FmtCPS(cv.CPS), cv.Floor)
			vals := r.hist.CPS.Tail(nil, p.W)
			spark := ""
			if rest := p.W - len(cv.State.String()) - 2 - 19; rest > 0 {
				spark = st.BandOf(cv.State).Render(chart.Sparkline(vals, rest, 1))
			}
			lines = append(lines, head+spark)
			sig := cv.Signals.Array()
			sparkW := max(p.W-15, 0)
			for i, s := range signals.Names {
				sel := " "
				if i == f.selWeight {
					sel = st.Accent.Render("▸")
				}
				lines = append(lines, fmt.Sprintf("%s%s %4.2f w%.2f %s", sel, s.Key, sig[i], f.weights[i],
					st.Level(sig[i]).Render(chart.Sparkline(r.hist.Sig[i].Tail(nil, sparkW), sparkW, 1))))
			}
		}
		svc := r.hist.Last.Service
		lines = append(lines, fmt.Sprintf("%s · service %s · success %.0f%% · amplification %s",
			r.meta.StrategyLabel(), st.ServiceOf(svc), 100*r.hist.Totals().SuccessRate(), common.FmtPeak(r.hist.Totals().Amplification())))
	}
	return strings.Join(lines, "\n")
}
