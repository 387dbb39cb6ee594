package tui

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/internal/ring"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/caption"
	"github.com/cortex-tui/cortex-tui/tui/chart"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/cps"
	"github.com/cortex-tui/cortex-tui/tui/decisions"
	"github.com/cortex-tui/cortex-tui/tui/eventlog"
	"github.com/cortex-tui/cortex-tui/tui/fleetpanel"
	"github.com/cortex-tui/cortex-tui/tui/header"
	"github.com/cortex-tui/cortex-tui/tui/help"
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

// The cells of the layout table that hold a component package's panel: each shows on a full
// redraw what the frame holds for it, and has its extent here.

// cellRun is what a cell showing run index i draws on msg: the frame and the run, when msg is
// a frame message that redraws what the cell shows (what; 0 for the runs' data alone, drawn on
// a full redraw only). When the frame has no run i it calls hide and returns a nil run.
func cellRun(msg tea.Msg, i int, what change, hide func()) (*frame, *run) {
	f, ok := msg.(frameMsg)
	if !ok || !f.shows(what) {
		return nil, nil
	}
	if i >= len(f.f.runs) {
		hide()
		return nil, nil
	}
	return f.f, f.f.runs[i]
}

// eventsCell places the event log of run index run: it shows the run's log on a full redraw
// and when a control was logged, and hands the log's keys to it.
type eventsCell struct {
	*eventlog.Model
	run int
}

// Update shows the run's log, or hands a key to the log.
func (c eventsCell) Update(msg tea.Msg) (eventsCell, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok {
		_, cmd := c.Model.Update(msg)
		return c, cmd
	}
	if !f.shows(changedLog) {
		return c, nil
	}
	title := "Events"
	if len(f.f.runs) > 1 && c.run < len(f.f.runs) {
		title += " · " + f.f.runs[c.run].meta.StrategyLabel()
	}
	if c.run >= len(f.f.runs) {
		c.Hide(title)
	} else {
		c.Show(f.f.runs[c.run].hist.Log(), title)
	}
	return c, nil
}

// summaryCell places the end-of-run summary: on a full redraw it shows the runs' summaries,
// then the baselines' beside a single run.
type summaryCell struct{ *summary.Model }

// Update shows the runs' summaries on a full redraw.
func (c summaryCell) Update(msg tea.Msg) (summaryCell, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok || !f.full() {
		return c, nil
	}
	if len(f.f.runs) == 0 {
		c.Show(source.Meta{}, nil, nil, "")
		return c, nil
	}
	sums := make([]report.Summary, len(f.f.runs))
	names := map[int][]string{}
	for i, r := range f.f.runs {
		sums[i] = r.rec.Summary()
		for prio, ns := range r.prioNames {
			for _, n := range ns {
				if !slices.Contains(names[prio], n) {
					names[prio] = append(names[prio], n)
				}
			}
		}
	}
	var extra []report.Summary
	about := ""
	if len(f.f.runs) == 1 {
		extra, about = f.f.baseline.Columns()
	}
	c.Show(f.f.runs[0].meta, append(sums, extra...), names, about)
	return c, nil
}

// helpCell places the full help: on a full redraw it learns whether the run is live traffic
// and whether the dashboard is part of a class.
type helpCell struct{ *help.Model }

// Update hands keys to the help and tells it, on a full redraw, whether the run is live and
// whether the dashboard is part of a class.
func (c helpCell) Update(msg tea.Msg) (helpCell, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok {
		if f.full() {
			c.SetMode(len(f.f.runs) > 0 && f.f.runs[0].meta.Live, f.f.class != nil)
		}
		return c, nil
	}
	_, cmd := c.Model.Update(msg)
	return c, cmd
}

// fleetCell places the fleet panel: on a full redraw it shows the first run's fleet.
type fleetCell struct{ *fleetpanel.Model }

// Update shows the first run's fleet and its latest CORTEX view on a full redraw.
func (c fleetCell) Update(msg tea.Msg) (fleetCell, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		if len(f.f.runs) == 0 {
			c.Show(nil, nil)
		} else {
			r := f.f.runs[0]
			c.Show(r.fleet, r.hist.Last.Cortex)
		}
	}
	return c, nil
}

// lessonCell places the lesson panel in the layout table: on a full redraw it shows the lesson
// the first run follows (blank for none; its row has no height then: lessonH).
type lessonCell struct{ *lessonpanel.Model }

// Update shows the frame's lesson on a full redraw.
func (c lessonCell) Update(msg tea.Msg) (lessonCell, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		if lr := f.f.lesson; lr != nil && len(f.f.runs) > 0 {
			next := ""
			if n := lr.nextLesson(); n != nil {
				next = n.Title
			}
			c.Show(lr.tr, f.f.runs[0].meta.Strategy, lr.showHint, next)
		} else {
			c.Show(nil, "", false, "")
		}
	}
	return c, nil
}

// fleetW is the fleet panel's width: none unless the dashboard shows one run in a fleet, and
// none in a window too narrow to leave the events 30 columns beside it and the decisions.
func (f *frame) fleetW(w, h int) int {
	if len(f.runs) != 1 || f.runs[0].fleet == nil {
		return 0
	}
	fw := min(max(w*3/10, 36), 46, w-decisionsW(w, h)-30)
	if fw < 28 {
		return 0
	}
	return fw
}

// lessonH is the height of the lesson panel's row: its border, the step's text (two lines in
// a tall window, one otherwise), the goals and the hint; none when no lesson is followed.
func (f *frame) lessonH(_, h int) int {
	switch {
	case f.lesson == nil:
		return 0
	case h >= 36:
		return 6
	}
	return 5
}

// sheddingCell places the shedding panel: it shows the first run's classes on a full redraw
// and when a class or the selection changed.
type sheddingCell struct{ *shedding.Model }

// Update shows the classes as set, the selected one and the first run's latest counts.
func (c sheddingCell) Update(msg tea.Msg) (sheddingCell, tea.Cmd) {
	if f, r := cellRun(msg, 0, changedClasses, c.Hide); r != nil {
		km := f.keyMap()
		c.Show(shedding.View{Classes: f.classes, Selected: f.selClass, Last: r.hist.Last, Tick: r.meta.Tick,
			Keys: common.KeyName(km.ClassUp) + "/" + common.KeyName(km.ClassDown)})
	}
	return c, nil
}

// decisionsCell places the decisions panel: it shows the first run's decisions on a full redraw.
type decisionsCell struct{ *decisions.Model }

// Update shows the first run's latest counts and totals on a full redraw.
func (c decisionsCell) Update(msg tea.Msg) (decisionsCell, tea.Cmd) {
	if _, r := cellRun(msg, 0, 0, c.Hide); r != nil {
		c.Show(r.hist.Last, r.hist.Totals(), r.meta.Tick)
	}
	return c, nil
}

// trafficCell places the traffic panel of run index run: it shows the run's series on a full
// redraw, on the scale of every run's series in compare mode.
type trafficCell struct {
	*traffic.Model
	run int
}

// Update shows the run's series, its service and its totals on a full redraw.
func (c trafficCell) Update(msg tea.Msg) (trafficCell, tea.Cmd) {
	f, r := cellRun(msg, c.run, 0, c.Hide)
	if r == nil {
		return c, nil
	}
	h := r.hist
	yMax := 0.0 // each its own scale, alone
	if len(f.runs) > 1 {
		// Compare mode: one scale for both sides, over the newest window-width seconds: more
		// than either half's chart shows (one point per column), so a peak just scrolled out
		// of view still sets it a while.
		yMax = trafficMax(f.runs, f.width)
	}
	c.Show(traffic.View{Service: h.Last.Service, Originals: h.Originals, Retries: h.Retries, Successes: h.Successes,
		Capacity: h.Capacity, Totals: h.Totals(), YMax: yMax, Last: h.LastSec, Spans: h.Spans()})
	return c, nil
}

// trafficMax is the largest value of the traffic series of every run over the last n points,
// rounded up: compare mode draws both traffic charts on this one scale.
func trafficMax(runs []*run, n int) float64 {
	top := 1.0
	var buf []float64
	for _, r := range runs {
		for _, s := range []*ring.Ring[float64]{r.hist.Originals, r.hist.Retries, r.hist.Successes, r.hist.Capacity} {
			buf = s.Tail(buf[:0], n)
			for _, v := range buf {
				top = max(top, v)
			}
		}
	}
	return chart.NiceCeil(top)
}

// cpsCell places the CPS panel of run index run: it shows the run's score on a full redraw.
type cpsCell struct {
	*cps.Model
	run int
}

// Update shows the run's CORTEX view and its per-second CPS on a full redraw.
func (c cpsCell) Update(msg tea.Msg) (cpsCell, tea.Cmd) {
	if _, r := cellRun(msg, c.run, 0, c.Hide); r != nil {
		c.Show(cps.View{Cortex: r.hist.Last.Cortex, Seen: r.hist.Seen, Strategy: r.meta.Strategy, CPS: r.hist.CPS,
			Last: r.hist.LastSec, Spans: r.hist.Spans()})
	}
	return c, nil
}

// queueCell places the queue panel: it shows the first run's queue on a full redraw.
type queueCell struct{ *queue.Model }

// Update shows the first run's service and its queue's per-second means on a full redraw.
func (c queueCell) Update(msg tea.Msg) (queueCell, tea.Cmd) {
	if _, r := cellRun(msg, 0, 0, c.Hide); r != nil {
		c.Show(queue.View{Service: r.hist.Last.Service, Seen: r.hist.Seen, Queue: r.hist.Queue, Last: r.hist.LastSec, Spans: r.hist.Spans()})
	}
	return c, nil
}

// statsCell places the key figures of run index run (compare mode): it shows them on a full
// redraw.
type statsCell struct {
	*stats.Model
	run int
}

// Update shows the run's figures on a full redraw.
func (c statsCell) Update(msg tea.Msg) (statsCell, tea.Cmd) {
	if _, r := cellRun(msg, c.run, 0, c.Hide); r != nil {
		c.Show(stats.View{Label: r.meta.StrategyLabel(), Cortex: r.hist.Last.Cortex, Totals: r.hist.Totals(),
			Peak: r.rec.PeakAmplification(), Service: r.hist.Last.Service.State})
	}
	return c, nil
}

// smallCell places the collapsed layout of a small window: it shows the first run on a full
// redraw and when the weights or their selection changed.
type smallCell struct{ *small.Model }

// Update shows the window's size and the first run's CPS, signals and figures.
func (c smallCell) Update(msg tea.Msg) (smallCell, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok || !f.shows(changedWeights) {
		return c, nil
	}
	v := small.View{WinW: f.f.width, WinH: f.f.height, FullW: minFullW, FullH: minFullH, Weights: f.f.weights, Selected: f.f.selWeight}
	if len(f.f.runs) > 0 {
		r := f.f.runs[0]
		v.Run, v.Cortex, v.CPS, v.Sig = true, r.hist.Last.Cortex, r.hist.CPS, r.hist.Sig
		v.Label, v.Service, v.Totals = r.meta.StrategyLabel(), r.hist.Last.Service, r.hist.Totals()
	}
	c.Show(v)
	return c, nil
}

// signalsCell places the signals panel: it shows the first run's signals on a full redraw and
// when the weights or their selection changed.
type signalsCell struct{ *signals.Model }

// Update shows the first run's signals, the weights as set and the selected one.
func (c signalsCell) Update(msg tea.Msg) (signalsCell, tea.Cmd) {
	if f, r := cellRun(msg, 0, changedWeights, c.Hide); r != nil {
		km := f.keyMap()
		c.Show(signals.View{Cortex: r.hist.Last.Cortex, Seen: r.hist.Seen, Strategy: r.meta.Strategy,
			Weights: f.weights, Selected: f.selWeight, Adaptive: f.adaptive, Series: r.hist.Sig,
			StrategyKey: common.KeyName(km.Strategy), CompareKey: common.KeyName(km.Compare)})
	}
	return c, nil
}

// captionCell places the caption: it shows the first run's note on a full redraw.
type captionCell struct{ *caption.Model }

// Update shows the first run's note (caption.Note) on a full redraw; none without a run.
func (c captionCell) Update(msg tea.Msg) (captionCell, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		var notes []string
		if len(f.f.runs) > 0 {
			notes = caption.Note(f.f.runs[0].hist, f.f.runs[0].meta.Summary, f.f.keyMap())
		}
		c.Show(notes...)
	}
	return c, nil
}

// headerCell places the header: it shows the first run (and the second's strategy) on a full
// redraw, when the speed or pause changed and when the class's roster did (the teacher's
// header counts the students following).
type headerCell struct{ *header.Model }

// Update shows the runs, the speed and pause and the dashboard's part in a class.
func (c headerCell) Update(msg tea.Msg) (headerCell, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok || !f.shows(changedPlay|changedRoster) {
		return c, nil
	}
	v := header.View{Speed: f.f.speed, Paused: f.f.paused, Slowed: f.f.slowed}
	v.Class = f.f.class.Header()
	if len(f.f.runs) > 0 {
		r := f.f.runs[0]
		last := r.hist.Last
		v.Scenario, v.T, v.Total, v.Done, v.Live = r.meta.Scenario, last.T, r.meta.Total, last.Done, r.meta.Live
		v.Cortex, v.Faults = last.Cortex, last.Faults
		if v.Live {
			v.Capped = r.hist.Totals().InFlightCapRefused
		}
		for _, r := range f.f.runs[:min(len(f.f.runs), 2)] {
			v.Strategies = append(v.Strategies, r.meta.StrategyLabel())
		}
	}
	c.Show(v)
	return c, nil
}

// menuCell places the strategy menu: on a full redraw it marks the strategy of the run it
// switches (the right side in compare mode).
type menuCell struct{ *strategymenu.Model }

// Update marks the run's strategy on a full redraw.
func (c menuCell) Update(msg tea.Msg) (menuCell, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() && len(f.f.runs) > 0 {
		c.Show(f.f.runs[len(f.f.runs)-1].meta.Strategy)
	}
	return c, nil
}

// rosterCell places the class roster on the teacher's screen: on a full redraw and when the
// roster changed it shows who is connected (its row has no height elsewhere: rosterH).
type rosterCell struct{ *roster.Model }

// Update shows the class's roster on a full redraw and when it changed.
func (c rosterCell) Update(msg tea.Msg) (rosterCell, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedRoster) {
		c.Show(f.f.class.Roster(), len(scenarios.Lessons()))
	}
	return c, nil
}

// rosterH is the height of the roster's row: its border and its lines of names on the
// teacher's screen of a class; none elsewhere, and none in a window under 30 rows (the header
// still counts the students following).
func (f *frame) rosterH(w, h int) int {
	if !f.class.Teacher() || h < 30 {
		return 0
	}
	return roster.Lines(f.class.Roster(), w) + 2
}
