package tui

import (
	"time"

	"github.com/cortex-tui/cortex-tui/source"
)

// historyPoints is how many per-second points a history keeps: more than the widest chart
// shows (one point per column, and charts are narrower than the 250-column windows tested), so
// memory stays flat however long the run.
const historyPoints = 600

// maxEvents is how many event-log lines a history keeps.
const maxEvents = 200

// history is what the dashboard remembers of one run: bounded per-second series for the charts,
// running totals, the latest snapshot and the newest events. Snapshots go in with add; it is
// owned by the Update loop and not safe for concurrent use.
//
// It overlaps report.Recorder, which each run also feeds (run.add), on purpose: the recorder
// keeps every second for the export and the summary and rounds its gauges, and reads its totals
// only through Summary, which copies the whole timeline; the panels want bounded rings of
// unrounded values, a partial last second as a rate, and totals read in O(1) every frame.
type history struct {
	last source.Snapshot
	seen bool // at least one snapshot arrived

	// Per-second series (one point per simulated second: counts summed, gauges averaged).
	cps                                  *ring
	sig                                  [5]*ring // F L Q B C
	originals, retries, successes, capac *ring

	acc    secondAcc
	totals totals
	events []source.Event
	// pending are controls applied while paused, shown until the next snapshot brings the
	// source's own events for them.
	pending []source.Event
}

// secondAcc accumulates the snapshots of the current simulated second.
type secondAcc struct {
	second                               int64 // index of the second being accumulated
	n                                    int   // snapshots in it
	dt                                   time.Duration
	cps                                  float64
	sig                                  [5]float64
	originals, retries, successes, capac float64
}

// totals are the counters the panels show, summed over the whole run.
type totals struct {
	Originals, Attempts, Retries, Completed int
	Shed, BudgetRejected, LocalRejects      int
	RetryFailures, Crashes                  int
	PeakAmplification                       float64 // largest attempts/originals over a second
	Decisions                               [5]int
}

// newHistory returns an empty history.
func newHistory() *history {
	h := &history{
		cps: newRing(historyPoints), originals: newRing(historyPoints), retries: newRing(historyPoints),
		successes: newRing(historyPoints), capac: newRing(historyPoints),
	}
	for i := range h.sig {
		h.sig[i] = newRing(historyPoints)
	}
	h.acc.second = -1
	return h
}

// add takes one snapshot into the history.
func (h *history) add(s source.Snapshot) {
	sec := int64(0)
	if s.T > 0 {
		sec = int64((s.T - 1) / time.Second)
	}
	if h.acc.second >= 0 && sec != h.acc.second {
		h.flush()
	}
	h.acc.second = sec
	h.acc.n++
	h.acc.dt += s.Dt
	h.acc.originals += float64(s.Counts.Originals)
	h.acc.retries += float64(s.Counts.Retries)
	h.acc.successes += float64(s.Counts.Successes)
	h.acc.capac += s.Service.Capacity
	if cv := s.Cortex; cv != nil {
		h.acc.cps += cv.CPS
		for i, v := range cv.Signals.Array() {
			h.acc.sig[i] += v
		}
	}
	h.last, h.seen = s, true
	h.pending = nil
	h.count(s)
	for _, e := range s.Events {
		h.addEvent(e)
	}
	if s.Done {
		h.flush()
	}
}

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

// count adds a snapshot's counters to the totals.
func (h *history) count(s source.Snapshot) {
	t, c := &h.totals, s.Counts
	t.Originals += c.Originals
	t.Attempts += c.Attempts
	t.Retries += c.Retries
	t.Completed += c.Completed
	t.Shed += c.Shed
	t.BudgetRejected += c.BudgetRejected
	t.RetryFailures += c.RetryFailures
	t.Crashes += c.Crashes
	t.LocalRejects += c.LocalRejects
	for i, d := range c.Decisions {
		t.Decisions[i] += d
	}
}

// flush closes the current second and pushes its point to every series.
func (h *history) flush() {
	a := h.acc
	if a.n == 0 {
		return
	}
	n := float64(a.n)
	perSecond := 1.0
	if a.dt > 0 && a.dt < time.Second {
		perSecond = float64(time.Second) / float64(a.dt) // a partial last second, as a rate
	}
	h.cps.push(a.cps / n)
	for i := range h.sig {
		h.sig[i].push(a.sig[i] / n)
	}
	h.originals.push(a.originals * perSecond)
	h.retries.push(a.retries * perSecond)
	h.successes.push(a.successes * perSecond)
	h.capac.push(a.capac / n)
	if a.originals > 0 {
		h.totals.PeakAmplification = max(h.totals.PeakAmplification, (a.originals+a.retries)/a.originals)
	}
	h.acc = secondAcc{second: -1}
}

// successRate is completed originals over arrived originals so far (0 before any arrival).
func (t totals) successRate() float64 {
	if t.Originals == 0 {
		return 0
	}
	return float64(t.Completed) / float64(t.Originals)
}

// amplification is attempts over originals so far (0 before any arrival).
func (t totals) amplification() float64 {
	if t.Originals == 0 {
		return 0
	}
	return float64(t.Attempts) / float64(t.Originals)
}
