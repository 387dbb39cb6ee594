// Package signals is the dashboard's signals panel, a component of its own: CORTEX's five
// signals, F, L, Q, B and C, each with a gauge, its value, its weight and a sparkline of its
// recent seconds, then the CPS formula, the bands and what the letters mean.
package signals

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Names are the five CPS signals in weight order: the engine's letter (Key) and the word the
// dashboard gives it (Name).
var Names = [5]struct{ Key, Name string }{
	{engine.SignalNames[0], "failures"}, {engine.SignalNames[1], "latency"}, {engine.SignalNames[2], "waiting"},
	{engine.SignalNames[3], "budget"}, {engine.SignalNames[4], "circuit"},
}

// glossary says what each signal measures and what the CPS does, shown in that order as far
// as the panel has room.
var glossary = []string{
	"F calls failing · L p99 latency over baseline · Q retries waiting out their delay · B retry budget spent · C breakers open",
	"The higher the CPS, the fewer retries: priorities under floor(CPS×10) are shed.",
}

// Model shows F, L, Q, B and C: a gauge, the value, the weight (the selected one highlighted)
// and a sparkline of recent history (one block per simulated second). It is used from the
// Bubble Tea goroutine only.
type Model struct {
	common.Base
	// legend is what the panel draws under the signals whatever they are (the bands and as
	// much of the glossary as fits), drawn once for legendAt: the body's width, its height and
	// the lines above the legend.
	legend   []string
	legendAt [3]int
}

// View is what the panel shows: the run's latest CORTEX view (nil for a strategy without one),
// whether a snapshot arrived yet, its strategy, the weights as set (normalised) with the
// selected one and the adaptive switch, each signal's per-second series (newest last), and
// the keys that switch and compare strategies, as the help names them.
type View struct {
	Cortex                  *source.CortexView
	Seen                    bool
	Strategy                string
	Weights                 [5]float64
	Selected                int
	Adaptive                bool
	Series                  [5]*ring.Ring[float64]
	StrategyKey, CompareKey string
}

// New returns an empty signals panel drawn with st.
func New(st common.Styles) *Model { return &Model{Base: common.Base{St: st}} }

// Update does nothing: the panel draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Hide draws the panel without a run: its title and an empty box.
func (p *Model) Hide() { p.Draw("Signals", "") }

// Show draws v.
func (p *Model) Show(v View) {
	iw, _ := common.Inner(p.W, p.H)
	p.Draw("Signals", p.body(v, iw))
}

// body draws the signal lines into w columns.
func (p *Model) body(v View, w int) string {
	st := p.St
	if v.Cortex == nil && v.Seen {
		return st.Muted.Render(ansi.Wordwrap(fmt.Sprintf("%s: %s. It computes no signals; only cortex does (%s switches the strategy, %s compares).",
			v.Strategy, strategy.Describe(v.Strategy), v.StrategyKey, v.CompareKey), max(w, 1), " "))
	}
	var sig [5]float64
	if cv := v.Cortex; cv != nil {
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
	for i, s := range Names {
		marker, wt := "  ", st.Text.Render(fmt.Sprintf("w%.2f", v.Weights[i]))
		if i == v.Selected {
			marker, wt = st.Accent.Render("▸ "), st.Selected.Render(fmt.Sprintf("w%.2f", v.Weights[i]))
		}
		line := marker + st.Bold.Render(s.Key) + " " + st.Muted.Render(fmt.Sprintf("%-9s", s.Name)) +
			gauge(st, sig[i], gaugeW) + fmt.Sprintf(" %4.2f  ", sig[i]) + wt
		if showContrib {
			line += st.Muted.Render(fmt.Sprintf(" →%4.2f", v.Weights[i]*sig[i]))
		}
		if sparkW > 0 {
			buf = v.Series[i].Tail(buf[:0], sparkW)
			line += "  " + st.Level(sig[i]).Render(chart.Sparkline(buf, sparkW, 1))
		}
		lines = append(lines, line)
	}
	adaptive := "off"
	if v.Adaptive {
		adaptive = "on"
	}
	formula := "CPS = Σ weight × signal · adaptive " + adaptive
	if showContrib {
		formula = "CPS = Σ weight × signal (→) · adaptive " + adaptive
	}
	lines = append(lines, st.Muted.Render(formula))
	_, ih := common.Inner(p.W, p.H)
	return strings.Join(append(lines, p.legendFor(w, ih, len(lines))...), "\n")
}

// legendFor returns the lines under the signals and the formula (above lines of them) in a
// body w x h cells: the bands' legend, then in the spare rows what the letters mean and what
// the CPS does. They depend on the size alone: drawn once for it.
func (p *Model) legendFor(w, h, above int) []string {
	if at := [3]int{w, h, above}; p.legend != nil && p.legendAt == at {
		return p.legend
	}
	bands := p.bands(w)
	legend := []string{bands}
	if h > 0 {
		used := above + strings.Count(bands, "\n") + 1
		for _, g := range glossary {
			g = common.Wrap(g, max(w, 1))
			if used+strings.Count(g, "\n")+1 > h {
				break
			}
			legend = append(legend, p.St.Muted.Render(g))
			used += strings.Count(g, "\n") + 1
		}
	}
	p.legend, p.legendAt = legend, [3]int{w, h, above}
	return legend
}

// bands is the legend of the state bands, each in its colour, on one line if it fits w cells,
// else on two, broken between bands.
func (p *Model) bands(w int) string {
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
