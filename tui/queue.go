package tui

import (
	"fmt"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/history"
)

// queuePanel charts the service's queue over time (one point per simulated second, the mean
// length) against its limit, for a strategy without a CPS, in the CPS chart's place: the
// queue is where a metastable failure lives (the work the service does for clients that have
// given up), and a number in a title does not show it build up or drain.
type queuePanel struct {
	common.Base
	run   int
	chart chart.Chart
	buf   []float64
}

// newQueue returns an empty queue panel for run index run.
func newQueue(st common.Styles, run int) *queuePanel {
	return &queuePanel{Base: common.Base{St: st}, run: run, chart: chart.NewLine(0, 0)}
}

// SetSize sets the outer size and resizes the chart to the space inside the border.
func (p *queuePanel) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	iw, ih := common.Inner(w, h)
	p.chart.Resize(iw, ih)
}

// Update redraws the panel on a full redraw.
func (p *queuePanel) Update(msg tea.Msg) (*queuePanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		title, body := p.render(f.f)
		p.Rendered = common.Box(p.St, title, body, p.W, p.H)
	}
	return p, nil
}

func (p *queuePanel) render(f *frame) (string, string) {
	if p.run >= len(f.runs) || p.W <= 0 {
		return "Queue", ""
	}
	r := f.runs[p.run]
	svc := r.hist.Last.Service
	iw, _ := common.Inner(p.W, p.H)
	say := func(s string) string { return p.St.Muted.Render(common.Wrap(s, max(iw, 1))) }
	if svc.Unmeasured {
		return "Queue", say("the service is your own (--target): its queue is not known here; the traffic shows what it answers")
	}
	if svc.QueueLimit <= 0 && svc.Queue == 0 && r.hist.Seen {
		return "Queue", say("the service has no queue: an attempt that finds every worker busy is refused at once")
	}
	title := common.FitTitle(p.W,
		fmt.Sprintf("Service queue %d/%d · attempts waiting for a worker", svc.Queue, svc.QueueLimit),
		fmt.Sprintf("Service queue %d/%d", svc.Queue, svc.QueueLimit),
		fmt.Sprintf("Queue %d/%d", svc.Queue, svc.QueueLimit))
	p.buf = r.hist.Queue.Tail(p.buf[:0], history.Points)
	ymax := 0.0
	var marks []chart.Mark
	if lim := float64(svc.QueueLimit); lim > 0 {
		ymax = lim
		marks = append(marks, chart.Mark{Y: lim, Style: p.St.Band[3], Glyph: '━'})
	}
	body := p.chart.Draw(chart.Spec{
		Lines:   []chart.Series{{Values: p.buf, Style: p.St.CPSLine}},
		Marks:   marks,
		YMax:    ymax,
		Labels:  true,
		Format:  func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) },
		Muted:   p.St.Muted,
		Seconds: true,
		Last:    r.hist.LastSec,
		Spans:   r.hist.Spans(),
	})
	return title, body
}
