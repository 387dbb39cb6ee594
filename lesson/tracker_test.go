package lesson_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// metric returns the vocabulary's metric called name.
func metric(t *testing.T, name string) scenarios.Metric {
	t.Helper()
	i := slices.IndexFunc(scenarios.Metrics, func(m scenarios.Metric) bool { return m.Name == name })
	require.GreaterOrEqual(t, i, 0, name)
	return scenarios.Metrics[i]
}

// tick builds the snapshot of the tick ending at sec seconds (ticks of 100 ms).
func tick(sec float64, c source.Counts, state source.ServiceState, cv *source.CortexView, classes ...source.ClassTick) source.Snapshot {
	return source.Snapshot{T: time.Duration(sec * float64(time.Second)), Dt: 100 * time.Millisecond, Counts: c,
		Service: source.Service{State: state, Queue: 7}, Cortex: cv, Classes: classes}
}

// TestTrackerHold asserts that a step is done when every goal has held for its For without a
// break, that a break starts the hold again, and that the next step then is current.
func TestTrackerHold(t *testing.T) {
	l := scenarios.Lesson{Name: "x", Steps: []scenarios.Step{
		{Goals: []scenarios.Goal{{Metric: metric(t, "service"), Op: scenarios.OpEqual, State: "DOWN", For: time.Second}}},
		{Goals: []scenarios.Goal{{Metric: metric(t, "queue"), Op: scenarios.OpGreater, Num: 5}}},
	}}
	tr := lesson.New(l, nil)
	states := []source.ServiceState{source.ServiceDown, source.ServiceDown, source.ServiceUp} // a break at 0.3 s
	for i, st := range states {
		assert.False(t, tr.Observe(tick(float64(i+1)/10, source.Counts{}, st, nil), "naive"))
	}
	done := -1
	for i := 4; i <= 30 && done < 0; i++ {
		if tr.Observe(tick(float64(i)/10, source.Counts{}, source.ServiceDown, nil), "naive") {
			done = i
		}
	}
	assert.Equal(t, 14, done, "DOWN again from t=0.4s, held 1s at t=1.4s")
	assert.Equal(t, 1, tr.Step())
	assert.True(t, tr.Observe(tick(1.5, source.Counts{}, source.ServiceUp, nil), "naive"), "queue 7 > 5 at once")
	assert.True(t, tr.Done())
}

// TestTrackerValues asserts the values of the windowed and per-class metrics over the last
// five seconds, and that a CORTEX metric has no value under another strategy.
func TestTrackerValues(t *testing.T) {
	l := scenarios.Lesson{Name: "x", Steps: []scenarios.Step{{Goals: []scenarios.Goal{{Metric: metric(t, "t"), Op: scenarios.OpGreater, Num: 1e9}}}}}
	tr := lesson.New(l, []string{"payment", "analytics"})
	// 10 s of ticks: the first 5 s with 1 attempt per original, the last 5 s with 3.
	for i := 1; i <= 100; i++ {
		att, done := 10, 10
		if i > 50 {
			att, done = 30, 5
		}
		c := source.Counts{Originals: 10, Attempts: att, Retries: att - 10, Completed: done, Abandoned: 10 - done, Shed: 2}
		tr.Observe(tick(float64(i)/10, c, source.ServiceUp, nil,
			source.ClassTick{Arrived: 5, Succeeded: 5}, source.ClassTick{Arrived: 5, Succeeded: 0, Shed: 2}), "naive")
	}
	value := func(name, class string) (float64, bool) {
		return tr.Value(scenarios.Goal{Metric: metric(t, name), Class: class})
	}
	tests := []struct {
		name, class string
		want        float64
	}{
		{"amplification", "", 3},
		{"success", "", 0.5},
		{"retries", "", 200}, // 20 a tick, 10 ticks a second
		{"shed", "", 20},
		{"queue", "", 7},
		{"t", "", 10},
		{"class.NAME.success", "payment", 1},
		{"class.NAME.success", "analytics", 0},
		{"class.NAME.shed", "analytics", 20},
		{"class.NAME.shed", "payment", 0},
	}
	for _, tt := range tests {
		v, ok := value(tt.name, tt.class)
		require.True(t, ok, tt.name)
		assert.InDelta(t, tt.want, v, 1e-9, "%s %s", tt.name, tt.class)
	}
	_, ok := value("cps", "")
	assert.False(t, ok, "no CPS without cortex")

	cv := &source.CortexView{CPS: 0.6, Weights: engine.DefaultWeights(), Signals: engine.Signals{L: 0.4}}
	tr.Observe(tick(10.1, source.Counts{}, source.ServiceUp, cv), "cortex")
	for name, want := range map[string]float64{"cps": 0.6, "weight.L": 0.2, "signal.L": 0.4} {
		v, ok := value(name, "")
		require.True(t, ok, name)
		assert.InDelta(t, want, v, 1e-9, name)
	}
}

// TestSetWeight asserts that setting one weight scales the other four to sum to 1 - v, keeping
// their proportions.
func TestSetWeight(t *testing.T) {
	w := lesson.SetWeight(engine.DefaultWeights(), "L", 0.5)
	a := w.Array()
	assert.InDelta(t, 0.5, a[1], 1e-12)
	assert.InDelta(t, 1.0, a[0]+a[1]+a[2]+a[3]+a[4], 1e-12)
	assert.InDelta(t, engine.DefaultWeights().F/engine.DefaultWeights().Q, a[0]/a[2], 1e-12, "proportions kept")
	assert.Equal(t, engine.DefaultWeights(), lesson.SetWeight(engine.DefaultWeights(), "X", 0.5), "an unknown signal changes nothing")
}

// TestTrackerRestarted asserts that a restart keeps the steps done and starts the current
// step's holds again.
func TestTrackerRestarted(t *testing.T) {
	g := scenarios.Goal{Metric: metric(t, "service"), Op: scenarios.OpEqual, State: "UP", For: time.Second}
	tr := lesson.New(scenarios.Lesson{Name: "x", Steps: []scenarios.Step{{Goals: []scenarios.Goal{g}}, {Goals: []scenarios.Goal{g}}}}, nil)
	for i := 1; i <= 11; i++ {
		tr.Observe(tick(float64(i)/10, source.Counts{}, source.ServiceUp, nil), "naive")
	}
	require.Equal(t, 1, tr.Step())
	for i := 12; i <= 18; i++ {
		tr.Observe(tick(float64(i)/10, source.Counts{}, source.ServiceUp, nil), "naive")
	}
	tr.Restarted()
	assert.Equal(t, 1, tr.Step(), "the step done stays done")
	for i := 1; i <= 10; i++ {
		assert.False(t, tr.Observe(tick(float64(i)/10, source.Counts{}, source.ServiceUp, nil), "naive"), "the hold starts again at t=0.1s")
	}
	assert.True(t, tr.Observe(tick(1.1, source.Counts{}, source.ServiceUp, nil), "naive"))
}

// TestTrackerStatusHolding asserts that a goal that must hold a while is not met (✓) before
// its time: holding, with how long it has held, then met once the time is up ("✓ queue >= 900
// for 15s (now 999, held 1s of 15s)" was shown as met).
func TestTrackerStatusHolding(t *testing.T) {
	l := scenarios.Lesson{Name: "x", Steps: []scenarios.Step{
		{Goals: []scenarios.Goal{{Metric: metric(t, "queue"), Op: scenarios.OpGreater, Num: 5, For: 2 * time.Second}}},
		{Goals: []scenarios.Goal{{Metric: metric(t, "t"), Op: scenarios.OpGreater, Num: 1e9}}},
	}}
	tr := lesson.New(l, nil)
	tr.Observe(tick(0.1, source.Counts{}, source.ServiceUp, nil), "naive")
	tr.Observe(tick(1.1, source.Counts{}, source.ServiceUp, nil), "naive")
	g := tr.Status("naive").Goals[0]
	assert.False(t, g.Met, "held 1 s of 2 s: not met")
	assert.True(t, g.Holding)
	assert.Equal(t, time.Second, g.Held)
	assert.True(t, tr.Observe(tick(2.1, source.Counts{}, source.ServiceUp, nil), "naive"), "held 2 s: the step is done")
}

// TestTrackerControl asserts that a control applied while the run is paused is seen at once:
// a weight goal reads the weights as set (renormalised) and completes its step, without a
// snapshot (it read the last tick's weights until the run went on).
func TestTrackerControl(t *testing.T) {
	l := scenarios.Lesson{Name: "x", Steps: []scenarios.Step{
		{Goals: []scenarios.Goal{{Metric: metric(t, "weight.L"), Op: scenarios.OpGreaterEq, Num: 0.45}}},
		{Goals: []scenarios.Goal{{Metric: metric(t, "t"), Op: scenarios.OpGreater, Num: 1e9}}},
	}}
	tr := lesson.New(l, nil)
	cv := &source.CortexView{Weights: engine.DefaultWeights()}
	assert.False(t, tr.Observe(tick(1, source.Counts{}, source.ServiceUp, cv), "cortex"))
	assert.Equal(t, "0.20", tr.Status("cortex").Goals[0].Value)
	w := lesson.SetWeight(engine.DefaultWeights(), "L", 0.3)
	assert.False(t, tr.Control(source.SetWeights(w), "cortex"))
	assert.Equal(t, "0.30", tr.Status("cortex").Goals[0].Value, "the weight as set, at once")
	assert.Equal(t, 0.2, cv.Weights.L, "the snapshot's own view is left as it was")
	w = lesson.SetWeight(engine.DefaultWeights(), "L", 0.5)
	assert.True(t, tr.Control(source.SetWeights(w), "cortex"), "the goal holds: the step is done")
}

// TestTrackerSkip asserts that Skip moves on to the next step without its goals, from the
// latest snapshot's time, and changes nothing once the lesson is done.
func TestTrackerSkip(t *testing.T) {
	l := scenarios.Lesson{Name: "x", Steps: []scenarios.Step{
		{Goals: []scenarios.Goal{{Metric: metric(t, "service"), Op: scenarios.OpEqual, State: "DOWN"}}},
		{Goals: []scenarios.Goal{{Metric: metric(t, "queue"), Op: scenarios.OpGreater, Num: 100}}},
	}}
	tr := lesson.New(l, nil)
	assert.False(t, tr.Observe(tick(1, source.Counts{}, source.ServiceUp, nil), "cortex"))
	require.True(t, tr.Skip())
	assert.Equal(t, 1, tr.Step())
	assert.False(t, tr.Observe(tick(1.1, source.Counts{}, source.ServiceDown, nil), "cortex"), "step 2's goal, not step 1's")
	require.True(t, tr.Skip())
	assert.True(t, tr.Done())
	assert.False(t, tr.Skip())
	assert.Equal(t, 2, tr.Step())
}
