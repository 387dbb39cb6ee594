package history

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
)

// testHistory returns an empty history with a recorder of its own.
func testHistory() *History { return New(report.NewRecorder(source.Meta{})) }

// Asserts that the history turns ticks into one point per simulated second (counts summed into
// per-second rates, gauges averaged), keeps totals, and stays bounded.
func TestHistoryPerSecond(t *testing.T) {
	h := testHistory()
	tick := 100 * time.Millisecond
	for n := 1; n <= 25; n++ {
		h.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick,
			Counts:  source.Counts{Originals: 2, Attempts: 3, Retries: 1},
			Service: source.Service{Capacity: float64(n)},
			Cortex:  &source.CortexView{CPS: 0.5, Signals: engine.Signals{F: 1}}})
	}
	require.Equal(t, 2, h.Originals.Len(), "two whole seconds; the third is still open")
	assert.Equal(t, []float64{20, 20}, h.Originals.Tail(nil, 5))
	assert.Equal(t, []float64{10, 10}, h.Retries.Tail(nil, 5))
	assert.Equal(t, []float64{5.5, 15.5}, h.Capacity.Tail(nil, 5), "capacity averaged")
	assert.Equal(t, []float64{0.5, 0.5}, h.CPS.Tail(nil, 5))
	assert.Equal(t, []float64{1, 1}, h.Sig[0].Tail(nil, 5))
	assert.Equal(t, 50, h.Totals().Originals)
	assert.InDelta(t, 1.5, h.Totals().Amplification(), 1e-9)
	assert.InDelta(t, 1.5, h.Rec.PeakAmplification(), 1e-9)

	for n := 26; n <= 26+10*Points*2; n++ {
		h.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick})
	}
	assert.Equal(t, Points, h.CPS.Len(), "bounded")
}

// Asserts that the charts' points are the recorder's seconds, the same sums as the timeline's
// rows (which round them): one point per row, even with a tick that does not divide a second;
// counts as rates over the time the second's ticks cover; the CPS of a second in which the
// strategy changed averaged over the ticks CORTEX ran, as in the row; the run's last, partial
// second pushed when the run is done. And that the figures the panels read (totals, peak
// amplification) are the summary's, unrounded.
func TestHistoryIsTheRecordersSeconds(t *testing.T) {
	tick := 300 * time.Millisecond
	h := testHistory()
	for n := 1; n <= 11; n++ { // ticks start at 0, 0.3, ..., 3.0 s; the last second is partial
		s := source.Snapshot{T: time.Duration(n) * tick, Dt: tick, Done: n == 11,
			Counts:  source.Counts{Originals: 10 * n, Attempts: 10*n + n*n, Retries: n * n, Completed: 9 * n},
			Service: source.Service{State: source.ServiceUp, Capacity: 100}}
		if n%3 != 0 { // the strategy switches away from cortex every third tick
			s.Cortex = &source.CortexView{CPS: 0.1 * float64(n)}
		}
		h.Add(s)
	}
	rows := h.Rec.Rows()
	require.Len(t, rows, 4)
	require.Equal(t, len(rows), h.Originals.Len(), "one point per row")
	originals := h.Originals.Tail(nil, 10)
	cps := h.CPS.Tail(nil, 10)
	for i, ticks := range []int{4, 3, 3, 1} {
		dt := (time.Duration(ticks) * tick).Seconds()
		assert.InDelta(t, float64(rows[i].Originals)/dt, originals[i], 1e-9, "second %d: a rate over %gs", i, dt)
		require.NotNil(t, rows[i].CPS)
		assert.InDelta(t, *rows[i].CPS, cps[i], 5e-5, "second %d: the row's CPS, unrounded", i)
	}
	sum := h.Rec.Summary()
	assert.InDelta(t, sum.PeakAmplification, h.Rec.PeakAmplification(), 5e-5)
	assert.InDelta(t, sum.SuccessRate, h.Totals().SuccessRate(), 5e-5)
	assert.InDelta(t, sum.Amplification, h.Totals().Amplification(), 5e-5)
}

// Asserts that the event log keeps only the newest MaxEvents events.
func TestHistoryEventsBounded(t *testing.T) {
	h := testHistory()
	for n := range MaxEvents * 3 {
		h.Add(source.Snapshot{T: time.Duration(n+1) * time.Second, Dt: time.Second,
			Events: []source.Event{{Text: strings.Repeat("x", n%7)}}})
	}
	assert.Len(t, h.Events, MaxEvents)
}

// Asserts that circuit events within one simulated second collapse into the latest, while other
// kinds and other seconds are kept.
func TestCircuitEventsCollapsePerSecond(t *testing.T) {
	h := testHistory()
	ev := func(ms int, kind source.EventKind, text string) source.Event {
		return source.Event{T: time.Duration(ms) * time.Millisecond, Kind: kind, Text: text}
	}
	h.Add(source.Snapshot{T: time.Second, Dt: time.Second, Events: []source.Event{
		ev(100, source.EventCircuit, "3 open"), ev(400, source.EventCircuit, "5 open"),
		ev(500, source.EventFault, "outage"), ev(600, source.EventCircuit, "6 open"), ev(900, source.EventCircuit, "7 open"),
		ev(1200, source.EventCircuit, "2 open"),
	}})
	var got []string
	for _, e := range h.Events {
		got = append(got, e.Text)
	}
	assert.Equal(t, []string{"5 open", "outage", "7 open", "2 open"}, got)
}
