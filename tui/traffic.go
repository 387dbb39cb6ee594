package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cortex-tui/cortex-tui/internal/ring"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// trafficPanel charts originals, retries and successes per second against the service's
// capacity, so amplification shows as the gap between the lines, with the service state.
type trafficPanel struct {
	common.Base
	run                    int
	chart                  chart.Chart
	orig, retr, succ, capa []float64
	causes                 bool // the failure causes' line is shown (under the legend)
}

// newTraffic returns an empty traffic panel for run index run.
func newTraffic(st common.Styles, run int) *trafficPanel {
	return &trafficPanel{Base: common.Base{St: st}, run: run, chart: chart.NewLine(0, 0)}
}

// SetSize sets the outer size and resizes the chart to the space under the legend.
func (p *trafficPanel) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	p.resizeChart()
}

// resizeChart fits the chart under the legend and, when shown, the causes' line.
func (p *trafficPanel) resizeChart() {
	iw, ih := common.Inner(p.W, p.H)
	lines := 1
	if p.causes {
		lines = 2
	}
	p.chart.Resize(iw, ih-lines)
}

// Update redraws the panel on a full redraw.
func (p *trafficPanel) Update(msg tea.Msg) (*trafficPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		title, body := p.render(f.f)
		p.Rendered = common.Box(p.St, title, body, p.W, p.H)
	}
	return p, nil
}

func (p *trafficPanel) render(f *frame) (string, string) {
	st := p.St
	if p.run >= len(f.runs) {
		return "Traffic", ""
	}
	r := f.runs[p.run]
	h := r.hist
	svc := h.last.Service
	service, ampNow, ampRun := st.Service(svc.State), amplificationNow(h.originals.Last(), h.retries.Last()), h.totals().Amplification()
	now, all := common.FmtAmp(ampNow), common.FmtAmp(ampRun)
	queue := fmt.Sprintf(" · queue %d/%d", svc.Queue, svc.QueueLimit)
	if svc.Unmeasured { // your own service: its capacity and queue are not ours to know
		queue = ""
	}
	title := common.FitTitle(p.W,
		fmt.Sprintf("Traffic /s · service %s · amplification now %s, run %s%s", service, now, all, queue),
		fmt.Sprintf("Traffic /s · service %s · amplification now %s, run %s", service, now, all),
		fmt.Sprintf("Traffic /s · service %s · amplif. %s now, %s run", service, now, all),
		fmt.Sprintf("Traffic /s · %s · %s now, %s run", service, now, all),
		fmt.Sprintf("Traffic /s · %s · amplif. %s", service, now),
		fmt.Sprintf("Traffic /s · %s · %s", service, now),
		fmt.Sprintf("%s · %s", service, now))
	names := [4]string{"originals", "retries", "successes", "capacity"}
	iw, _ := common.Inner(p.W, p.H)
	if iw < 64 {
		names = [4]string{"orig", "retry", "ok", "cap"}
	}
	// The legend gives the last point of each line: the last whole simulated second (the
	// current capacity during the first second).
	capacity := svc.Capacity
	if h.capac.Len() > 0 {
		capacity = h.capac.Last()
	}
	values := [4]string{rate(h.originals.Last()), rate(h.retries.Last()), rate(h.successes.Last()), rate(capacity)}
	styles := [4]lipgloss.Style{st.Originals, st.Retries, st.Successes, st.Capacity}
	shown := 4 // the capacity last: left out for a service not ours to measure
	if svc.Unmeasured {
		shown = 3
	}
	var legend string
	for _, f := range []struct{ gap, mark string }{{"  ", " "}, {" ", " "}, {" ", ""}} { // narrower, tighter
		items := make([]string, shown)
		for i := range items {
			items[i] = styles[i].Render(string(trafficGlyphs[i]) + f.mark + names[i] + " " + values[i])
		}
		if legend = strings.Join(items, f.gap); ansi.StringWidth(legend) <= iw {
			break
		}
	}
	if q := " " + queue; queue != "" && !strings.Contains(title, "queue") && ansi.StringWidth(legend+q) <= iw {
		legend += st.Muted.Render(q)
	}
	// A live run says why its attempts failed, on a line of its own (the simulator's
	// failures have no cause to give: the line never shows there).
	causes := ""
	if m := report.FailureCauses(h.totals().FailureCauses); m != nil {
		causes = "\n" + ansi.Truncate(st.Muted.Render("failed: ")+report.CausesText(m), iw, "…")
	}
	if show := causes != ""; show != p.causes {
		p.causes = show
		p.resizeChart()
	}
	n := historyPoints
	p.orig = h.originals.Tail(p.orig[:0], n)
	p.retr = h.retries.Tail(p.retr[:0], n)
	p.succ = h.successes.Tail(p.succ[:0], n)
	p.capa = h.capac.Tail(p.capa[:0], n)
	yMax := 0.0 // each its own scale, alone
	if len(f.runs) > 1 {
		// Compare mode: one scale for both sides, over the newest window-width seconds: more
		// than either half's chart shows (one point per column), so a peak just scrolled out
		// of view still sets it a while.
		yMax = trafficMax(f.runs, f.width)
	}
	lines := []chart.Series{
		{Values: p.capa, Style: st.Capacity, Glyph: trafficGlyphs[3], Dotted: true},
		{Values: p.orig, Style: st.Originals, Glyph: trafficGlyphs[0]},
		{Values: p.retr, Style: st.Retries, Glyph: trafficGlyphs[1]},
		{Values: p.succ, Style: st.Successes, Glyph: trafficGlyphs[2]},
	}
	if svc.Unmeasured {
		lines = lines[1:]
	}
	chart := p.chart.Draw(chart.Spec{
		Lines:   lines,
		YMax:    yMax,
		Labels:  true,
		Format:  rate,
		Muted:   st.Muted,
		Seconds: true,
		Last:    h.lastSec,
		Spans:   h.spans(),
	})
	return title, legend + causes + "\n" + chart
}

// trafficGlyphs mark the lines of originals, retries, successes and capacity, on the chart and
// in the legend, so they read without colour (NO_COLOR): o, r, s on their lines, capacity
// dotted.
var trafficGlyphs = [4]rune{'o', 'r', 's', '·'}

// amplificationNow is attempts over originals in the last second: (originals + retries) /
// originals, 1 when nothing arrived.
func amplificationNow(originals, retries float64) float64 {
	if originals <= 0 {
		return 1
	}
	return (originals + retries) / originals
}

// trafficMax is the largest value of the traffic series of every run over the last n points,
// rounded up: compare mode draws both traffic charts on this one scale.
func trafficMax(runs []*run, n int) float64 {
	top := 1.0
	var buf []float64
	for _, r := range runs {
		for _, s := range []*ring.Ring[float64]{r.hist.originals, r.hist.retries, r.hist.successes, r.hist.capac} {
			buf = s.Tail(buf[:0], n)
			for _, v := range buf {
				top = max(top, v)
			}
		}
	}
	return chart.NiceCeil(top)
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
