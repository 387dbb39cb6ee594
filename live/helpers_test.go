package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/waittest"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// wait is how long a test waits for something that should happen soon, on a loaded machine.
const wait = 20 * time.Second

// TestMain runs the parallel tests (most of them: they wait on live traffic, real timers and
// Redis) four at a time and checks, after the last test, that no goroutine outlives them
// (internal/waittest). Four, not more: their traffic computes too (under -race), and sixteen at
// once beside the cli's tests at a load of 8 made loopback answers take over a second. The
// tests that are not parallel run first, one at a time: TestHostileHeapBound, whose bound is on
// the process's heap; those whose point is that they leave no goroutine behind, checked by
// noLeaks (their subtests may run in parallel with each other); and those bounded by a time of
// the program's own (EndGrace, CheckTarget's 3 s, a fleet's sync interval), which the parallel
// tests' load stretched.
func TestMain(m *testing.M) { waittest.Main(m, 4) }

// noLeaks checks, after the test's cleanups (those of its subtests included), that no
// goroutine the test started is left. Only for a test that is not parallel: a parallel one's
// goroutines cannot be told from the others'; the package's TestMain checks those.
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// fakeFaults records the fault controls it is given; refuse makes Set fail for a kind.
type fakeFaults struct {
	mu     sync.Mutex
	active map[scenarios.FaultKind]float64
	calls  []string
	refuse map[scenarios.FaultKind]string
}

func newFakeFaults() *fakeFaults {
	return &fakeFaults{active: map[scenarios.FaultKind]float64{}, refuse: map[scenarios.FaultKind]string{}}
}

func (f *fakeFaults) Set(k scenarios.FaultKind, v float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if why, ok := f.refuse[k]; ok {
		return &refusal{why}
	}
	f.active[k] = v
	f.calls = append(f.calls, "set "+string(k))
	return nil
}

func (f *fakeFaults) Clear(k scenarios.FaultKind) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.active, k)
	f.calls = append(f.calls, "clear "+string(k))
}

func (f *fakeFaults) ClearAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.active)
	f.calls = append(f.calls, "clear all")
}

func (f *fakeFaults) snapshot() (map[scenarios.FaultKind]float64, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := map[scenarios.FaultKind]float64{}
	for k, v := range f.active {
		m[k] = v
	}
	return m, append([]string(nil), f.calls...)
}

type refusal struct{ why string }

func (r *refusal) Error() string { return r.why }

// handlerStack returns a stack builder sending to an httptest server on loopback running h,
// with faults as its fault controls; the server is closed with the stack.
func handlerStack(t *testing.T, h http.Handler, faults Faults) StackBuilder {
	t.Helper()
	return func(context.Context) (*Stack, error) {
		srv := httptest.NewServer(h)
		u, err := url.Parse(srv.URL)
		require.NoError(t, err)
		return &Stack{URL: u, Faults: faults, Close: func() error { srv.CloseClientConnections(); srv.Close(); return nil }}, nil
	}
}

// small is a scenario of a few seconds at a small rate against a fast service.
func small() scenarios.Scenario {
	s := scenarios.Defaults()
	s.Name, s.Summary = "small", "a small live test"
	s.Duration, s.Drain = 3*time.Second, time.Second
	s.Clients = 4
	// An attempt has 4 s: on a loaded machine under -race an attempt to a loopback server ran out
	// of 1 s (a retry against a healthy server); a test of timeouts sets its own. The deadline
	// stays 5 s: stepAll's settle waits for retries that strategies delay up to it.
	s.Timeout, s.Deadline = 4*time.Second, 5*time.Second
	s.Classes = []scenarios.Class{{Name: "payment", Priority: 9, Rate: 30}, {Name: "analytics", Priority: 1, Rate: 20}}
	s.Service = scenarios.Service{Workers: 20, ServiceTime: 5 * time.Millisecond, QueueLimit: 50, WarmStart: 0.3, RefusalCost: 0.1}
	return s
}

// manual returns a manual clock at a fixed instant.
func manual() *engine.ManualClock {
	return engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

// newRun builds a run with cfg, closed when the test ends.
func newRun(t *testing.T, cfg Config) *Run {
	t.Helper()
	r, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, r.Close()) })
	return r
}

// settle waits until the run has no request alive (every outcome tallied).
func settle(t *testing.T, r *Run) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for len(r.fleet.slots) > 0 {
		require.True(t, time.Now().Before(deadline), "requests still alive after %s", wait)
		time.Sleep(time.Millisecond)
	}
}

// stepAll moves clk tick by tick to the end of r, settling the requests before each tick
// closes, and returns every snapshot.
func stepAll(t *testing.T, r *Run, clk *engine.ManualClock) []source.Snapshot {
	t.Helper()
	var out []source.Snapshot
	for i := 0; i < 100000 && !r.Done(); i++ {
		// send the tick's arrivals, let their requests finish, then close the tick
		clk.Advance(r.tick - time.Nanosecond)
		out = append(out, r.Advance(0)...)
		settle(t, r)
		clk.Advance(time.Nanosecond)
		out = append(out, r.Advance(0)...)
	}
	return out
}

// sum adds up the counts of snaps.
func sum(snaps []source.Snapshot) source.Counts {
	var c source.Counts
	for _, s := range snaps {
		x := s.Counts
		c.Originals += x.Originals
		c.Attempts += x.Attempts
		c.Retries += x.Retries
		c.Successes += x.Successes
		c.Failures += x.Failures
		c.Timeouts += x.Timeouts
		c.FastFails += x.FastFails
		c.ServerErrors += x.ServerErrors
		c.Throttled += x.Throttled
		c.BadRequests += x.BadRequests
		c.LocalRejects += x.LocalRejects
		c.Completed += x.Completed
		c.Abandoned += x.Abandoned
		c.RetryFailures += x.RetryFailures
		c.Crashes += x.Crashes
		for i, n := range x.FailureCauses {
			c.FailureCauses[i] += n
		}
	}
	return c
}
