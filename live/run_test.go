package live

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts that a live run draws its arrivals as the simulator does: with the same scenario
// (a load profile, and a class with its own) and seed, every tick has the same number of
// originals (and of each class).
func TestArrivalsMatchTheSimulator(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Load = []scenarios.LoadPoint{{At: 0, Factor: 1}, {At: 2 * time.Second, Factor: 2}}
	scn.Classes[1].Load = []scenarios.LoadPoint{{At: time.Second, Factor: 1}, {At: 2 * time.Second, Factor: 6}} // one class surges alone
	clk := manual()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	r := newRun(t, Config{Scenario: scn, Strategy: "cortex", Seed: 7, Clock: clk, Stack: handlerStack(t, ok, newFakeFaults())})
	live := stepAll(t, r, clk)

	s, err := sim.New(scn, "cortex", 7)
	require.NoError(t, err)
	var simulated []source.Snapshot
	for !s.Done() {
		simulated = append(simulated, s.Step())
	}
	require.Len(t, live, len(simulated))
	for i := range live {
		assert.Equal(t, simulated[i].Counts.Originals, live[i].Counts.Originals, "tick %d", i)
		for c := range live[i].Classes {
			assert.Equal(t, simulated[i].Classes[c].Arrived, live[i].Classes[c].Arrived, "tick %d class %d", i, c)
		}
	}
	total := sum(live)
	assert.Positive(t, total.Originals)
	assert.True(t, live[len(live)-1].Done)
	assert.Equal(t, total.Originals, total.Completed, "every request to a healthy server completes")
	assert.Equal(t, total.Originals, total.Attempts, "no retries against a healthy server")
	assert.Equal(t, total.Originals, total.Successes)
}

// Asserts that failures are retried by the strategy through the transport and counted as
// the simulator counts them: attempts, retries, 5xx, failed retries, abandoned originals.
func TestRetriesAreCounted(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Duration, scn.Drain = time.Second, time.Second
	clk := manual()
	fail := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	r := newRun(t, Config{Scenario: scn, Strategy: "naive", Seed: 1, Clock: clk, Stack: handlerStack(t, fail, newFakeFaults())})
	snaps := stepAll(t, r, clk)
	c := sum(snaps)
	require.Positive(t, c.Originals)
	var reasons [source.NumReasons]int
	for _, s := range snaps {
		for i, n := range s.Counts.Reasons {
			reasons[i] += n
		}
	}
	assert.Equal(t, 3*c.Originals, reasons[source.ReasonRetry], "each decision counted by its reason, as the simulator does")
	assert.Equal(t, c.Originals, reasons[source.ReasonMaxRetries], "the decisions panel's sub-rows have their figures")
	assert.Equal(t, 4*c.Originals, c.Attempts, "naive sends every original 4 times against a 500")
	assert.Equal(t, 3*c.Originals, c.Retries)
	assert.Equal(t, c.Attempts, c.ServerErrors)
	assert.Equal(t, c.Attempts, c.Failures)
	assert.Equal(t, c.Retries, c.RetryFailures)
	assert.Equal(t, c.Originals, c.Abandoned)
	assert.Zero(t, c.Completed)
}

// Asserts the bound on concurrency: with one slot and a server that holds every request, the
// arrivals after the first are local rejects, abandoned at once, and no more goroutines pile up.
func TestBoundedInFlight(t *testing.T) {
	t.Parallel()
	scn := small()
	clk := manual()
	release := make(chan struct{})
	var seen atomic.Int64
	hold := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		seen.Add(1)
		select {
		case <-release:
		case <-req.Context().Done():
		}
	})
	r := newRun(t, Config{Scenario: scn, Strategy: "none", Seed: 1, Clock: clk, MaxInFlight: 1, Stack: handlerStack(t, hold, newFakeFaults())})
	clk.Advance(time.Second)
	snaps := r.Advance(0)
	close(release)
	c := sum(snaps)
	require.Greater(t, c.Originals, 10)
	assert.Equal(t, c.Originals-1, c.LocalRejects, "every arrival but the first found no slot")
	assert.Equal(t, c.Originals-1, c.Abandoned)
	assert.LessOrEqual(t, seen.Load(), int64(1))
}

// Asserts that pause stops the arrivals and the run's time, and resume goes on from there.
func TestPause(t *testing.T) {
	t.Parallel()
	clk := manual()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	r := newRun(t, Config{Scenario: small(), Strategy: "cortex", Clock: clk, Stack: handlerStack(t, ok, newFakeFaults())})
	clk.Advance(500 * time.Millisecond)
	before := r.Advance(0)
	require.Len(t, before, 5)
	r.SetPaused(true)
	clk.Advance(10 * time.Second)
	assert.Empty(t, r.Advance(0), "no tick while paused")
	r.SetPaused(false)
	clk.Advance(200 * time.Millisecond)
	after := r.Advance(0)
	require.Len(t, after, 2)
	assert.Equal(t, 700*time.Millisecond, after[1].T, "the pause is not run time")
}

// Asserts that the requests waiting for a retry feed CORTEX's queue signal Q: against a
// service that always answers 503, while retries wait out their delays the fleet's view shows
// Q above zero.
func TestPendingRetriesFeedQ(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Clients = 1
	clk := manual()
	unavailable := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	r := newRun(t, Config{Scenario: scn, Strategy: "cortex", Clock: clk, Stack: handlerStack(t, unavailable, newFakeFaults())})
	// Retries wait on real timers: tick by tick, until a snapshot closes while some wait.
	deadline := time.Now().Add(wait)
	for {
		require.True(t, time.Now().Before(deadline), "no snapshot ever showed Q > 0")
		clk.Advance(r.tick)
		snaps := r.Advance(0)
		require.Len(t, snaps, 1)
		require.NotNil(t, snaps[0].Cortex)
		if snaps[0].Cortex.Signals.Q > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Asserts an unbounded run (Duration < 0): Meta has no total, arrivals go on past the
// scenario's duration at the load profile's last factor, and it never ends by itself.
func TestUnboundedRun(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Duration = 500 * time.Millisecond
	clk := manual()
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := newRun(t, Config{Scenario: scn, Strategy: "none", Clock: clk, Duration: -1, Stack: handlerStack(t, ok, newFakeFaults())})
	m := r.Meta()
	assert.Zero(t, m.Total)
	assert.Zero(t, m.Duration)
	clk.Advance(3 * time.Second)
	snaps := r.Advance(0)
	require.Len(t, snaps, 30)
	assert.Positive(t, sum(snaps[20:]).Originals, "arrivals after the scenario's duration")
	assert.False(t, r.Done())
}

// Asserts that every strategy of the catalog, the peers included, runs live through the
// transport as in the simulator: against a service that answers 503 to every other one of its
// requests 21 to 36 (the retries then wait out their strategy's real delays: a few failures
// only, so that the test stays short), each original ends (completed or abandoned), every
// attempt sent has its outcome, every strategy but none retries, and requests complete. The
// failures come after 20 successes: a client's first attempts, answered in any order by the
// concurrent requests, would leave adaptive throttling's window without accepts, where it
// refuses each attempt with a probability up to one half, and so at times every retry of the
// 503s (seen 1 run in 40 under load).
func TestEveryStrategyRunsLive(t *testing.T) {
	t.Parallel()
	for _, name := range strategy.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scn := small()
			scn.Duration, scn.Drain = time.Second, time.Second
			clk := manual()
			var n atomic.Int64
			flaky := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if i := n.Add(1); i > 20 && i <= 36 && i%2 == 0 {
					w.WriteHeader(http.StatusServiceUnavailable)
				}
			})
			r := newRun(t, Config{Scenario: scn, Strategy: name, Seed: 1, Clock: clk, Stack: handlerStack(t, flaky, newFakeFaults())})
			assert.Equal(t, name, r.Meta().Strategy)
			c := sum(stepAll(t, r, clk))
			require.Positive(t, c.Originals)
			assert.Equal(t, c.Originals, c.Completed+c.Abandoned, "every original ends")
			assert.Equal(t, c.Attempts, c.Successes+c.Failures, "every attempt sent has its outcome")
			assert.LessOrEqual(t, c.Attempts-c.Retries, c.Originals, "an original is sent at most once")
			assert.Positive(t, c.Completed)
			if name == "none" {
				assert.Zero(t, c.Retries)
			} else {
				assert.Positive(t, c.Retries, "a 503 is retried")
			}
		})
	}
}
