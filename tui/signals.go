package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// signalNames are the five CPS signals in weight order: the engine's letter and the word.
var signalNames = [5]struct{ key, name string }{
	{engine.SignalNames[0], "failures"}, {engine.SignalNames[1], "latency"}, {engine.SignalNames[2], "waiting"},
	{engine.SignalNames[3], "budget"}, {engine.SignalNames[4], "circuit"},
}

// signalGlossary says what each signal measures and what the CPS does, shown in that order as
// far as the panel has room.
var signalGlossary = []string{
	"F calls failing · L p99 latency over baseline · Q retries waiting out their delay · B retry budget spent · C breakers open",
	"The higher the CPS, the fewer retries: priorities under floor(CPS×10) are shed.",
}

// signalsPanel shows F, L, Q, B and C: a gauge, the value, the weight (the selected one
// highlighted) and a sparkline of recent history (one block per simulated second).
type signalsPanel struct{ common.Base }

// newSignals returns an empty signals panel.
func newSignals(st common.Styles) *signalsPanel { return &signalsPanel{common.Base{St: st}} }

// Update redraws the panel on a full redraw and when the weights or their selection changed.
func (p *signalsPanel) Update(msg tea.Msg) (*signalsPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedWeights) {
		iw, _ := common.Inner(p.W, p.H)
		p.Rendered = common.Box(p.St, "Signals", p.body(f.f, iw), p.W, p.H)
	}
	return p, nil
}

// body draws the signal lines into w columns.
func (p *signalsPanel) body(f *frame, w int) string {
	st := p.St
	if len(f.runs) == 0 {
		return ""
	}
	r := f.runs[0]
	if r.hist.last.Cortex == nil && r.hist.seen {
		return st.Muted.Render(ansi.Wordwrap(fmt.Sprintf("%s: %s. It computes no signals; only cortex does (%s switches the strategy, %s compares).",
			r.meta.Strategy, strategy.Describe(r.meta.Strategy), common.KeyName(f.keyMap().Strategy), common.KeyName(f.keyMap().Compare)), max(w, 1), " "))
	}
	var sig [5]float64
	if cv := r.hist.last.Cortex; cv != nil {
		sig = cv.Signals.Array()
	}
	const labelW, gaugeW, numW, contribW = 12, 8, 14, 7
	showContrib := w >= 52
	sparkW := w - labelW - gaugeW - numW - 2
	if showContrib {
		sparkW -= contribW
	}
	if sparkW < 4 {
		sparkW = 0
	}
	lines := make([]string, 0, 7)
	var buf []float64
	for i, s := range signalNames {
		marker, wt := "  ", st.Text.Render(fmt.Sprintf("w%.2f", f.weights[i]))
		if i == f.selWeight {
			marker, wt = st.Accent.Render("▸ "), st.Selected.Render(fmt.Sprintf("w%.2f", f.weights[i]))
		}
		line := marker + st.Bold.Render(s.key) + " " + st.Muted.Render(fmt.Sprintf("%-9s", s.name)) +
			gauge(st, sig[i], gaugeW) + fmt.Sprintf(" %4.2f  ", sig[i]) + wt
		if showContrib {
			line += st.Muted.Render(fmt.Sprintf(" →%4.2f", f.weights[i]*sig[i]))
		}
		if sparkW > 0 {
			buf = r.hist.sig[i].Tail(buf[:0], sparkW)
			line += "  " + st.Level(sig[i]).Render(chart.Sparkline(buf, sparkW, 1))
		}
		lines = append(lines, line)
	}
	adaptive := "off"
	if f.adaptive {
		adaptive = "on"
	}
	formula := "CPS = Σ weight × signal · adaptive " + adaptive
	if showContrib {
		formula = "CPS = Σ weight × signal (→) · adaptive " + adaptive
	}
	lines = append(lines, st.Muted.Render(formula), p.bands(w))
	if _, ih := common.Inner(p.W, p.H); ih > 0 { // spare rows: what the letters mean, what the CPS does
		used := strings.Count(strings.Join(lines, "\n"), "\n") + 1
		for _, g := range signalGlossary {
			g = common.Wrap(g, max(w, 1))
			if used+strings.Count(g, "\n")+1 > ih {
				break
			}
			lines = append(lines, st.Muted.Render(g))
			used += strings.Count(g, "\n") + 1
		}
	}
	return strings.Join(lines, "\n")
}

// bands is the legend of the state bands, each in its colour, on one line if it fits w cells,
// else on two, broken between bands.
func (p *signalsPanel) bands(w int) string {
	st := p.St
	starts := engine.BandStarts(engine.DefaultEmergencyThreshold)
	at := func(i int) string {
		return st.Muted.Render(" " + strings.TrimPrefix(fmt.Sprintf("%.2f", starts[i]), "0") + " ")
	} // " .25 "
	first := st.Band[0].Render("■"+engine.Healthy.String()) + at(0) + st.Band[1].Render("■"+engine.Degraded.String()) + at(1)
	second := st.Band[2].Render("■"+engine.Critical.String()) + at(2) + st.Band[3].Render("■"+engine.Emergency.String())
	if ansi.StringWidth(first+second) <= w {
		return first + second
	}
	return first + "\n" + second
}

// gauge draws v in [0,1] as a bar of w cells.
func gauge(st common.Styles, v float64, w int) string {
	full := min(max(int(v*float64(w)+0.5), 0), w)
	return st.GaugeFull.Render(strings.Repeat("█", full)) + st.GaugeEmpty.Render(strings.Repeat("░", w-full))
}
