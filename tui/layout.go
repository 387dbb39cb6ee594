package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/tui/caption"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/cps"
	"github.com/cortex-tui/cortex-tui/tui/decisions"
	"github.com/cortex-tui/cortex-tui/tui/eventlog"
	"github.com/cortex-tui/cortex-tui/tui/fleetpanel"
	"github.com/cortex-tui/cortex-tui/tui/header"
	"github.com/cortex-tui/cortex-tui/tui/help"
	"github.com/cortex-tui/cortex-tui/tui/inspector"
	"github.com/cortex-tui/cortex-tui/tui/lessonpanel"
	"github.com/cortex-tui/cortex-tui/tui/queue"
	"github.com/cortex-tui/cortex-tui/tui/roster"
	"github.com/cortex-tui/cortex-tui/tui/shedding"
	"github.com/cortex-tui/cortex-tui/tui/signals"
	"github.com/cortex-tui/cortex-tui/tui/small"
	"github.com/cortex-tui/cortex-tui/tui/stats"
	"github.com/cortex-tui/cortex-tui/tui/strategymenu"
	"github.com/cortex-tui/cortex-tui/tui/summary"
	"github.com/cortex-tui/cortex-tui/tui/traffic"
)

// layoutID names a screen of the layout table: what fills the window above the footer.
type layoutID int

const (
	layoutFull            layoutID = iota // the dashboard, from minFullW x minFullH
	layoutCompare                         // two runs side by side
	layoutSmall                           // the collapsed dashboard of a small window
	layoutSummary                         // the end of the run
	layoutHelp                            // the full help
	layoutInspect                         // the decision inspector
	layoutPresentTraffic                  // presenter mode: the traffic chart large
	layoutPresentCPS                      // presenter mode: the CPS chart large
	layoutPresentTraffic2                 // presenter mode in compare: both traffic charts
	layoutPresentCPS2                     // presenter mode in compare: both CPS charts
	layoutStrategyMenu                    // the strategy menu
	numLayouts
)

// Sizes of the layout, in cells.
const (
	minFullW = 80 // below this width or minFullH height the layout collapses to the essentials
	minFullH = 24
)

// newLayouts is the layout table: each screen's panels, top to bottom in rows and left to right
// in each row, with their sizes. Every panel is built here and placed here only: the root model
// sizes, redraws and joins them through the table, so a new panel is its own file plus an entry
// here. A panel may appear on several screens (the header); each screen's rows fill the window
// above the footer. A panel that is absent has no extent (the lesson's row without a lesson,
// the fleet's cell without a fleet: their extents read f, the frame), and compose leaves it
// out. The inspector and the strategy menu are the root model's (it opens them); the table
// places them.
func newLayouts(st common.Styles, keys keymap.KeyMap, insp *inspector.Model, menu *strategymenu.Model, f *frame) [numLayouts][]row {
	// presenter mode's caption is bigCaption, taller: a shared panel has one size
	header, caption, bigCaption := mount(headerCell{header.New(st)}), mount(captionCell{caption.New(st)}), mount(captionCell{caption.New(st)})
	return [numLayouts][]row{
		layoutFull: {
			{h: one, cells: whole(header)},
			{h: captionH, cells: whole(caption)},
			{h: f.lessonH, cells: whole(mount(lessonCell{lessonpanel.New(st, keys)}))},
			{h: f.rosterH, cells: whole(mount(rosterCell{roster.New(st)}))},
			{h: f.topH, cells: []cell{{p: mount(signalsCell{signals.New(st)}), w: signalsW}, {p: mount(queueCell{queue.New(st)}), w: f.queueW}, {p: mount(cpsCell{cps.New(st), 0})}}},
			{cells: []cell{{p: mount(trafficCell{traffic.New(st), 0})}, {p: mount(sheddingCell{shedding.New(st)}), w: sheddingW}}},
			{h: f.bottomH, cells: []cell{{p: mount(decisionsCell{decisions.New(st)}), w: decisionsW}, {p: mount(fleetCell{fleetpanel.New(st)}), w: f.fleetW}, {p: mount(eventsCell{eventlog.New(st, keys, controlText), 0})}}},
		},
		layoutCompare: {
			{h: one, cells: whole(header)},
			{h: captionH, cells: whole(caption)},
			{h: statsH, cells: halves(mount(statsCell{stats.New(st), 0}), mount(statsCell{stats.New(st), 1}))},
			{h: compareCPSH, cells: halves(mount(cpsCell{cps.New(st), 0}), mount(cpsCell{cps.New(st), 1}))},
			{cells: halves(mount(trafficCell{traffic.New(st), 0}), mount(trafficCell{traffic.New(st), 1}))},
			{h: compareEventsH, cells: halves(mount(eventsCell{eventlog.New(st, keys, controlText), 0}), mount(eventsCell{eventlog.New(st, keys, controlText), 1}))},
		},
		layoutSmall: {
			{h: one, cells: whole(header)},
			{cells: whole(mount(smallCell{small.New(st)}))},
		},
		layoutSummary: {{cells: whole(mount(summaryCell{summary.New(st, keys)}))}},
		layoutHelp:    {{cells: whole(mount(helpCell{help.New(st, keys)}))}},
		layoutInspect: {
			{h: one, cells: whole(header)},
			{cells: whole(mount(insp))},
		},
		layoutStrategyMenu: {
			{h: one, cells: whole(header)},
			{cells: whole(mount(menuCell{menu}))},
		},
		layoutPresentTraffic: {
			{h: one, cells: whole(header)},
			{h: presentCaptionH, cells: whole(bigCaption)},
			{cells: whole(mount(trafficCell{traffic.New(st), 0}))},
		},
		layoutPresentCPS: {
			{h: one, cells: whole(header)},
			{h: presentCaptionH, cells: whole(bigCaption)},
			{cells: whole(mount(cpsCell{cps.New(st), 0}))},
		},
		layoutPresentTraffic2: {
			{h: one, cells: whole(header)},
			{h: presentCaptionH, cells: whole(bigCaption)},
			{cells: halves(mount(trafficCell{traffic.New(st), 0}), mount(trafficCell{traffic.New(st), 1}))},
		},
		layoutPresentCPS2: {
			{h: one, cells: whole(header)},
			{h: presentCaptionH, cells: whole(bigCaption)},
			{cells: halves(mount(cpsCell{cps.New(st), 0}), mount(cpsCell{cps.New(st), 1}))},
		},
	}
}

// row is a band of panels of one height. A row without h takes the height the others leave.
type row struct {
	h      extent
	cells  []cell
	height int // as last laid out
}

// cell is a panel in a row. A cell without w takes the width the others leave.
type cell struct {
	p     panel
	w     extent
	width int // as last laid out
}

// extent is a size in cells for a window of w x h cells.
type extent func(w, h int) int

// whole is a row of one panel, the window's width.
func whole(p panel) []cell { return []cell{{p: p}} }

// halves is a row of two panels, each half the width (the right one takes the odd cell).
func halves(left, right panel) []cell {
	return []cell{{p: left, w: func(w, _ int) int { return w / 2 }}, {p: right}}
}

// The extents of the table. The full layout: header, caption (and the lesson, when one is
// followed), then signals and CPS on top (signals and the service's queue for a strategy
// without a CPS, in a shorter band), the traffic and shedding in the middle (the rest, and at
// least every class of the shedding panel), decisions (the fleet, when the run is in one) and
// events at the bottom (left out when the window cannot hold the rest).
func one(_, _ int) int { return 1 }

// captionH: the caption has two rows from 25 rows up (the body keeps the 21 rows every panel needs at
// 80x24, the smallest full window), so a note of up to two lines reads whole at 80 columns;
// at 24 rows it has one and a longer note ends in "…" (presenter mode shows it whole).
func captionH(_, h int) int {
	if h >= 25 {
		return 2
	}
	return 1
}

// bodyH is the height under the header and the caption, above the footer.
func bodyH(w, h int) int { return max(h-2-captionH(w, h), 0) }

func signalsW(w, _ int) int   { return min(max(w*2/5, 46), 72) }
func sheddingW(w, _ int) int  { return min(max(w*2/5, 40), 80) }
func decisionsW(w, _ int) int { return min(max(w/3, 36), 44) }

// The full layout's bands, in rows with their borders. A CPS chart needs 8 (five plot rows,
// so that 0, the three band thresholds and 1 each have a row of their own, the time axis and
// the border); the middle band the shedding panel's header, every class, the floor and the
// admission lines and
// the border, and a traffic chart of three rows under its legend.
const (
	topMinH       = 8
	plainTopMinH  = 6 // a strategy without a CPS: the signals' words and the queue's chart
	plainTopMaxH  = 9
	middleMinH    = 7
	bottomMinH    = 5
	bottomMaxH    = 12
	maxClassesFit = 12 // more classes than this scroll in the shedding panel
)

// bands returns the heights of the full layout's top, middle and bottom bands for a window
// w x h: the bottom takes 3/10 of the body (6 to 12 rows), the top half the rest, the middle
// what is left; when the middle cannot hold every class and its chart, the top and then the
// bottom shrink to their least, and then the bottom goes.
func (f *frame) bands(w, h int) (top, middle, bottom int) {
	body := max(bodyH(w, h)-f.lessonH(w, h), 0)
	need := min(max(len(f.classes), 1), maxClassesFit) + 5 // the header, the floor and admission lines, the border
	need = max(need, middleMinH)
	bottom = min(max(body*3/10, 6), bottomMaxH)
	topMin := topMinH
	if f.cortex() {
		top = max((body-bottom)/2+1, topMinH)
	} else {
		topMin = plainTopMinH
		top = min(max(body/4, plainTopMinH), plainTopMaxH)
	}
	if short := need - (body - top - bottom); short > 0 {
		cut := min(short, top-topMin)
		top -= cut
		short -= cut
		cut = min(short, max(bottom-bottomMinH, 0))
		bottom -= cut
		short -= cut
		if short > 0 {
			bottom = 0 // no room for the decisions and the events: the classes come first
		}
	}
	return top, max(body-top-bottom, 0), bottom
}

// topH and bottomH are the full layout's top and bottom bands (bands).
func (f *frame) topH(w, h int) int    { t, _, _ := f.bands(w, h); return t }
func (f *frame) bottomH(w, h int) int { _, _, b := f.bands(w, h); return b }

// queueW is the width of the service's queue chart: what the signals leave for a strategy
// without a CPS, which it replaces; none for the cortex strategies.
func (f *frame) queueW(w, h int) int {
	if f.cortex() {
		return 0
	}
	return max(w-signalsW(w, h), 0)
}

// cortex reports whether the first run's strategy has a CPS to show: its latest snapshot has
// a CORTEX view, or before any, its name is a cortex one.
func (f *frame) cortex() bool {
	if len(f.runs) == 0 {
		return true
	}
	r := f.runs[0]
	if r.hist.Seen {
		return r.hist.Last.Cortex != nil
	}
	return strings.HasPrefix(r.meta.Strategy, "cortex")
}

// Compare mode: each run's numbers, then its CPS chart, its traffic chart (the rest) and, when
// the window is tall enough, its event log.
func statsH(_, _ int) int { return 5 }

func compareEventsH(w, h int) int {
	if b := bodyH(w, h); b >= 34 {
		return min(b/5, 10)
	}
	return 0
}

func compareCPSH(w, h int) int {
	return max(bodyH(w, h)-statsH(w, h)-compareEventsH(w, h), 0) * 2 / 5
}

// layout gives every panel of every screen its size for the current window, from the table.
func (m *Model) layout() {
	m.laidCortex = m.fr.cortex()
	w, h := m.width, max(m.height-1, 0) // the footer takes the last line
	for id := range m.layouts {
		rows := m.layouts[id]
		left := h
		for i := range rows {
			if rows[i].h != nil {
				rows[i].height = max(rows[i].h(m.width, m.height), 0)
				left -= rows[i].height
			}
		}
		for i := range rows {
			if rows[i].h == nil {
				rows[i].height = max(left, 0)
			}
			sizeRow(&rows[i], w, m.height)
		}
	}
}

// sizeRow gives the cells of r their widths in a window w cells wide and h high.
func sizeRow(r *row, w, h int) {
	left := w
	for i := range r.cells {
		if c := &r.cells[i]; c.w != nil {
			c.width = max(c.w(w, h), 0)
			left -= c.width
		}
	}
	for i := range r.cells {
		c := &r.cells[i]
		if c.w == nil {
			c.width = max(left, 0)
		}
		c.p.SetSize(c.width, r.height)
	}
}

// current is the screen the window shows (the picker aside, which the root model draws alone).
func (m *Model) current() layoutID {
	switch {
	case m.showHelp:
		return layoutHelp
	case m.inspecting:
		return layoutInspect
	case m.menu.Opened():
		return layoutStrategyMenu
	case m.screen == screenSummary:
		return layoutSummary
	case m.fr.present != presentOff:
		return m.presentLayout()
	case m.fr.small:
		return layoutSmall
	case len(m.fr.runs) > 1:
		return layoutCompare
	}
	return layoutFull
}

// update sends msg to every panel of the current screen and returns their commands.
func (m *Model) update(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range m.layouts[m.current()] {
		for _, c := range r.cells {
			if cmd := c.p.Update(msg); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	return tea.Batch(cmds...)
}

// compose joins the cached views of the current screen's panels into the body (everything above
// the footer): each row side by side, the rows stacked; a row of no height is left out.
func (m *Model) compose() {
	rows := m.layouts[m.current()]
	blocks := make([]string, 0, len(rows))
	for _, r := range rows {
		if r.height <= 0 {
			continue
		}
		views := make([]string, 0, len(r.cells))
		widths := make([]int, 0, len(r.cells))
		for _, c := range r.cells {
			if c.width > 0 { // a cell of no width is left out (the fleet panel of a run alone)
				views = append(views, c.p.View())
				widths = append(widths, c.width)
			}
		}
		blocks = append(blocks, side(views, widths, r.height))
	}
	m.body = common.Fit(strings.Join(blocks, "\n"), m.width, max(m.height-1, 0))
	m.composed.Add(1)
}

// side joins the views of a row's cells left to right, each widths[i] cells wide, h lines
// high: a panel's view is exactly its size (common.Box and common.Fit make it so), so line y
// of the row is line y of each view in turn, with no measuring (lipgloss.JoinHorizontal
// measured every line, and JoinVertical every line again: a fifth of a frame); a view short of
// lines gets blank ones. compose's Fit of the whole body is what measures, once.
func side(views []string, widths []int, h int) string {
	if len(views) == 1 {
		return views[0]
	}
	lines := make([][]string, len(views))
	n := 0
	for i, v := range views {
		lines[i] = strings.SplitN(v, "\n", h+1)
		n += len(v) + h
	}
	var b strings.Builder
	b.Grow(n)
	for y := range h {
		if y > 0 {
			b.WriteByte('\n')
		}
		for i, ls := range lines {
			if y < len(ls) {
				b.WriteString(ls[y])
			} else {
				b.WriteString(strings.Repeat(" ", widths[i]))
			}
		}
	}
	return b.String()
}
