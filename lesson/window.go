package lesson

import (
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// window sums the counts of the ticks of the last scenarios.WindowSeconds of the run.
type window struct {
	ticks   []tick // oldest first
	sum     source.Counts
	classes []source.ClassTick // summed per class
}

// tick is what the window keeps of one snapshot.
type tick struct {
	t, dt   time.Duration
	counts  source.Counts
	classes []source.ClassTick
}

// span is the window's length.
const span = scenarios.WindowSeconds * time.Second

// add takes s in and drops the ticks that ended before s.T - span.
func (w *window) add(s source.Snapshot) {
	w.ticks = append(w.ticks, tick{t: s.T, dt: s.Dt, counts: s.Counts, classes: append([]source.ClassTick(nil), s.Classes...)})
	addCounts(&w.sum, s.Counts, 1)
	w.addClasses(s.Classes, 1)
	drop := 0
	for drop < len(w.ticks) && w.ticks[drop].t <= s.T-span {
		addCounts(&w.sum, w.ticks[drop].counts, -1)
		w.addClasses(w.ticks[drop].classes, -1)
		drop++
	}
	w.ticks = w.ticks[drop:]
}

// addClasses adds (sign 1) or removes (sign -1) a tick's classes.
func (w *window) addClasses(cs []source.ClassTick, sign int) {
	for len(w.classes) < len(cs) {
		w.classes = append(w.classes, source.ClassTick{})
	}
	for i, c := range cs {
		w.classes[i].Arrived += sign * c.Arrived
		w.classes[i].Succeeded += sign * c.Succeeded
		w.classes[i].Shed += sign * c.Shed
	}
}

// perSecond divides a sum over the window by the window's length in seconds (the run's time
// so far when it is shorter).
func (w *window) perSecond(v float64) (float64, bool) {
	if len(w.ticks) == 0 {
		return 0, false
	}
	d := time.Duration(0)
	for _, t := range w.ticks {
		d += t.dt
	}
	if d <= 0 {
		return 0, false
	}
	return v / d.Seconds(), true
}

// addCounts adds sign times c to dst, for the counts the metrics read.
func addCounts(dst *source.Counts, c source.Counts, sign int) {
	dst.Originals += sign * c.Originals
	dst.Attempts += sign * c.Attempts
	dst.Retries += sign * c.Retries
	dst.Completed += sign * c.Completed
	dst.Abandoned += sign * c.Abandoned
	dst.Shed += sign * c.Shed
	dst.BudgetRejected += sign * c.BudgetRejected
	dst.LocalRejects += sign * c.LocalRejects
	dst.InFlightCapRefused += sign * c.InFlightCapRefused
}
