// Package small is the collapsed layout of a small window, a component of its own, under the
// header: a note that the window is small (naming its size and the size that shows every
// panel), the CPS with its badge and sparkline, the signals with their weights, and the first
// run's strategy, service, success and amplification, as far as its height goes.
package small

import (
	"fmt"
	"strings"

	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/signals"
)

// View is what the collapsed layout shows: the window's size and the full layout's least, and
// of the first run (Run false: none) its latest CORTEX view (nil: none), its CPS and signals
// per second, the weights as set and the one selected, its strategy's label, its service and
// its totals.
type View struct {
	WinW, WinH   int
	FullW, FullH int
	Run          bool
	Cortex       *source.CortexView
	CPS          *ring.Ring[float64]
	Sig          [5]*ring.Ring[float64]
	Weights      [5]float64
	Selected     int
	Label        string
	Service      source.Service
	Totals       report.Totals
}

// Model is the collapsed layout. It is used from the Bubble Tea goroutine only.
type Model struct{ common.Base }

// New returns an empty collapsed layout drawn with st.
func New(st common.Styles) *Model { return &Model{common.Base{St: st}} }

// Show redraws the panel from v.
func (p *Model) Show(v View) { p.Rendered = common.Fit(p.render(v), p.W, p.H) }

func (p *Model) render(v View) string {
	st := p.St
	warn := fmt.Sprintf("small window %dx%d: %dx%d shows every panel", v.WinW, v.WinH, v.FullW, v.FullH)
	if len(warn) > p.W {
		warn = fmt.Sprintf("small window: %dx%d shows all", v.FullW, v.FullH)
	}
	lines := []string{st.Warn.Render(warn)}
	if !v.Run {
		return lines[0]
	}
	if cv := v.Cortex; cv != nil {
		head := fmt.Sprintf("%s CPS %s floor %d ", st.StateBadge(cv.State), common.FmtCPS(cv.CPS), cv.Floor)
		vals := v.CPS.Tail(nil, p.W)
		spark := ""
		if rest := p.W - len(cv.State.String()) - 2 - 19; rest > 0 {
			spark = st.BandOf(cv.State).Render(chart.Sparkline(vals, rest, 1))
		}
		lines = append(lines, head+spark)
		sig := cv.Signals.Array()
		sparkW := max(p.W-15, 0)
		for i, s := range signals.Names {
			sel := " "
			if i == v.Selected {
				sel = st.Accent.Render("▸")
			}
			lines = append(lines, fmt.Sprintf("%s%s %4.2f w%.2f %s", sel, s.Key, sig[i], v.Weights[i],
				st.Level(sig[i]).Render(chart.Sparkline(v.Sig[i].Tail(nil, sparkW), sparkW, 1))))
		}
	}
	lines = append(lines, fmt.Sprintf("%s · service %s · success %.0f%% · amplification %s",
		v.Label, st.ServiceOf(v.Service), 100*v.Totals.SuccessRate(), common.FmtPeak(v.Totals.Amplification())))
	return strings.Join(lines, "\n")
}
