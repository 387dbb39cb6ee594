package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// cpsPanel charts the CPS of one run over time (one point per simulated second) with the band
// thresholds (engine.BandStarts: 0.25, 0.50 and 0.75) drawn as dotted lines in their band colours.
type cpsPanel struct {
	common.Base
	run   int // which run of the frame (0, or 1 for the right side of compare)
	chart chart.Chart
	buf   []float64
}

// newCPS returns an empty CPS panel for run index run.
func newCPS(st common.Styles, run int) *cpsPanel {
	return &cpsPanel{Base: common.Base{St: st}, run: run, chart: chart.NewLine(0, 0)}
}

// SetSize sets the outer size and resizes the chart to the space under the title.
func (p *cpsPanel) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	iw, ih := common.Inner(w, h)
	p.chart.Resize(iw, ih)
}

// Update redraws the panel on a full redraw.
func (p *cpsPanel) Update(msg tea.Msg) (*cpsPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		title, body := p.render(f.f)
		p.Rendered = common.Box(p.St, title, body, p.W, p.H)
	}
	return p, nil
}

func (p *cpsPanel) render(f *frame) (string, string) {
	st := p.St
	if p.run >= len(f.runs) {
		return "CPS", ""
	}
	r := f.runs[p.run]
	cv := r.hist.last.Cortex
	if cv == nil {
		if r.hist.seen {
			iw, _ := common.Inner(p.W, p.H)
			text := fmt.Sprintf("%s: %s. It computes no pressure score (only cortex does): watch the traffic, retries against capacity.",
				r.meta.Strategy, strategy.Describe(r.meta.Strategy))
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
	p.buf = r.hist.cps.Tail(p.buf[:0], historyPoints)
	var marks []chart.Mark
	for i, y := range engine.BandStarts(engine.DefaultEmergencyThreshold) {
		// the line where band i+1 begins, in its own glyph, with its letter at the left end
		marks = append(marks, chart.Mark{Y: y, Style: st.Band[i+1], Glyph: bandGlyphs[i+1], Letter: bandLetter(engine.State(i + 1))})
	}
	body := p.chart.Draw(chart.Spec{
		Lines:   []chart.Series{{Values: p.buf, Style: st.CPSLine}},
		Marks:   marks,
		YMax:    1,
		Labels:  true,
		Format:  func(v float64) string { return fmt.Sprintf("%.2f", v) },
		Muted:   st.Muted,
		Seconds: true,
		Last:    r.hist.lastSec,
		Spans:   r.hist.spans(),
	})
	return title, body
}

// bandGlyphs draw the line where each band begins (DEGRADED, CRITICAL, EMERGENCY), so the three
// read apart without colour (NO_COLOR); HEALTHY begins at 0 and has none.
var bandGlyphs = [4]rune{0, '┈', '╌', '━'}

// bandLetter is a band's initial, H, D, C or E: at the left end of its line on the CPS chart
// and before its name in the legend.
func bandLetter(s engine.State) rune { return rune(s.String()[0]) }
