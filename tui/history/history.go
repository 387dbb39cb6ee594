// Package history is what the dashboard remembers of one run: its recorder, bounded per-second
// series for the charts, the latest snapshot, the newest events and the faults' spans. The
// root model adds each snapshot; the panels read the series and figures. It depends on report,
// source, scenarios and the chart package's spans only.
package history

import (
	"time"

	"github.com/cortex-tui/cortex-tui/internal/ring"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/chart"
)

// Points is how many per-second points a history keeps: more than the widest chart
// shows (one point per column, and charts are narrower than the 250-column windows tested), so
// memory stays flat however long the run.
const Points = 600

// MaxEvents is how many event-log lines a history keeps.
const MaxEvents = 200

// history is what the dashboard remembers of one run: its recorder, bounded per-second series
// for the charts, the latest snapshot and the newest events. Snapshots go in with add; it is
// owned by the Update loop and not safe for concurrent use.
//
// The recorder (the run's, also used for the summary and the export) does the summing, once per
// snapshot, with report's Accumulator: Add feeds it and pushes each second it closes into the
// rings, unrounded (the timeline rows round the same sums), and the panels read the run's totals
// and peak amplification from it in O(1) and O(log n). The rings keep the last historyPoints
// seconds; the recorder's rows are the whole run, as the export needs them.
type History struct {
	Rec  *report.Recorder // the run's recorder, which Add sums into
	Last source.Snapshot  // the latest snapshot
	Seen bool             // at least one snapshot arrived

	// Per-second series, one point per simulated second: counts as rates over the time the
	// second's ticks cover, gauges averaged (CPS and signals over the ticks CORTEX ran).
	CPS                                     *ring.Ring[float64]
	Sig                                     [5]*ring.Ring[float64] // F L Q B C
	Originals, Retries, Successes, Capacity *ring.Ring[float64]    // attempts per second, and the capacity
	Queue                                   *ring.Ring[float64]    // the service's queue, mean over the second

	// Events are the newest events, at most MaxEvents, oldest first.
	Events []source.Event
	// LastSec is the second of the newest point of the series (-1 before the first).
	LastSec int
	// faults are the latest faults' spans in whole seconds, for the charts' marks: each
	// started (injected or from the timeline), and ended or cleared (To -1 while active).
	faults []faultSpan
	// Pending are controls applied while paused, shown until the next snapshot brings the
	// source's own events for them.
	Pending []source.Event
}

// newSeries returns an empty per-second series: a ring of the newest Points points.
func newSeries() *ring.Ring[float64] {
	r := ring.New[float64](Points)
	return &r
}

// New returns an empty history that sums into rec.
func New(rec *report.Recorder) *History {
	h := &History{
		Rec: rec,
		CPS: newSeries(), Originals: newSeries(), Retries: newSeries(),
		Successes: newSeries(), Capacity: newSeries(), Queue: newSeries(),
	}
	for i := range h.Sig {
		h.Sig[i] = newSeries()
	}
	h.LastSec = -1
	return h
}

// maxFaultSpans is how many fault spans a history keeps for the charts' marks.
const maxFaultSpans = 32

// faultSpan is when a fault of a kind was on, in whole seconds of the run, and the run time it
// began at.
type faultSpan struct {
	kind scenarios.FaultKind
	at   time.Duration
	chart.Span
}

// noteFault takes a fault event into the spans: a start opens one, an end or a clearing closes
// the open span of its kind.
func (h *History) noteFault(e source.Event) {
	sec := int(e.T / time.Second)
	switch e.Fault.Change {
	case source.FaultStarted:
		h.faults = append(h.faults, faultSpan{kind: e.Fault.Kind, at: e.T, Span: chart.Span{From: sec, To: -1}})
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

// Since returns the run time the open span of a fault of kind began at (its start event's, as
// the event log shows it), false when none is open.
func (h *History) Since(kind scenarios.FaultKind) (time.Duration, bool) {
	for i := len(h.faults) - 1; i >= 0; i-- {
		if f := h.faults[i]; f.kind == kind && f.To < 0 {
			return f.at, true
		}
	}
	return 0, false
}

// Spans returns the fault spans for a chart's marks.
func (h *History) Spans() []chart.Span {
	out := make([]chart.Span, len(h.faults))
	for i, f := range h.faults {
		out[i] = f.Span
	}
	return out
}

// Add takes one snapshot into the history and its recorder. The last snapshot of a run (Done)
// pushes the second in progress too, whole or not: no tick comes after it.
func (h *History) Add(s source.Snapshot) {
	if sec, ok := h.Rec.Add(s); ok {
		h.push(sec)
	}
	if s.Done {
		if sec, ok := h.Rec.Current(); ok {
			h.push(sec)
		}
	}
	h.Last, h.Seen = s, true
	h.Pending = nil
	for _, e := range s.Events {
		h.AddEvent(e)
		if e.Kind == source.EventFault {
			h.noteFault(e)
		}
	}
}

// Totals returns the run's counters so far.
func (h *History) Totals() report.Totals { return h.Rec.Totals() }

// AddEvent appends e to the log. Circuit events of the same simulated second replace each other
// (a fleet's breakers flap many times a second; the log keeps the latest count per second).
func (h *History) AddEvent(e source.Event) {
	if n := len(h.Events); n > 0 && e.Kind == source.EventCircuit {
		last := &h.Events[n-1]
		if last.Kind == source.EventCircuit && last.T/time.Second == e.T/time.Second {
			*last = e
			return
		}
	}
	h.Events = append(h.Events, e)
	if over := len(h.Events) - MaxEvents; over > 0 {
		h.Events = append(h.Events[:0], h.Events[over:]...)
	}
}

// Log returns the event log as shown: the events, then the pending controls.
func (h *History) Log() []source.Event {
	if len(h.Pending) == 0 {
		return h.Events
	}
	return append(append([]source.Event(nil), h.Events...), h.Pending...)
}

// push adds a second's point to every series: counts per second of the time its ticks cover (a
// partial last second as a rate), gauges averaged over its ticks.
func (h *History) push(sec report.Second) {
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
	h.LastSec = sec.T
	h.CPS.Keep(cps)
	for i := range h.Sig {
		h.Sig[i].Keep(sig[i])
	}
	c := sec.Counts
	h.Originals.Keep(float64(c.Originals) * perSecond)
	h.Retries.Keep(float64(c.Retries) * perSecond)
	h.Successes.Keep(float64(c.Successes) * perSecond)
	h.Capacity.Keep(sec.Capacity / float64(max(sec.Ticks, 1)))
	h.Queue.Keep(sec.Queue / float64(max(sec.Ticks, 1)))
}
