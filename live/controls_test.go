package live

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// faultEvents returns the fault events of snaps, as "change kind" strings.
func faultEvents(snaps []source.Snapshot) []source.FaultEvent {
	var out []source.FaultEvent
	for _, s := range snaps {
		for _, e := range s.Events {
			if e.Kind == source.EventFault {
				out = append(out, e.Fault)
			}
		}
	}
	return out
}

// Asserts that the scenario's fault timeline is played through the fault controls at its
// times (a throttle's rate scaled with --scale), shown in the snapshots while active, and
// cleared when it ends; and that the run's end clears every fault.
func TestFaultTimeline(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Duration, scn.Drain = time.Second, 0
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultThrottle, At: 300 * time.Millisecond, Duration: 200 * time.Millisecond, Value: 40}}
	clk := manual()
	ff := newFakeFaults()
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := newRun(t, Config{Scenario: scn, Strategy: "cortex", Clock: clk, Scale: 0.5, Stack: handlerStack(t, ok, ff)})
	snaps := stepAll(t, r, clk)
	require.Len(t, snaps, 10)
	require.NotEmpty(t, snaps[0].Events)
	assert.Contains(t, snaps[0].Events[0].Text, "scaled x0.5", "the scale is said at the start")
	for i, s := range snaps {
		active := i == 3 || i == 4 // ticks (0.3, 0.4] and (0.4, 0.5] end while it is on
		if active {
			require.Len(t, s.Faults, 1, "tick %d", i)
			assert.Equal(t, scenarios.FaultThrottle, s.Faults[0].Kind)
			assert.Equal(t, 20.0, s.Faults[0].Value, "the rate is scaled")
			assert.False(t, s.Faults[0].Injected)
		} else {
			assert.Empty(t, s.Faults, "tick %d", i)
		}
	}
	ev := faultEvents(snaps)
	require.Len(t, ev, 2)
	assert.Equal(t, source.FaultStarted, ev[0].Change)
	assert.Equal(t, 200*time.Millisecond, ev[0].Duration)
	assert.Equal(t, source.FaultEnded, ev[1].Change)
	_, calls := ff.snapshot()
	assert.Equal(t, []string{"set throttle", "clear throttle", "clear all"}, calls)
}

// Asserts that injected faults reach the fault controls, that Clear and ClearAll end them,
// and that a fault the controls refuse (or an invalid value) is a FaultRefused event with the
// reason, not an active fault.
func TestInjectAndClear(t *testing.T) {
	t.Parallel()
	clk := manual()
	ff := newFakeFaults()
	ff.refuse[scenarios.FaultCapacity] = "capacity needs the embedded target"
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := newRun(t, Config{Scenario: small(), Strategy: "cortex", Clock: clk, Stack: handlerStack(t, ok, ff)})

	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultOutage})))
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultErrors, Value: 0.5, Duration: 150 * time.Millisecond})))
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultCapacity, Value: 0.5})))
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultErrors, Value: 7}))) // out of range
	clk.Advance(100 * time.Millisecond)
	snaps := r.Advance(0)
	require.Len(t, snaps, 1)
	require.Len(t, snaps[0].Faults, 2)
	assert.Equal(t, source.ServiceDown, snaps[0].Service.State, "an outage shows the service DOWN")
	ev := faultEvents(snaps)
	require.Len(t, ev, 4)
	assert.Equal(t, source.FaultRefused, ev[2].Change)
	assert.Equal(t, "capacity needs the embedded target", ev[2].Reason)
	assert.Equal(t, source.FaultRefused, ev[3].Change)
	assert.NotEmpty(t, ev[3].Reason)
	active, _ := ff.snapshot()
	assert.Equal(t, map[scenarios.FaultKind]float64{scenarios.FaultOutage: 0, scenarios.FaultErrors: 0.5}, active)

	clk.Advance(100 * time.Millisecond) // the errors fault ends at 150 ms: at the tick from 200 ms
	r.Advance(0)
	clk.Advance(100 * time.Millisecond)
	snaps = r.Advance(0)
	require.Len(t, snaps, 1)
	require.Len(t, snaps[0].Faults, 1)
	require.NoError(t, r.Control(source.Clear(scenarios.FaultOutage)))
	active, _ = ff.snapshot()
	assert.Empty(t, active)
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultLatency, Value: 1})))
	require.NoError(t, r.Control(source.ClearAll()))
	active, _ = ff.snapshot()
	assert.Empty(t, active)
}

// Asserts the controls that act on the clients: SetStrategy switches every client (Meta and
// the CORTEX view follow), SetWeights and SetAdaptive reach every engine, SetClass with share 0
// stops a class's arrivals and its priority is reported, and bad values are errors.
func TestClientControls(t *testing.T) {
	t.Parallel()
	clk := manual()
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := newRun(t, Config{Scenario: small(), Strategy: "naive", Clock: clk, Stack: handlerStack(t, ok, newFakeFaults())})
	require.Equal(t, "naive", r.Meta().Strategy)
	require.True(t, r.Meta().Live)

	require.NoError(t, r.Control(source.SetStrategy("cortex")))
	assert.Equal(t, "cortex", r.Meta().Strategy)
	assert.Error(t, r.Control(source.SetStrategy("nope")))
	w := engine.Weights{F: 1, L: 0, Q: 0, B: 0, C: 0}
	require.NoError(t, r.Control(source.SetWeights(w)))
	require.NoError(t, r.Control(source.SetAdaptive(true)))
	require.NoError(t, r.Control(source.SetClass("analytics", 0, 7)))
	assert.Error(t, r.Control(source.SetClass("search", 1, 1)))
	assert.Error(t, r.Control(source.SetClass("payment", -1, 1)))
	assert.Error(t, r.Control(source.SetClass("payment", 1, 11)))

	snaps := stepAll(t, r, clk)
	require.NotEmpty(t, snaps)
	last := snaps[0]
	require.NotNil(t, last.Cortex)
	assert.Greater(t, last.Cortex.Weights.F, engine.DefaultWeights().F, "the weights set, renormalised by the engine")
	assert.True(t, last.Cortex.Adaptive)
	arrived := 0
	for _, s := range snaps[1:] { // the first tick's arrivals were drawn before SetClass
		arrived += s.Classes[1].Arrived
		assert.Equal(t, 7, s.Classes[1].Priority)
	}
	assert.Zero(t, arrived, "a class of share 0 sends nothing")
	assert.Equal(t, 7, r.Meta().Classes[1].Priority)
}

// Asserts that Restart builds the stack anew and starts the run again from t = 0 with the
// controls reset, and that the previous stack is closed.
func TestRestart(t *testing.T) {
	t.Parallel()
	clk := manual()
	var built, closed atomic.Int32
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	inner := handlerStack(t, ok, newFakeFaults())
	counted := func(ctx context.Context) (*Stack, error) {
		built.Add(1)
		st, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		c := st.Close
		st.Close = func() error { closed.Add(1); return c() }
		return st, nil
	}
	r := newRun(t, Config{Scenario: small(), Strategy: "naive", Clock: clk, Stack: counted})
	require.NoError(t, r.Control(source.SetStrategy("cortex")))
	clk.Advance(time.Second)
	require.Len(t, r.Advance(0), 10)
	require.NoError(t, r.Control(source.Restart()))
	assert.Equal(t, int32(2), built.Load())
	assert.Equal(t, int32(1), closed.Load())
	assert.Equal(t, "cortex", r.Meta().Strategy, "the strategy in use when restarted")
	clk.Advance(100 * time.Millisecond)
	snaps := r.Advance(0)
	require.Len(t, snaps, 1)
	assert.Equal(t, 100*time.Millisecond, snaps[0].T)
}

// Asserts that against the embedded target an outage (the fault proxy's, which takes the
// target down too) makes every attempt fail fast, the service DOWN, and clearing it brings
// the target back warming up.
func TestEmbeddedOutage(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Service.Warmup = time.Hour
	clk := manual()
	r := newRun(t, Config{Scenario: scn, Strategy: "none", Clock: clk, Stack: EmbeddedStack(ScaledTarget(scn.Service, 1, 1))})
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultOutage})))
	var snaps []source.Snapshot
	for range 3 {
		clk.Advance(r.tick - time.Nanosecond)
		r.Advance(0)
		settle(t, r)
		clk.Advance(time.Nanosecond)
		snaps = append(snaps, r.Advance(0)...)
	}
	c := sum(snaps)
	require.Positive(t, c.Attempts)
	assert.Equal(t, c.Attempts, c.FastFails, "connection refused")
	assert.Equal(t, source.ServiceDown, snaps[len(snaps)-1].Service.State)
	require.NoError(t, r.Control(source.Clear(scenarios.FaultOutage)))
	clk.Advance(r.tick)
	snaps = r.Advance(0)
	require.Len(t, snaps, 1)
	assert.Equal(t, source.ServiceWarming, snaps[0].Service.State)
}

// Asserts each fault kind's effect on real requests through the fault proxy in front of the
// embedded target, as the simulator counts it: errors are 5xx, throttle 429s, bad_requests
// 4xx, blackhole timeouts; capacity and latency lower the target's capacity in the snapshot.
// An attempt has 10 s (the blackhole's 100 ms, which it runs out of): an attempt may still run
// out of it on a loaded machine (with 100 ms for every kind, a CI runner running the other
// packages' tests at once did that to 5 of 28, and the parallel tests of this package to every
// attempt of capacity's and latency's runs): a timeout is allowed beside each fault's outcome.
func TestProxyFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault scenarios.Fault
		check func(t *testing.T, c source.Counts, sv source.Service)
	}{
		{scenarios.Fault{Kind: scenarios.FaultErrors, Value: 1}, func(t *testing.T, c source.Counts, _ source.Service) {
			assert.Positive(t, c.ServerErrors)
			assert.Equal(t, c.Attempts, c.ServerErrors+c.Timeouts, "every answer a 5xx")
		}},
		{scenarios.Fault{Kind: scenarios.FaultThrottle, Value: 1}, func(t *testing.T, c source.Counts, _ source.Service) {
			assert.Positive(t, c.Throttled)
		}},
		{scenarios.Fault{Kind: scenarios.FaultBadRequests, Value: 1}, func(t *testing.T, c source.Counts, _ source.Service) {
			assert.Positive(t, c.BadRequests)
			assert.Equal(t, c.Attempts, c.BadRequests+c.Timeouts, "every answer a 4xx")
		}},
		{scenarios.Fault{Kind: scenarios.FaultBlackhole}, func(t *testing.T, c source.Counts, _ source.Service) {
			assert.Equal(t, c.Attempts, c.Timeouts)
		}},
		{scenarios.Fault{Kind: scenarios.FaultCapacity, Value: 0.5}, func(t *testing.T, c source.Counts, sv source.Service) {
			assert.Equal(t, 10/0.005, sv.Capacity, "half of 20 workers")
			assert.Positive(t, c.Successes)
			assert.Equal(t, c.Attempts, c.Successes+c.Timeouts, "no failure but the machine's own slowness")
		}},
		{scenarios.Fault{Kind: scenarios.FaultLatency, Value: 0.005}, func(t *testing.T, c source.Counts, sv source.Service) {
			assert.Equal(t, 20/0.010, sv.Capacity, "the service time doubled")
			assert.Positive(t, c.Successes)
			assert.Equal(t, c.Attempts, c.Successes+c.Timeouts, "no failure but the machine's own slowness")
		}},
	}
	for _, tc := range cases {
		t.Run(string(tc.fault.Kind), func(t *testing.T) {
			t.Parallel()
			scn := small()
			scn.Timeout, scn.Deadline = 10*time.Second, 20*time.Second
			if tc.fault.Kind == scenarios.FaultBlackhole {
				scn.Timeout, scn.Deadline = 100*time.Millisecond, 200*time.Millisecond
			}
			clk := manual()
			r := newRun(t, Config{Scenario: scn, Strategy: "none", Clock: clk, Stack: EmbeddedStack(ScaledTarget(scn.Service, 1, 1))})
			injected := time.Now()
			require.NoError(t, r.Control(source.Inject(tc.fault)))
			var snaps []source.Snapshot
			for range 5 {
				clk.Advance(r.tick - time.Nanosecond)
				r.Advance(0)
				settle(t, r)
				clk.Advance(time.Nanosecond)
				snaps = append(snaps, r.Advance(0)...)
			}
			require.Len(t, snaps, 5)
			c := sum(snaps)
			require.Positive(t, c.Attempts)
			require.Len(t, snaps[4].Faults, 1)
			tc.check(t, c, snaps[4].Service)
			if tc.fault.Kind == scenarios.FaultThrottle {
				// The bucket refills on the wall clock: its first token, then one a second (the
				// run's 500 ms took 3.9 s beside the other tests at a load of 8: 3 successes).
				assert.LessOrEqual(t, float64(c.Successes), 2+time.Since(injected).Seconds(), "a bucket of one request/s")
			}
		})
	}
}

// Asserts that a Restart whose stack cannot be built again ends the run with an event saying
// why, that every control afterwards is harmless, and that another Restart tries again.
func TestRestartFailure(t *testing.T) {
	t.Parallel()
	clk := manual()
	var calls atomic.Int32
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	inner := handlerStack(t, ok, newFakeFaults())
	builder := func(ctx context.Context) (*Stack, error) {
		if calls.Add(1) > 1 {
			return nil, errors.New("port taken")
		}
		return inner(ctx)
	}
	r := newRun(t, Config{Scenario: small(), Strategy: "cortex", Clock: clk, Stack: builder})
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultOutage})))
	require.NoError(t, r.Control(source.Restart()))
	snaps := r.Advance(0)
	require.Len(t, snaps, 1)
	assert.True(t, snaps[0].Done)
	require.Len(t, snaps[0].Events, 1)
	assert.Contains(t, snaps[0].Events[0].Text, "port taken")
	assert.True(t, r.Done())
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultErrors, Value: 0.5})))
	require.NoError(t, r.Control(source.Clear(scenarios.FaultOutage)))
	require.NoError(t, r.Control(source.ClearAll()))
	assert.NoError(t, r.Control(source.SetWeights(engine.DefaultWeights())))
	require.NoError(t, r.Control(source.SetAdaptive(true)))
	assert.Error(t, r.Control(source.SetStrategy("naive")))
	r.SetPaused(true)
	clk.Advance(time.Second)
	assert.Empty(t, r.Advance(0), "nothing runs")
	require.NoError(t, r.Control(source.Restart())) // tries again: the port may be free by now
	snaps = r.Advance(0)
	require.Len(t, snaps, 1)
	assert.Contains(t, snaps[0].Events[0].Text, "port taken")
}

// Asserts that a live run shows and logs only the notes for its strategy, as the simulator does,
// and that a strategy switch shows the new strategy's caption at once.
func TestNotesForTheStrategy(t *testing.T) {
	t.Parallel()
	clk := manual()
	scn := small()
	scn.Notes = []scenarios.Note{
		{At: 0, Text: "for everyone"},
		{At: 0, Text: "naive only", Strategies: []string{"naive"}},
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := newRun(t, Config{Scenario: scn, Strategy: "cortex", Clock: clk, Stack: handlerStack(t, ok, newFakeFaults())})
	clk.Advance(r.tick)
	snaps := r.Advance(0)
	require.NotEmpty(t, snaps)
	var notes []string
	for _, s := range snaps {
		for _, e := range s.Events {
			if e.Kind == source.EventNote {
				notes = append(notes, e.Text)
			}
		}
	}
	assert.Equal(t, []string{"for everyone"}, notes, "cortex's run logs no naive note")
	assert.Equal(t, "for everyone", snaps[len(snaps)-1].Note)
	require.NoError(t, r.Control(source.SetStrategy("naive")))
	clk.Advance(r.tick)
	snaps = r.Advance(0)
	require.NotEmpty(t, snaps)
	assert.Equal(t, "naive only", snaps[len(snaps)-1].Note, "the switch shows naive's caption")
}

// Asserts that a run under --scale records what the user gave at full scale: a throttle of
// the scenario's timeline ([[control]]) and one sent as the dashboard's key sends it both act
// scaled (half the rate at x0.5) but the recording (Played) holds them at full scale, so that
// the simulator (and live at any scale) replays the same throttle; and that the recording
// carries the engine the run's cortex ran.
func TestRecordingAtFullScale(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Duration, scn.Drain = time.Second, 0
	scn.Controls = []scenarios.ScheduledControl{{At: 300 * time.Millisecond, ControlEvent: scenarios.ControlEvent{
		Control: scenarios.ControlInject, Fault: scenarios.Fault{Kind: scenarios.FaultThrottle, Value: 40, Duration: 200 * time.Millisecond}}}}
	clk := manual()
	ff := newFakeFaults()
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	tuned := engine.DefaultConfig()
	tuned.MaxRetryAttempts = 1
	r := newRun(t, Config{Scenario: scn, Strategy: "cortex", Clock: clk, Scale: 0.5, Stack: handlerStack(t, ok, ff), Engine: &tuned, EngineName: "tuned.toml"})
	var values []float64
	for i := 0; i < 10 && !r.Done(); i++ {
		if i == 6 {
			require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultThrottle, Value: 60})))
		}
		clk.Advance(100 * time.Millisecond)
		for _, s := range r.Advance(0) {
			for _, f := range s.Faults {
				values = append(values, f.Value)
			}
		}
	}
	assert.Contains(t, values, 20.0, "the timeline's throttle acts scaled")
	assert.Contains(t, values, 30.0, "the key's throttle acts scaled")
	played := r.Played()
	require.Len(t, played.Controls, 2)
	assert.Equal(t, 40.0, played.Controls[0].Fault.Value, "recorded at full scale")
	assert.Equal(t, 60.0, played.Controls[1].Fault.Value, "recorded at full scale")
	require.NotNil(t, played.Engine)
	assert.Equal(t, tuned, *played.Engine)
	assert.Equal(t, "tuned.toml", played.EngineName)
}
