// Package cps is the dashboard's CPS panel, a component of its own: a run's Composite Pressure
// Score over time, one point per second, with the band thresholds drawn across it, and the
// score, floor and circuit in its title.
package cps

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model charts the CPS of one run over time (one point per simulated second) with the band
// thresholds (engine.BandStarts: 0.25, 0.50 and 0.75) drawn as dotted lines in their band
// colours. It is used from the Bubble Tea goroutine only.
type Model struct {
	common.Base
	// Chart is what the panel draws its line through (chart.NewLine; a test may count draws).
	Chart chart.Chart
	buf   []float64
}

// View is what the panel shows of a run: its latest CORTEX view (nil for a strategy without
// one), whether a snapshot arrived yet, its strategy, its per-second CPS (newest last), the
// second of the newest point and the faults' spans to mark.
type View struct {
	Cortex   *source.CortexView
	Seen     bool
	Strategy string
	CPS      *ring.Ring[float64]
	Last     int
	Spans    []chart.Span
}

// New returns an empty CPS panel drawn with st.
func New(st common.Styles) *Model {
	return &Model{Base: common.Base{St: st}, Chart: chart.NewLine(0, 0)}
}

// SetSize sets the outer size and resizes the chart to the space under the title.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	iw, ih := common.Inner(w, h)
	p.Chart.Resize(iw, ih)
}

// Update does nothing: the panel draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Hide draws the panel without a run: its title and an empty box.
func (p *Model) Hide() { p.Draw("CPS", "") }

// Show draws v.
func (p *Model) Show(v View) { p.Draw(p.render(v)) }

func (p *Model) render(v View) (string, string) {
	st := p.St
	cv := v.Cortex
	if cv == nil {
		if v.Seen {
			iw, _ := common.Inner(p.W, p.H)
			text := fmt.Sprintf("%s: %s. It computes no pressure score (only cortex does): watch the traffic, retries against capacity.",
				v.Strategy, strategy.Describe(v.Strategy))
			return "CPS", st.Muted.Render(ansi.Wordwrap(text, max(iw, 1), " "))
		}
		return "CPS", ""
	}
	circuit := cv.Circuit.String()
	if cv.Open > 0 {
		circuit += fmt.Sprintf(" (%d open)", cv.Open)
	}
	cps := st.BandOf(cv.State).Render(common.FmtCPS(cv.CPS))
	title := common.FitTitle(p.W,
		fmt.Sprintf("CPS %s · floor %d · circuit %s · clients %s..%s", cps, cv.Floor, circuit, common.FmtCPS(cv.CPSMin), common.FmtCPS(cv.CPSMax)),
		fmt.Sprintf("CPS %s · floor %d · circuit %s", cps, cv.Floor, circuit),
		fmt.Sprintf("CPS %s · floor %d", cps, cv.Floor))
	p.buf = v.CPS.Tail(p.buf[:0], v.CPS.Len())
	var marks []chart.Mark
	for i, y := range engine.BandStarts(engine.DefaultEmergencyThreshold) {
		// the line where band i+1 begins, in its own glyph, with its letter at the left end
		marks = append(marks, chart.Mark{Y: y, Style: st.Band[i+1], Glyph: BandGlyphs[i+1], Letter: BandLetter(engine.State(i + 1))})
	}
	body := p.Chart.Draw(chart.Spec{
		Lines:   []chart.Series{{Values: p.buf, Style: st.CPSLine}},
		Marks:   marks,
		YMax:    1,
		Labels:  true,
		Format:  func(v float64) string { return fmt.Sprintf("%.2f", v) },
		Muted:   st.Muted,
		Seconds: true,
		Last:    v.Last,
		Spans:   v.Spans,
	})
	return title, body
}

// BandGlyphs draw the line where each band begins (DEGRADED, CRITICAL, EMERGENCY), so the three
// read apart without colour (NO_COLOR); HEALTHY begins at 0 and has none.
var BandGlyphs = [4]rune{0, '┈', '╌', '━'}

// BandLetter is a band's initial, H, D, C or E: at the left end of its line on the CPS chart
// and before its name in the legend.
func BandLetter(s engine.State) rune { return rune(s.String()[0]) }
