// Package traffic is the dashboard's traffic panel, a component of its own: a run's originals,
// retries and successes per second charted against the service's capacity, so that
// amplification shows as the gap between the lines, with the service's state and queue.
package traffic

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model charts originals, retries and successes per second against the service's capacity,
// so amplification shows as the gap between the lines, with the service state. It is used from
// the Bubble Tea goroutine only.
type Model struct {
	common.Base
	// Chart is what the panel draws its lines through (chart.NewLine; a test may count draws).
	Chart                  chart.Chart
	orig, retr, succ, capa []float64
	causes                 bool // the failure causes' line is shown (under the legend)
}

// View is what the panel shows of a run: its latest service figures, its per-second series
// (one point per second, newest last), its totals so far, the chart's top (0: the series' own
// scale; compare mode gives both sides one), the second of the newest point and the faults'
// spans to mark.
type View struct {
	Service                                 source.Service
	Originals, Retries, Successes, Capacity *ring.Ring[float64]
	Totals                                  report.Totals
	YMax                                    float64
	Last                                    int
	Spans                                   []chart.Span
}

// New returns an empty traffic panel drawn with st.
func New(st common.Styles) *Model {
	return &Model{Base: common.Base{St: st}, Chart: chart.NewLine(0, 0)}
}

// SetSize sets the outer size and resizes the chart to the space under the legend.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	p.resizeChart()
}

// resizeChart fits the chart under the legend and, when shown, the causes' line.
func (p *Model) resizeChart() {
	iw, ih := common.Inner(p.W, p.H)
	lines := 1
	if p.causes {
		lines = 2
	}
	p.Chart.Resize(iw, ih-lines)
}

// Update does nothing: the panel draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Hide draws the panel without a run: its title and an empty box.
func (p *Model) Hide() { p.Draw("Traffic", "") }

// Show draws v.
func (p *Model) Show(v View) { p.Draw(p.render(v)) }

func (p *Model) render(v View) (string, string) {
	st := p.St
	svc := v.Service
	service, ampNow, ampRun := st.ServiceOf(svc), amplificationNow(v.Originals.Last(), v.Retries.Last()), v.Totals.Amplification()
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
	if v.Capacity.Len() > 0 {
		capacity = v.Capacity.Last()
	}
	values := [4]string{common.FmtRate(v.Originals.Last()), common.FmtRate(v.Retries.Last()), common.FmtRate(v.Successes.Last()), common.FmtRate(capacity)}
	styles := [4]lipgloss.Style{st.Originals, st.Retries, st.Successes, st.Capacity}
	shown := 4 // the capacity last: left out for a service not ours to measure
	if svc.Unmeasured {
		shown = 3
	}
	// Narrower, tighter: one space between the items, then the capacity's name left out (its
	// dotted glyph says it), then every name: the glyph keeps its space before the word or the
	// value, never glued to it ("oorig 473" read as a typo on a projector).
	var legend string
	for _, f := range []struct {
		gap   string
		names int // how many items keep their name
	}{{"  ", 4}, {" ", 4}, {" ", 3}, {" ", 0}} {
		items := make([]string, shown)
		for i := range items {
			text := string(Glyphs[i]) + " " + values[i]
			if i < f.names {
				text = string(Glyphs[i]) + " " + names[i] + " " + values[i]
			}
			items[i] = styles[i].Render(text)
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
	if m := report.FailureCauses(v.Totals.FailureCauses); m != nil {
		causes = "\n" + ansi.Truncate(st.Muted.Render("failed: ")+report.CausesText(m), iw, "…")
	}
	if show := causes != ""; show != p.causes {
		p.causes = show
		p.resizeChart()
	}
	p.orig = v.Originals.Tail(p.orig[:0], v.Originals.Len())
	p.retr = v.Retries.Tail(p.retr[:0], v.Retries.Len())
	p.succ = v.Successes.Tail(p.succ[:0], v.Successes.Len())
	p.capa = v.Capacity.Tail(p.capa[:0], v.Capacity.Len())
	lines := []chart.Series{
		{Values: p.capa, Style: st.Capacity, Glyph: Glyphs[3], Dotted: true},
		{Values: p.orig, Style: st.Originals, Glyph: Glyphs[0]},
		{Values: p.retr, Style: st.Retries, Glyph: Glyphs[1]},
		{Values: p.succ, Style: st.Successes, Glyph: Glyphs[2]},
	}
	if svc.Unmeasured {
		lines = lines[1:]
	}
	chart := p.Chart.Draw(chart.Spec{
		Lines:   lines,
		YMax:    v.YMax,
		Labels:  true,
		Format:  common.FmtRate,
		Muted:   st.Muted,
		Seconds: true,
		Last:    v.Last,
		Spans:   v.Spans,
	})
	return title, legend + causes + "\n" + chart
}

// Glyphs mark the lines of originals, retries, successes and capacity, on the chart and in the
// legend, so they read without colour (NO_COLOR): o, r, s on their lines, capacity dotted.
var Glyphs = [4]rune{'o', 'r', 's', '·'}

// amplificationNow is attempts over originals in the last second: (originals + retries) /
// originals, 1 when nothing arrived.
func amplificationNow(originals, retries float64) float64 {
	if originals <= 0 {
		return 1
	}
	return (originals + retries) / originals
}
