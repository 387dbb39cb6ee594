package sim

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// runJSON runs scn and returns the run document's bytes.
func runJSON(t *testing.T, scn scenarios.Scenario, strat string, seed int64) []byte {
	t.Helper()
	res, err := run(scn, strat, seed)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, res.Meta, res.Timeline, res.Summary))
	return b.Bytes()
}

// stepAll runs a Sim to the end and returns every snapshot.
func stepAll(t *testing.T, s *Sim) []source.Snapshot {
	t.Helper()
	var out []source.Snapshot
	for !s.Done() {
		out = append(out, s.Step())
	}
	return out
}

// withOutage returns testScenario with an outage from 20 s to 40 s (a third of the 60 s).
func withOutage() scenarios.Scenario {
	scn := testScenario()
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 20 * time.Second, Duration: 20 * time.Second}}
	return scn
}

// Asserts that the same seed gives byte-identical JSON for every strategy, and that
// different seeds give different runs.
func TestDeterminism(t *testing.T) {
	racedetect.SkipWholeRuns(t) // one goroutine: make test runs it without the race detector
	for _, name := range strategy.Names() {
		t.Run(name, func(t *testing.T) {
			a := runJSON(t, withOutage(), name, 7)
			b := runJSON(t, withOutage(), name, 7)
			assert.Equal(t, string(a), string(b), "same seed, same bytes")
			c := runJSON(t, withOutage(), name, 8)
			assert.NotEqual(t, string(a), string(c), "another seed, another run")
		})
	}
}

// Asserts that two sims with the same seed and different strategies see identical arrivals,
// tick by tick and class by class (compare mode relies on it).
func TestSameArrivalsAcrossStrategies(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	names := strategy.Names()
	base, err := New(withOutage(), names[0], 3)
	require.NoError(t, err)
	want := stepAll(t, base)
	for _, name := range names[1:] {
		s, err := New(withOutage(), name, 3)
		require.NoError(t, err)
		got := stepAll(t, s)
		require.Len(t, got, len(want), name)
		for i := range want {
			require.Equal(t, want[i].Counts.Originals, got[i].Counts.Originals, "%s tick %d", name, i)
			for c := range want[i].Classes {
				require.Equal(t, want[i].Classes[c].Arrived, got[i].Classes[c].Arrived, "%s tick %d class %d", name, i, c)
			}
		}
	}
}

// Asserts that arrivals follow the configured rate (Poisson: the count over 60 s is within
// 4 standard deviations of rate x duration) and the class mix.
func TestArrivalRate(t *testing.T) {
	res, err := run(testScenario(), "none", 1)
	require.NoError(t, err)
	total := 0
	for _, r := range res.Timeline {
		total += r.Originals
	}
	mean := 100.0 * 60
	assert.InDelta(t, mean, float64(total), 4*math.Sqrt(mean))
}

// Asserts that the service's capacity is workers / mean service time, and that a saturated
// service completes about that many attempts per second.
func TestCapacityIsWorkersOverServiceTime(t *testing.T) {
	cases := []struct {
		workers int
		s       time.Duration
	}{{20, 100 * time.Millisecond}, {50, 250 * time.Millisecond}, {8, 40 * time.Millisecond}}
	for _, c := range cases {
		scn := testScenario()
		scn.Service.Workers, scn.Service.ServiceTime = c.workers, c.s
		scn.Service.QueueLimit = 100000
		scn.Timeout = time.Hour // nobody gives up: the server is the bottleneck
		scn.Deadline = 2 * time.Hour
		want := float64(c.workers) / c.s.Seconds()
		scn.Classes = []scenarios.Class{{Name: "x", Priority: 5, Rate: 2 * want}} // twice the capacity
		scn.Duration = 40 * time.Second
		s, err := New(scn, "none", 1)
		require.NoError(t, err)
		snaps := stepAll(t, s)
		assert.InDelta(t, want, snaps[0].Service.Capacity, 1e-9, "capacity gauge")
		done := 0
		for _, sn := range snaps[50:350] { // 5 s .. 35 s: saturated
			done += sn.Counts.Successes
		}
		assert.InEpsilon(t, want, float64(done)/30, 0.03, "throughput of a saturated service")
	}
}

// Asserts that with `none` and a total outage of a third of the run, about two thirds of
// the requests succeed.
func TestNoneOutageThird(t *testing.T) {
	res, err := run(withOutage(), "none", 1)
	require.NoError(t, err)
	assert.InDelta(t, 2.0/3, res.Summary.SuccessRate, 0.03)
	assert.Equal(t, 0, res.Summary.Retries)
	assert.InDelta(t, 1.0, res.Summary.Amplification, 1e-9)
}

// Asserts that with `naive` (3 retries) and every attempt failing, attempts settle at 4x
// the arrivals; each intermediate tier's 3 naive retries multiply that by 4 again: 16x with
// two layers, 64x with three.
func TestNaiveAmplification(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	cases := []struct {
		layers int
		want   float64
	}{{1, 4}, {2, 16}, {3, 64}}
	for _, c := range cases {
		scn := testScenario()
		scn.Layers = c.layers
		scn.Drain = 40 * time.Second // past every deadline: nothing is left in flight
		scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultErrors, At: 0, Value: 1}}
		res, err := run(scn, "naive", 1)
		require.NoError(t, err)
		assert.InDelta(t, c.want, res.Summary.Amplification, 0.01, "layers %d", c.layers)
		assert.Zero(t, res.Summary.SuccessRate)
		assert.Equal(t, res.Summary.Retries, res.Summary.WastedRetries, "every retry failed")
	}
}

// manualScenario is one worker with a constant 5 s service time, a 1 s timeout and no
// arrivals of its own: tests add requests by hand.
func manualScenario(dropExpired bool) scenarios.Scenario {
	scn := testScenario()
	scn.Clients = 1
	scn.Timeout = time.Second
	scn.Classes = []scenarios.Class{{Name: "x", Priority: 5, Rate: 0}}
	scn.Service = scenarios.Service{Workers: 1, ServiceTime: 5 * time.Second, QueueLimit: 10, DropExpired: dropExpired}
	return scn
}

// stepUntil steps s until its time reaches t.
func stepUntil(s *Sim, t time.Duration) source.Counts {
	var sum source.Counts
	for s.Now() < t && !s.Done() {
		c := s.Step().Counts
		sum.Timeouts += c.Timeouts
		sum.Successes += c.Successes
	}
	return sum
}

// Asserts that a timed-out attempt still occupies its worker until the work is done, and
// that the attempt queued behind it waits for that wasted work unless drop_expired is set.
func TestTimedOutAttemptStillOccupiesServer(t *testing.T) {
	for _, drop := range []bool{false, true} {
		s, err := New(manualScenario(drop), "none", 1)
		require.NoError(t, err)
		s.newRequest(0, 0, -1, 0) // served at once, takes 5 s
		s.newRequest(0, 0, -1, 0) // queued behind it
		c := stepUntil(s, 1500*time.Millisecond)
		assert.Equal(t, 2, c.Timeouts, "both time out at 1 s")
		assert.Equal(t, 1, s.svc.Busy, "the worker still serves the timed-out attempt")
		assert.Equal(t, 1, s.svc.queue.Len(), "the second is still queued")
		stepUntil(s, 5500*time.Millisecond)
		if drop {
			assert.Equal(t, 0, s.svc.Busy, "drop_expired: the expired attempt is skipped")
		} else {
			assert.Equal(t, 1, s.svc.Busy, "the expired attempt is served anyway")
		}
		assert.Zero(t, s.svc.queue.Len())
	}
}

// Asserts that overload past crash_factor for crash_after crashes the service, that it stays
// down for restart_delay, and that it then warms up from warm_start to full capacity, each
// change reported by a service event with its cause and values.
func TestOverloadCrashAndWarmup(t *testing.T) {
	scn := testScenario()
	scn.Classes = []scenarios.Class{{Name: "x", Priority: 5, Rate: 1000}} // 5x capacity 200
	scn.Load = []scenarios.LoadPoint{{At: 0, Factor: 1}, {At: 4 * time.Second, Factor: 1}, {At: 4*time.Second + time.Millisecond, Factor: 0.1}}
	scn.Service.CrashFactor = 2
	scn.Service.RefusalCost = 1 // the 503s of the full queue weigh as much as served attempts
	scn.Service.CrashAfter = 3 * time.Second
	scn.Service.RestartDelay = 5 * time.Second
	scn.Service.WarmStart = 0.3
	scn.Service.Warmup = 10 * time.Second
	s, err := New(scn, "none", 1)
	require.NoError(t, err)
	snaps := stepAll(t, s)
	crashAt, crashes := -1, 0
	for i, sn := range snaps {
		crashes += sn.Counts.Crashes
		if sn.Counts.Crashes > 0 && crashAt < 0 {
			crashAt = i
		}
	}
	require.Equal(t, 1, crashes)
	assert.Equal(t, 29, crashAt, "crashes at the end of the 30th overloaded tick (3 s)")
	for i := 0; i <= crashAt; i++ { // overloaded from the first tick (5x capacity)
		assert.Equal(t, time.Duration(i+1)*scenarios.DefaultTick, snaps[i].Service.Overload,
			"tick %d: the overload clock runs up to crash_after, reached on the crash tick", i)
	}
	assert.Zero(t, snaps[crashAt+1].Service.Overload, "a crashed service is not overloaded")
	state := func(t time.Duration) source.Service { return snaps[int(t/scenarios.DefaultTick)-1].Service }
	assert.Equal(t, source.ServiceCrashed, state(5*time.Second).State)
	assert.Equal(t, source.ServiceCrashed, state(7900*time.Millisecond).State)
	w := state(8100 * time.Millisecond)
	assert.Equal(t, source.ServiceWarming, w.State, "restarts after 5 s")
	assert.InDelta(t, 0.3*200, w.Capacity, 0.05*200, "starts at warm_start")
	mid := state(13 * time.Second)
	assert.Greater(t, mid.Capacity, w.Capacity, "capacity ramps up")
	assert.Less(t, mid.Capacity, 200.0)
	assert.Equal(t, source.ServiceUp, state(19*time.Second).State, "full capacity after warmup")
	assert.InDelta(t, 200, state(19*time.Second).Capacity, 1e-9)

	var evs []source.ServiceEvent // the service's events say the same, with their causes and values
	for _, sn := range snaps {
		for _, e := range sn.Events {
			if e.Kind == source.EventService {
				evs = append(evs, e.Service)
			}
		}
	}
	require.Len(t, evs, 3)
	assert.Equal(t, source.ServiceEvent{State: source.ServiceCrashed, Cause: source.CauseOverload, Utilisation: evs[0].Utilisation,
		Overloaded: 3 * time.Second, RestartIn: 5 * time.Second}, evs[0])
	assert.Greater(t, evs[0].Utilisation, 1.0)
	assert.Equal(t, source.ServiceEvent{State: source.ServiceWarming, Cause: source.CauseRestart, WarmStart: 0.3, Warmup: 10 * time.Second}, evs[1])
	assert.Equal(t, source.ServiceEvent{State: source.ServiceUp, Cause: source.CauseWarmedUp}, evs[2])
}

// Asserts the crash rule's offered load with refusal_cost: a flood at 5x capacity that the
// service refuses (503 from a full queue, 429 from a throttle, 4xx from bad_requests) offers
// accepted + refusal_cost x refused attempts per second, so with a low refusal_cost it no
// longer crashes the service, while with refusal_cost = 1 (every refusal as heavy as a served
// attempt) it still does. The expected utilisation is computed from the case's rates.
func TestRefusalCostCrashRule(t *testing.T) {
	const (
		rate     = 1000.0 // requests/s offered, 5x the capacity
		capacity = 200.0  // testScenario: 20 workers x 100 ms
		cf       = 2.0
	)
	type flood struct {
		name  string
		fault *scenarios.Fault
		// accepted and refused attempts per second, and the capacity the rule divides by
		accepted, refused, able float64
	}
	throttle, bad := 150.0, 0.5
	floods := []flood{
		{"queue full (503)", nil, capacity, rate - capacity, capacity},
		{"throttle (429)", &scenarios.Fault{Kind: scenarios.FaultThrottle, Value: throttle, Duration: time.Minute},
			throttle, rate - throttle, throttle},
		{"bad requests (4xx) and a full queue (503)", &scenarios.Fault{Kind: scenarios.FaultBadRequests, Value: bad, Duration: time.Minute},
			capacity, rate - capacity, capacity},
	}
	for _, f := range floods {
		for _, rc := range []float64{0, 0.1, 1} {
			t.Run(fmt.Sprintf("%s, refusal_cost %g", f.name, rc), func(t *testing.T) {
				want := (f.accepted + rc*f.refused) / f.able
				require.Greater(t, math.Abs(want-cf), 0.2*cf, "the case is not on the crash factor's edge")
				scn := testScenario()
				scn.Duration = 10 * time.Second
				scn.Classes = []scenarios.Class{{Name: "x", Priority: 5, Rate: rate}}
				scn.Service.CrashFactor, scn.Service.CrashAfter, scn.Service.RestartDelay = cf, 3*time.Second, 5*time.Second
				scn.Service.RefusalCost = rc
				if f.fault != nil {
					scn.Faults = []scenarios.Fault{*f.fault}
				}
				s, err := New(scn, "none", 1)
				require.NoError(t, err)
				snaps := stepAll(t, s)
				util := 0.0
				for _, sn := range snaps[10:25] { // after the queue filled, before a crash at 3 s
					util += sn.Service.Utilisation / 15
				}
				assert.InDelta(t, want, util, 0.1*want, "offered = accepted + refusal_cost x refused")
				crashes := 0
				for _, sn := range snaps {
					crashes += sn.Counts.Crashes
				}
				if want > cf {
					assert.Positive(t, crashes, "utilisation %.2f above the crash factor %.1f", want, cf)
				} else {
					assert.Zero(t, crashes, "utilisation %.2f under the crash factor %.1f", want, cf)
				}
			})
		}
	}
}

// Asserts that each fault kind acts on the attempts the way the spec says.
func TestFaultKinds(t *testing.T) {
	cases := []struct {
		kind  scenarios.FaultKind
		value float64
		check func(t *testing.T, c source.Counts, sv source.Service)
	}{
		{scenarios.FaultOutage, 0, func(t *testing.T, c source.Counts, sv source.Service) {
			assert.Equal(t, c.Attempts, c.FastFails)
			assert.Equal(t, source.ServiceDown, sv.State)
		}},
		{scenarios.FaultBlackhole, 0, func(t *testing.T, c source.Counts, _ source.Service) {
			assert.Zero(t, c.Successes)
			assert.Positive(t, c.Timeouts)
			assert.Zero(t, c.FastFails)
		}},
		{scenarios.FaultLatency, 0.1, func(t *testing.T, c source.Counts, sv source.Service) {
			assert.InDelta(t, 20/0.2, sv.Capacity, 1e-9, "S doubles, capacity halves")
		}},
		{scenarios.FaultErrors, 0.5, func(t *testing.T, c source.Counts, _ source.Service) {
			assert.InDelta(t, 0.5, float64(c.ServerErrors)/float64(c.ServerErrors+c.Successes), 0.05)
		}},
		{scenarios.FaultThrottle, 50, func(t *testing.T, c source.Counts, sv source.Service) {
			assert.InDelta(t, 50, float64(c.Successes)/20, 5, "about 50 accepted per second")
			assert.Positive(t, c.Throttled)
			assert.InDelta(t, 50, sv.Capacity, 1e-9)
		}},
		{scenarios.FaultCapacity, 0.5, func(t *testing.T, c source.Counts, sv source.Service) {
			assert.InDelta(t, 100, sv.Capacity, 1e-9)
		}},
		{scenarios.FaultBadRequests, 0.3, func(t *testing.T, c source.Counts, _ source.Service) {
			assert.InDelta(t, 0.3, float64(c.BadRequests)/float64(c.Attempts), 0.05)
		}},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			scn := testScenario()
			scn.Faults = []scenarios.Fault{{Kind: tc.kind, At: 10 * time.Second, Duration: 30 * time.Second, Value: tc.value}}
			s, err := New(scn, "none", 1)
			require.NoError(t, err)
			snaps := stepAll(t, s)
			var sum source.Counts
			for _, sn := range snaps[150:350] { // 15 s .. 35 s
				sum = addCounts(sum, sn.Counts)
				require.Len(t, sn.Faults, 1)
				assert.Equal(t, tc.kind, sn.Faults[0].Kind)
			}
			tc.check(t, sum, snaps[300].Service)
			assert.Empty(t, snaps[450].Faults, "ended at 40 s")
		})
	}
}

func addCounts(a, b source.Counts) source.Counts {
	a.Originals += b.Originals
	a.Attempts += b.Attempts
	a.Retries += b.Retries
	a.Successes += b.Successes
	a.Failures += b.Failures
	a.Timeouts += b.Timeouts
	a.FastFails += b.FastFails
	a.ServerErrors += b.ServerErrors
	a.Throttled += b.Throttled
	a.BadRequests += b.BadRequests
	a.Completed += b.Completed
	a.Abandoned += b.Abandoned
	return a
}

// Asserts the bookkeeping identities of every tick: failures are the sum of their causes,
// and over a whole run every original ends exactly once (completed or abandoned) and every
// attempt has one outcome: the run drains for the deadline and the timeout after the last
// arrival, so that no attempt is still in flight at its end (a request held by its strategy
// may be sent up to its deadline).
func TestCountIdentities(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	scn := withOutage()
	scn.Drain = scenarios.DefaultDeadline + scenarios.DefaultTimeout
	for _, name := range strategy.Names() {
		s, err := New(scn, name, 2)
		require.NoError(t, err)
		var sum source.Counts
		for _, sn := range stepAll(t, s) {
			c := sn.Counts
			require.Equal(t, c.Failures, c.Timeouts+c.FastFails+c.ServerErrors+c.Throttled+c.BadRequests, name)
			sum = addCounts(sum, c)
		}
		assert.Equal(t, sum.Originals, sum.Completed+sum.Abandoned, "%s: every original ends once", name)
		assert.Equal(t, sum.Attempts, sum.Successes+sum.Failures, "%s: every attempt has one outcome", name)
	}
}

// Asserts that a cortex run fills the CORTEX view with values in range and that other
// strategies leave it nil.
func TestCortexView(t *testing.T) {
	s, err := New(withOutage(), "cortex", 1)
	require.NoError(t, err)
	snaps := stepAll(t, s)
	for _, sn := range snaps {
		v := sn.Cortex
		require.NotNil(t, v)
		assert.True(t, v.CPS >= 0 && v.CPS <= 1)
		assert.LessOrEqual(t, v.CPSMin, v.CPS+1e-12)
		assert.GreaterOrEqual(t, v.CPSMax, v.CPS-1e-12)
	}
	n, err := New(withOutage(), "naive", 1)
	require.NoError(t, err)
	assert.Nil(t, n.Step().Cortex)
}

// Asserts that New rejects invalid scenarios and strategies with an error naming the
// problem, never a panic.
func TestNewRejectsBadInput(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*scenarios.Scenario)
		strat  string
		want   string
	}{
		{"no classes", func(s *scenarios.Scenario) { s.Classes = nil }, "none", "classes"},
		{"no workers", func(s *scenarios.Scenario) { s.Service.Workers = 0 }, "none", "service.workers"},
		{"zero service time", func(s *scenarios.Scenario) { s.Service.ServiceTime = 0 }, "none", "service.service_time"},
		{"negative rate", func(s *scenarios.Scenario) { s.Classes[0].Rate = -1 }, "none", "rate"},
		{"NaN rate", func(s *scenarios.Scenario) { s.Classes[0].Rate = math.NaN() }, "none", "rate"},
		{"bad priority", func(s *scenarios.Scenario) { s.Classes[0].Priority = 11 }, "none", "priority"},
		{"six layers", func(s *scenarios.Scenario) { s.Layers = 6 }, "none", "layers"},
		{"long tick", func(s *scenarios.Scenario) { s.Tick = 2 * time.Second }, "none", "tick"},
		{"refusal cost above 1", func(s *scenarios.Scenario) { s.Service.RefusalCost = 1.5 }, "none", "service.refusal_cost must be in [0, 1]"},
		{"NaN refusal cost", func(s *scenarios.Scenario) { s.Service.RefusalCost = math.NaN() }, "none", "service.refusal_cost"},
		{"bad fault", func(s *scenarios.Scenario) {
			s.Faults = []scenarios.Fault{{Kind: "meteor", At: time.Second}}
		}, "none", "meteor"},
		{"errors above 1", func(s *scenarios.Scenario) {
			s.Faults = []scenarios.Fault{{Kind: scenarios.FaultErrors, Value: 2}}
		}, "none", "errors"},
		{"unknown strategy", func(*scenarios.Scenario) {}, "yolo", "yolo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scn := testScenario()
			c.mutate(&scn)
			_, err := New(scn, c.strat, 1)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// Asserts the tiers' odometer: the tier nearest the service retries first, a tier above it
// retries once the ones below are exhausted (they start afresh), and the last failure goes back
// to the client after (1 + TierRetries)^n attempts.
func TestNextTiers(t *testing.T) {
	for n := range 5 {
		p, attempts := uint8(0), 1
		seen := map[uint8]bool{0: true}
		for {
			next, ok := nextTiers(p, n)
			if !ok {
				break
			}
			require.False(t, seen[next], "%d tiers: state %08b comes back", n, next)
			seen[next] = true
			p = next
			attempts++
		}
		assert.Equal(t, int(math.Pow(1+TierRetries, float64(n))), attempts, "%d tiers", n)
	}
}

// Asserts that a run's goodput is the originals the simulator counted as completed (within
// their deadline, drain included) divided by the scenario's arrival phase in seconds, for
// built-in scenarios with and without retries, and that it agrees with the success rate.
func TestGoodputFromCounts(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	for _, name := range []string{"black-friday", "closed-loop"} {
		for _, strat := range []string{"none", "naive"} {
			t.Run(name+"/"+strat, func(t *testing.T) {
				scn, err := scenarios.Lookup(name)
				require.NoError(t, err)
				s, err := New(scn, strat, 1)
				require.NoError(t, err)
				rec := report.NewRecorder(s.Meta())
				completed, originals := 0, 0
				for !s.Done() {
					sn := s.Step()
					rec.Add(sn)
					completed += sn.Counts.Completed
					originals += sn.Counts.Originals
				}
				sum := rec.Summary()
				require.Positive(t, completed)
				assert.InDelta(t, float64(completed)/scn.Duration.Seconds(), sum.Goodput, 0.005)
				assert.InDelta(t, sum.SuccessRate*float64(originals)/scn.Duration.Seconds(), sum.Goodput, 0.01*sum.Goodput,
					"goodput = success rate x originals per second of arrivals")
			})
		}
	}
}
