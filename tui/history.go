package tui

import (
	"time"

	"github.com/cortex-tui/cortex-tui/internal/ring"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/chart"
)

// historyPoints is how many per-second points a history keeps: more than the widest chart
// shows (one point per column, and charts are narrower than the 250-column windows tested), so
// memory stays flat however long the run.
const historyPoints = 600

// maxEvents is how many event-log lines a history keeps.
const maxEvents = 200

// history is what the dashboard remembers of one run: its recorder, bounded per-second series
// for the charts, the latest snapshot and the newest events. Snapshots go in with add; it is
// owned by the Update loop and not safe for concurrent use.
//
// The recorder (the run's, also used for the summary and the export) does the summing, once per
// snapshot, with report's Accumulator: add feeds it and pushes each second it closes into the
// rings, unrounded (the timeline rows round the same sums), and the panels read the run's totals
// and peak amplification from it in O(1) and O(log n). The rings keep the last historyPoints
// seconds; the recorder's rows are the whole run, as the export needs them.
type history struct {
	rec  *report.Recorder
	last source.Snapshot
	seen bool // at least one snapshot arrived

	// Per-second series, one point per simulated second: counts as rates over the time the
	// second's ticks cover, gauges averaged (CPS and signals over the ticks CORTEX ran).
	cps                                  *ring.Ring[float64]
	sig                                  [5]*ring.Ring[float64] // F L Q B C
	originals, retries, successes, capac *ring.Ring[float64]
	queue                                *ring.Ring[float64] // the service's queue, mean over the second

	events []source.Event
	// lastSec is the second of the newest point of the series (-1 before the first).
	lastSec int
	// faults are the latest faults' spans in whole seconds, for the charts' marks: each
	// started (injected or from the timeline), and ended or cleared (To -1 while active).
	faults []faultSpan
	// pending are controls applied while paused, shown until the next snapshot brings the
	// source's own events for them.
	pending []source.Event
}

// newSeries returns an empty per-second series: a ring of the newest historyPoints points.
func newSeries() *ring.Ring[float64] {
	r := ring.New[float64](historyPoints)
	return &r
}

// newHistory returns an empty history that sums into rec.
func newHistory(rec *report.Recorder) *history {
	h := &history{
		rec: rec,
		cps: newSeries(), originals: newSeries(), retries: newSeries(),
		successes: newSeries(), capac: newSeries(), queue: newSeries(),
	}
	for i := range h.sig {
		h.sig[i] = newSeries()
	}
	h.lastSec = -1
	return h
}

// maxFaultSpans is how many fault spans a history keeps for the charts' marks.
const maxFaultSpans = 32

// faultSpan is when a fault of a kind was on, in whole seconds of the run.
type faultSpan struct {
	kind scenarios.FaultKind
	chart.Span
}

// noteFault takes a fault event into the spans: a start opens one, an end or a clearing closes
// the open span of its kind.
func (h *history) noteFault(e source.Event) {
	sec := int(e.T / time.Second)
	switch e.Fault.Change {
	case source.FaultStarted:
		h.faults = append(h.faults, faultSpan{kind: e.Fault.Kind, Span: chart.Span{From: sec, To: -1}})
		if over := len(h.faults) - maxFaultSpans; over > 0 {
			h.faults = append(h.faults[:0], h.faults[over:]...)
		}
	case source.FaultEnded, source.FaultCleared:
		for i := len(h.faults) - 1; i >= 0; i-- {
			if f := &h.faults[i]; f.kind == e.Fault.Kind && f.To < 0 {
				f.To = sec
				break
			}
		}
	}
}

// spans returns the fault spans for a chart's marks.
func (h *history) spans() []chart.Span {
	out := make([]chart.Span, len(h.faults))
	for i, f := range h.faults {
		out[i] = f.Span
	}
	return out
}

// add takes one snapshot into the history and its recorder. The last snapshot of a run (Done)
// pushes the second in progress too, whole or not: no tick comes after it.
func (h *history) add(s source.Snapshot) {
	if sec, ok := h.rec.Add(s); ok {
		h.push(sec)
	}
	if s.Done {
		if sec, ok := h.rec.Current(); ok {
			h.push(sec)
		}
	}
	h.last, h.seen = s, true
	h.pending = nil
	for _, e := range s.Events {
		h.addEvent(e)
		if e.Kind == source.EventFault {
			h.noteFault(e)
		}
	}
}

// totals returns the run's counters so far.
func (h *history) totals() report.Totals { return h.rec.Totals() }

// addEvent appends e to the log. Circuit events of the same simulated second replace each other
// (a fleet's breakers flap many times a second; the log keeps the latest count per second).
func (h *history) addEvent(e source.Event) {
	if n := len(h.events); n > 0 && e.Kind == source.EventCircuit {
		last := &h.events[n-1]
		if last.Kind == source.EventCircuit && last.T/time.Second == e.T/time.Second {
			*last = e
			return
		}
	}
	h.events = append(h.events, e)
	if over := len(h.events) - maxEvents; over > 0 {
		h.events = append(h.events[:0], h.events[over:]...)
	}
}

// log returns the event log as shown: the events, then the pending controls.
func (h *history) log() []source.Event {
	if len(h.pending) == 0 {
		return h.events
	}
	return append(append([]source.Event(nil), h.events...), h.pending...)
}

// push adds a second's point to every series: counts per second of the time its ticks cover (a
// partial last second as a rate), gauges averaged over its ticks.
func (h *history) push(sec report.Second) {
	perSecond := 1.0
	if sec.Dt > 0 {
		perSecond = float64(time.Second) / float64(sec.Dt)
	}
	var cps float64
	var sig [5]float64
	if n := float64(sec.CortexTicks); n > 0 {
		cps = sec.CPS / n
		sig = [5]float64{sec.Signals.F / n, sec.Signals.L / n, sec.Signals.Q / n, sec.Signals.B / n, sec.Signals.C / n}
	}
	h.lastSec = sec.T
	h.cps.Keep(cps)
	for i := range h.sig {
		h.sig[i].Keep(sig[i])
	}
	c := sec.Counts
	h.originals.Keep(float64(c.Originals) * perSecond)
	h.retries.Keep(float64(c.Retries) * perSecond)
	h.successes.Keep(float64(c.Successes) * perSecond)
	h.capac.Keep(sec.Capacity / float64(max(sec.Ticks, 1)))
	h.queue.Keep(sec.Queue / float64(max(sec.Ticks, 1)))
}
