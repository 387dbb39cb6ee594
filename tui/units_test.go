package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/cps"
	"github.com/cortex-tui/cortex-tui/tui/decisions"
	"github.com/cortex-tui/cortex-tui/tui/eventlog"
	"github.com/cortex-tui/cortex-tui/tui/shedding"
	"github.com/cortex-tui/cortex-tui/tui/signals"
)

// Asserts that fit clips and pads to an exact size, ANSI sequences included.
func TestFit(t *testing.T) {
	st := common.DefaultStyles()
	out := common.Fit(st.Bold.Render("hello world")+"\nb", 5, 3)
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 3)
	for _, l := range lines {
		assert.Equal(t, 5, ansi.StringWidth(l))
	}
	assert.Equal(t, "hello", ansi.Strip(lines[0]))
	assert.Equal(t, "", common.Fit("x", 0, 3))
}

// Asserts that a signal is coloured like the band its value falls in (engine.StateFor with the
// default thresholds 0.25, 0.50 and 0.75), and that the badge says the band's name.
func TestLevelAndBadge(t *testing.T) {
	st := common.DefaultStyles()
	for v, want := range map[float64]engine.State{0: engine.Healthy, 0.249: engine.Healthy, 0.25: engine.Degraded,
		0.5: engine.Critical, 0.74: engine.Critical, 0.75: engine.Emergency, 1: engine.Emergency} {
		assert.Equal(t, st.Band[want].GetForeground(), st.Level(v).GetForeground(), "value %v", v)
		assert.Contains(t, st.StateBadge(want), want.String())
	}
}

// Asserts that the decisions panel gives every count of its last line (shed, budget, not sent)
// as a total over the run, like the totals column, and names the tick its first column counts;
// and that the shedding panel says what its columns count when it has room.
func TestDecisionsAndSheddingSayWhatTheyCount(t *testing.T) {
	tick := 100 * time.Millisecond
	r := &run{meta: source.Meta{Tick: tick, Classes: []source.ClassMeta{{Name: "payment", Priority: 9, Share: 1}}},
		hist: testHistory()}
	for n := 1; n <= 5; n++ {
		r.hist.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick,
			Counts: source.Counts{Shed: 2, BudgetRejected: 3, LocalRejects: n, Decisions: [5]int{engine.Reject: 6},
				Reasons: [source.NumReasons]int{source.ReasonShed: 2, source.ReasonBudget: 3, source.ReasonRamp: 1}}})
	}
	f := &frame{runs: []*run{r}, classes: r.meta.Classes}
	d := decisionsCell{decisions.New(common.DefaultStyles())}
	d.SetSize(44, 10)
	d, _ = d.Update(frameMsg{f: f})
	assert.Contains(t, d.View(), "shed 10 · ramp 5 · budget 15")
	assert.Contains(t, d.View(), "last 0.1s tick")
	s := sheddingCell{shedding.New(common.DefaultStyles())}
	s.SetSize(60, 10)
	s, _ = s.Update(frameMsg{f: f})
	assert.Contains(t, s.View(), "last 0.1s tick: new shed = new requests refused", "the shedding panel counts new requests and retries")
}

// Asserts that the signals panel shows the whole band legend, every band and threshold, at
// every width the layout gives it (on two lines when one is too narrow).
func TestSignalsBandLegendWhole(t *testing.T) {
	tick := 100 * time.Millisecond
	r := &run{meta: source.Meta{Tick: tick}, hist: testHistory()}
	r.hist.Add(source.Snapshot{T: tick, Dt: tick, Cortex: &source.CortexView{CPS: 0.3}})
	f := &frame{runs: []*run{r}}
	for w := 46; w <= 72; w++ {
		p := signalsCell{signals.New(common.DefaultStyles())}
		p.SetSize(w, 12)
		p, _ = p.Update(frameMsg{f: f})
		for _, s := range []string{"HEALTHY .25", "DEGRADED .50", "CRITICAL .75", "EMERGENCY"} {
			assert.Contains(t, p.View(), s, "width %d", w)
		}
	}
}

// Asserts that the CPS panel's figure agrees with the band and the floor beside it (a CPS just
// under a threshold is not rounded up onto it) and that its title is never cut with "…".
func TestCPSTitleAgreesWithBand(t *testing.T) {
	tick := 100 * time.Millisecond
	for _, tc := range []struct {
		cps  float64
		want string
	}{
		{0.4997, "CPS 0.49 · floor 4"},
		{0.5, "CPS 0.50 · floor 5"},
		{0.7499, "CPS 0.74 · floor 7"},
		{0.29, "CPS 0.29 · floor 2"},
	} {
		r := &run{meta: source.Meta{Tick: tick}, hist: testHistory()}
		r.hist.Add(source.Snapshot{T: tick, Dt: tick, Cortex: &source.CortexView{CPS: tc.cps, CPSMin: tc.cps, CPSMax: tc.cps,
			State: engine.StateFor(tc.cps, engine.DefaultEmergencyThreshold), Floor: engine.FloorFor(tc.cps)}})
		f := &frame{runs: []*run{r}}
		for w := 34; w <= 180; w += 7 {
			p := cpsCell{cps.New(common.DefaultStyles()), 0}
			p.SetSize(w, 10)
			p, _ = p.Update(frameMsg{f: f})
			top := strings.SplitN(p.View(), "\n", 2)[0]
			assert.Contains(t, top, tc.want, "width %d", w)
			assert.NotContains(t, top, "…", "width %d", w)
		}
	}
}

// Asserts that compare mode's key numbers fit each column at 80x24 and 140x40 (success,
// amplification, service, crashes and retries all visible, nothing cut), and that the peak
// amplification is not shown as x0.0 before the first whole second.
func TestCompareNumbersFit(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	for _, size := range [][2]int{{80, 24}, {100, 30}, {140, 40}} {
		m, _ := newTestModel(t, size[0], size[1], "cortex")
		m.Update(keyMsg("c"))
		require.Len(t, m.fr.runs, 2)
		advanceFrames(m, 3)
		stats := func() string {
			l, r := findPanel[statsCell](t, m, 0), findPanel[statsCell](t, m, 1)
			return side([]string{l.View(), r.View()}, []int{l.W, r.W}, l.H)
		}
		assert.NotContains(t, stats(), "peak 0.0x", "%v", size)
		fastForward(m, 30)
		for _, r := range m.fr.runs { // one more tick, a wave of failed retries: 176124 of each in all
			s, t := r.hist.Last, r.hist.Totals()
			s.T += s.Dt
			s.Counts, s.Events = source.Counts{Retries: 176124 - t.Retries, RetryFailures: 176124 - t.RetryFailures}, nil
			r.add(s)
		}
		m.redraw()
		boxes := stats() // the two number boxes
		for _, s := range []string{"success", "amp", "(peak ", "crashes", "retries", "176"} {
			assert.GreaterOrEqual(t, strings.Count(boxes, s), 2, "%v %q\n%s", size, s, boxes)
		}
		assert.NotContains(t, boxes, "(│", "%v", size)
	}
}

// Asserts that the texts of a control or a refusal a source sends are made inert.
func TestEventTextsCleaned(t *testing.T) {
	s := source.Snapshot{Events: []source.Event{{Kind: source.EventControl, Control: source.ControlEvent{Control: source.ControlClass,
		Class: "evil\x1b[2J"}}, {Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultRefused, Reason: "bad\x1b]0;x\x07"}}}}
	common.CleanSnapshot(&s)
	assert.NotContains(t, s.Events[0].Control.Class, "\x1b")
	assert.NotContains(t, s.Events[1].Fault.Reason, "\x1b")
}

// Asserts how the event log words each control a source applied (controlText), and that a
// control the dashboard applied itself keeps its own words.
func TestControlWording(t *testing.T) {
	for _, tc := range []struct {
		c    source.ControlEvent
		want string
	}{
		{source.SetWeights(engine.DefaultWeights()), "weights set: F 0.30 L 0.20 Q 0.15 B 0.15 C 0.20"},
		{source.SetAdaptive(true), "adaptive weights on"},
		{source.SetClass("search", 1.25, 6), "class search: share x1.25, priority 6"},
		{source.SetStrategy("naive"), "strategy: naive"},
		{source.ControlEvent{Control: source.ControlText}, ""},
	} {
		assert.Equal(t, tc.want, controlText(tc.c))
		assert.Equal(t, tc.want, eventlog.Text(source.Event{Kind: source.EventControl, Control: tc.c}, controlText))
	}
	assert.Equal(t, "paused", eventlog.Text(source.Event{Kind: source.EventControl, Text: "paused"}, controlText))
	// Every control a source logs as an EventControl has words here: a new control without its
	// case of controlText would log a blank line.
	notLogged := map[source.Control]bool{ // the dashboard's own words, or logged as another kind of event
		source.ControlText: true, source.ControlInject: true, source.ControlClear: true,
		source.ControlClearAll: true, source.ControlRestart: true,
	}
	for c := range source.NumControls {
		if !notLogged[c] {
			assert.NotEmpty(t, controlText(source.ControlEvent{Control: c}), "control %s has no words in controlText", c)
		}
	}
}
