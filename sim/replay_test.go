package sim

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// exportJSON is the JSON export of a result, as the dashboard's export and --headless write it.
func exportJSON(t *testing.T, r report.Result) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, r.Meta, r.Timeline, r.Summary))
	return b.String()
}

// Asserts that a run driven by controls, as the dashboard's keys send them between ticks,
// replays from the scenario it played (written as a file and parsed again) to the same bytes
// of export, and that the controls changed the run (the replay is not the plain scenario's).
func TestPlayedScenarioReplaysTheRun(t *testing.T) {
	scn := testScenario()
	scn.Summary = "a demo"
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 20 * time.Second, Duration: 5 * time.Second}}
	src, err := NewSource(scn, "cortex", 3)
	require.NoError(t, err)
	rec := report.NewRecorder(src.Meta())
	play := func(d time.Duration) {
		for _, s := range src.Advance(d) {
			rec.Add(s)
		}
	}
	throttle, _ := scenarios.FaultThrottle.Spec()
	steps := []source.ControlEvent{
		source.Inject(scenarios.Fault{Kind: scenarios.FaultLatency, Value: 0.8, Duration: 4 * time.Second}),
		source.SetWeights(engine.WeightsFrom([5]float64{0.4, 0.1, 0.2, 0.1, 0.2})),
		source.SetClass("analytics", 2.5, 0),
		source.SetStrategy("naive"),
		source.Inject(scenarios.Fault{Kind: scenarios.FaultThrottle, Value: throttle.InjectValue(200)}),
		source.Clear(scenarios.FaultOutage),
		source.SetStrategy("cortex"),
		source.SetAdaptive(true),
		source.ClearAll(),
	}
	play(0) // a control before the first tick
	for i, c := range steps {
		require.NoError(t, src.Control(c), "step %d", i)
		play(time.Duration(3+i)*time.Second + 250*time.Millisecond) // a fraction of a tick carried over
	}
	for n := src.Advance(time.Minute); n != nil; n = src.Advance(time.Minute) {
		for _, s := range n {
			rec.Add(s)
		}
	}
	recorded := rec.Result()
	assert.Equal(t, "cortex+naive+cortex", recorded.Meta.Strategy)

	played := src.(source.Recording).Played()
	require.Len(t, played.Controls, len(steps))
	data, err := played.MarshalTOML()
	require.NoError(t, err)
	back, err := scenarios.Parse("demo.toml", data)
	require.NoError(t, err, "%s", data)
	assert.Equal(t, "cortex", back.Strategy)
	assert.Equal(t, int64(3), back.Seed)

	replay, err := New(back, back.Strategy, back.Seed)
	require.NoError(t, err)
	assert.Equal(t, exportJSON(t, recorded), exportJSON(t, report.Run(replay)), "the replay's export is the recorded run's")

	back.Controls = nil
	plain, err := New(back, back.Strategy, back.Seed)
	require.NoError(t, err)
	assert.NotEqual(t, exportJSON(t, recorded), exportJSON(t, report.Run(plain)), "the controls changed the run")
}

// Asserts that a restart starts the recording again (its controls are gone with the run they
// changed) and that a replayed scenario's controls are recorded as they apply, the rest of its
// timeline kept.
func TestPlayedAfterRestartAndReplay(t *testing.T) {
	scn := testScenario()
	scn.Controls = []scenarios.ScheduledControl{
		{At: time.Second, ControlEvent: source.SetAdaptive(true)},
		{At: 30 * time.Second, ControlEvent: source.ClearAll()},
	}
	src, err := NewSource(scn, "naive", 1)
	require.NoError(t, err)
	src.Advance(2 * time.Second)
	require.NoError(t, src.Control(source.SetStrategy("cortex")))
	rec := src.(source.Recording)
	assert.Equal(t, []scenarios.ScheduledControl{scn.Controls[0],
		{At: 2 * time.Second, ControlEvent: source.SetStrategy("cortex")}, scn.Controls[1]}, rec.Played().Controls)
	assert.Equal(t, "naive", rec.Played().Strategy)

	require.NoError(t, src.Control(source.Restart()))
	assert.Equal(t, scn.Controls, rec.Played().Controls, "after a restart: the scenario's own again")
	assert.Equal(t, "cortex", rec.Played().Strategy, "a restart keeps the strategy switched to")
}
