package tui

import (
	"fmt"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/history"
)

// controller owns the runs the dashboard watches and every call to their sources: it builds
// sources through the factory, replaces and closes runs, advances them in a command, and holds
// the calls that wait for the advance in flight (whenIdle), so that Update never waits for a
// source's lock. The frame shows its runs to the panels: frame.runs is the controller's list,
// set by set only. It is used from the Bubble Tea goroutine only.
type controller struct {
	factory  SourceFactory
	fr       *frame   // whose runs it sets
	gen      int      // bumped whenever the runs are reset or replaced: older advances are dropped
	inFlight bool     // an advance command is running
	pending  []func() // the calls waiting for it to return
}

// set replaces the runs (a new generation).
func (c *controller) set(runs ...*run) {
	c.gen++
	c.fr.runs = runs
}

// build calls the factory, turning a missing factory or a panic into an error.
func (c *controller) build(scn scenarios.Scenario, strat string, seed int64) (src source.Source, err error) {
	if c.factory == nil {
		return nil, fmt.Errorf("no source factory: the dashboard cannot run %q", scn.Name)
	}
	defer func() {
		if r := recover(); r != nil {
			src, err = nil, fmt.Errorf("building %s with %s panicked: %v", scn.Name, strat, r)
		}
	}()
	src, err = c.factory(scn, strat, seed)
	if err == nil && src == nil {
		err = fmt.Errorf("the factory returned no source for %s with %s", scn.Name, strat)
	}
	return src, err
}

// closeAll closes every run's source (once no advance is in flight).
func (c *controller) closeAll() {
	runs := c.fr.runs
	c.whenIdle(func() {
		for _, r := range runs {
			_ = r.src.Close()
		}
	})
}

// whenIdle runs fn now, or after the advance in flight returns. Every call from Update to a
// source goes through it (controls, restart, close), so Update never waits for a source's lock
// while an advance steps it: a key is handled at once, and takes effect at the next frame.
func (c *controller) whenIdle(fn func()) {
	if c.inFlight {
		c.pending = append(c.pending, fn)
		return
	}
	fn()
}

// send applies control ctl to every run (both sides of compare) once no advance is in flight
// (whenIdle); the first run that refuses it stops it there and fails, when fail is set, is told why.
func (c *controller) send(ctl source.ControlEvent, fail func(error)) {
	runs := c.fr.runs
	c.whenIdle(func() {
		for _, r := range runs {
			if err := r.src.Control(ctl); err != nil {
				if fail != nil {
					fail(err)
				}
				return
			}
		}
	})
}

// pause pauses or resumes the sources that run on their own (live traffic): the others
// stop because they are no longer advanced.
func (c *controller) pause(on bool) {
	runs := c.fr.runs
	c.whenIdle(func() {
		for _, r := range runs {
			if p, ok := r.src.(source.Pauser); ok {
				p.SetPaused(on)
			}
		}
	})
}

// advance starts an advance command of every run by d (stop: guidedStop's test, or nil).
func (c *controller) advance(d time.Duration, stop func(source.Snapshot) bool) tea.Cmd {
	c.inFlight = true
	srcs := make([]source.Source, len(c.fr.runs))
	for i, r := range c.fr.runs {
		srcs[i] = r.src
	}
	return advanceUntil(srcs, d, c.fr.runs[0].meta.Tick, c.gen, stop)
}

// advanced says that the advance in flight returned, and hands back the calls that waited for
// it, for the caller to make once it has taken the snapshots in.
func (c *controller) advanced() []func() {
	c.inFlight = false
	pending := c.pending
	c.pending = nil
	return pending
}

// done reports whether every run is over.
func (c *controller) done() bool {
	for _, r := range c.fr.runs {
		if !r.hist.Last.Done {
			return false
		}
	}
	return len(c.fr.runs) > 0
}

// run is one source being watched, with what the dashboard remembers of it.
type run struct {
	src   source.Source
	meta  source.Meta
	fleet *source.FleetMeta // the fleet the run's engines join (source.Fleet); nil for none
	rec   *report.Recorder  // the run's record: its seconds and totals, the summary, the export
	hist  *history.History  // the dashboard's view of it: chart series, last snapshot, event log
	// prioNames are the names of the classes that had each priority at some time of the run
	// (a class whose priority was changed with { } counts under both), for the summary.
	prioNames map[int][]string
}

// newRun wraps src.
func newRun(src source.Source) *run {
	r := &run{src: src, prioNames: map[int][]string{}}
	r.syncMeta()
	r.rec = report.NewRecorder(r.meta)
	r.hist = history.New(r.rec)
	return r
}

// syncMeta takes the source's metadata again (after a change of strategy or a restart), with
// its texts made inert: this and add are where a source's text enters the dashboard.
func (r *run) syncMeta() {
	r.meta = common.CleanMeta(r.src.Meta())
	r.fleet = nil
	if f, ok := r.src.(source.Fleet); ok {
		r.fleet = common.CleanFleet(f.Fleet())
	}
}

// add takes one snapshot, its texts made inert, into the history, which sums it into the
// recorder: one sum for the charts, the panels' figures, the summary and the export.
func (r *run) add(s source.Snapshot) {
	common.CleanSnapshot(&s)
	r.hist.Add(s)
	for i, c := range s.Classes {
		if i < len(r.meta.Classes) && !slices.Contains(r.prioNames[c.Priority], r.meta.Classes[i].Name) {
			r.prioNames[c.Priority] = append(r.prioNames[c.Priority], r.meta.Classes[i].Name)
		}
	}
}

// reset forgets the run's data (after a restart or a strategy switch).
func (r *run) reset() {
	r.syncMeta()
	r.rec = report.NewRecorder(r.meta)
	r.hist = history.New(r.rec)
	r.prioNames = map[int][]string{}
}
