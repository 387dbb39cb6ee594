// Package queue is the dashboard's queue panel, a component of its own: the service's queue
// charted over time (one point per simulated second, the mean length) against its limit, for
// a strategy without a CPS, in the CPS chart's place. The queue is where a metastable failure
// lives (the work the service does for clients that have given up), and a number in a title
// does not show it build up or drain.
package queue

import (
	"fmt"
	"strconv"

	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// View is what the panel shows of a run: its latest service figures, whether a snapshot came,
// the queue's per-second means (newest last), the second of the newest point and the faults'
// spans to mark.
type View struct {
	Service source.Service
	Seen    bool
	Queue   *ring.Ring[float64]
	Last    int
	Spans   []chart.Span
}

// Model charts the service's queue against its limit. It is used from the Bubble Tea
// goroutine only.
type Model struct {
	common.Base
	chart chart.Chart
	buf   []float64
}

// New returns an empty queue panel drawn with st.
func New(st common.Styles) *Model {
	return &Model{Base: common.Base{St: st}, chart: chart.NewLine(0, 0)}
}

// SetSize sets the outer size and resizes the chart to the space inside the border.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	iw, ih := common.Inner(w, h)
	p.chart.Resize(iw, ih)
}

// Show redraws the panel from v.
func (p *Model) Show(v View) {
	title, body := p.render(v)
	p.Rendered = common.Box(p.St, title, body, p.W, p.H)
}

// Hide draws the panel without a run.
func (p *Model) Hide() { p.Rendered = common.Box(p.St, "Queue", "", p.W, p.H) }

func (p *Model) render(v View) (string, string) {
	if p.W <= 0 {
		return "Queue", ""
	}
	svc := v.Service
	iw, _ := common.Inner(p.W, p.H)
	say := func(s string) string { return p.St.Muted.Render(common.Wrap(s, max(iw, 1))) }
	if svc.Unmeasured {
		return "Queue", say("the service is your own (--target): its queue is not known here; the traffic shows what it answers")
	}
	if svc.QueueLimit <= 0 && svc.Queue == 0 && v.Seen {
		return "Queue", say("the service has no queue: an attempt that finds every worker busy is refused at once")
	}
	title := common.FitTitle(p.W,
		fmt.Sprintf("Service queue %d/%d · attempts waiting for a worker", svc.Queue, svc.QueueLimit),
		fmt.Sprintf("Service queue %d/%d", svc.Queue, svc.QueueLimit),
		fmt.Sprintf("Queue %d/%d", svc.Queue, svc.QueueLimit))
	p.buf = v.Queue.Tail(p.buf[:0], v.Queue.Len())
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
		Last:    v.Last,
		Spans:   v.Spans,
	})
	return title, body
}
