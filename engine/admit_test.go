package engine

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queueing is a toy service for the admission tests: each second it completes at most capacity
// of the requests sent to it, each after latency, and answers the rest at once with a refusal
// (a 503 from a full queue), or, with slowOnly, completes every request after latency (a slow
// dependency, not a queue).
type queueing struct {
	capacity int
	latency  time.Duration
	slowOnly bool
}

// mix is the priorities of the originals asked each second, in order: 30% priority 1, 30%
// priority 5, 40% priority 9.
func mix(n int) []int {
	out := make([]int, 0, n)
	for i := range n {
		switch {
		case i%10 < 3:
			out = append(out, 1)
		case i%10 < 6:
			out = append(out, 5)
		default:
			out = append(out, 9)
		}
	}
	return out
}

// client is a toy caller for the admission tests: it asks AdmitRequest for every new request
// (with a 2 s deadline), sends what is admitted to a queueing service, and asks again for what
// is held, after its Delay, until its deadline.
type client struct {
	e     *Engine
	clock *ManualClock
	now   time.Duration
	held  []heldReq
}

type heldReq struct {
	prio         int
	at, deadline time.Duration
}

// traffic is what a second of a client's traffic did, by priority: new requests asked, attempts
// sent (the first time or after a hold), shed, and expired while held.
type traffic struct{ asked, sent, shed, expired map[int]int }

// second drives one second of traffic: every original of prios, spread over the second, and
// the held requests whose time came, against svc.
func (c *client) second(svc queueing, prios []int) traffic {
	n := traffic{map[int]int{}, map[int]int{}, map[int]int{}, map[int]int{}}
	every := time.Second / time.Duration(len(prios))
	served := 0
	ask := func(p int, deadline time.Duration) {
		d := c.e.AdmitRequest(Request{Priority: p, Remaining: deadline - c.now})
		switch {
		case d.Action != Retry:
			n.shed[p]++
		case d.Delay > 0:
			c.held = append(c.held, heldReq{p, c.now + d.Delay, deadline})
		default:
			n.sent[p]++
			if svc.slowOnly || served < svc.capacity {
				served++
				c.e.RecordSuccess(svc.latency)
			} else {
				c.e.RecordRefused(time.Millisecond) // a full queue's 503
			}
		}
	}
	for _, p := range prios {
		c.clock.Advance(every)
		c.now += every
		due := c.held[:0:0]
		keep := c.held[:0]
		for _, h := range c.held {
			switch {
			case h.deadline <= c.now:
				n.expired[h.prio]++
			case h.at <= c.now:
				due = append(due, h)
			default:
				keep = append(keep, h)
			}
		}
		c.held = keep
		for _, h := range due {
			ask(h.prio, h.deadline)
		}
		n.asked[p]++
		ask(p, c.now+2*time.Second)
	}
	return n
}

// newClient returns a client of a new test engine (mutate as newTestEngine's) after a healthy
// minute at 50 ms, so that its baseline is formed.
func newClient(t *testing.T, mutate func(c *Config)) *client {
	t.Helper()
	e, clock := newTestEngine(t, mutate)
	c := &client{e: e, clock: clock}
	for range 60 {
		c.second(queueing{capacity: 1000, latency: 50 * time.Millisecond}, mix(100))
	}
	require.Equal(t, 50*time.Millisecond, e.Snapshot().Baseline)
	require.False(t, e.Snapshot().Shedding)
	return c
}

func sum(m map[int]int) (n int) {
	for _, v := range m {
		n += v
	}
	return n
}

// TestAdmitPacesWhatTheServiceCanComplete asserts that, when a service completes 120 of the
// 200 requests a second it is asked, slowly (a queue) and refusing the rest, the engine paces
// what it sends: within five seconds what the service completes (120 a second), the rest held
// or shed, lowest priorities first (priority 9 sent nearly whole, priority 1 least, and shed);
// and that once the service answers fast again its held requests go within four seconds, then every new request at once, and the
// pacer turns off.
func TestAdmitPacesWhatTheServiceCanComplete(t *testing.T) {
	c := newClient(t, nil)
	overload := queueing{capacity: 120, latency: 400 * time.Millisecond}
	for range 5 {
		c.second(overload, mix(200))
	}
	n := c.second(overload, mix(200))
	s := c.e.Snapshot()
	require.True(t, s.Shedding, "the service queues")
	assert.InDelta(t, 120, sum(n.sent), 12, "what the service completes")
	assert.GreaterOrEqual(t, n.sent[9], 64, "priority 9 (80 a second) goes nearly whole")
	assert.Greater(t, n.sent[9]*60, n.sent[5]*80, "priority 9 before priority 5")
	assert.Greater(t, n.sent[5], n.sent[1], "priority 5 before priority 1")
	assert.Greater(t, n.shed[1], n.shed[9], "priority 1 shed first")
	assert.Positive(t, s.OriginalsShed)
	assert.Positive(t, s.ShedShare)

	healthy := queueing{capacity: 1000, latency: 50 * time.Millisecond}
	drained := 0
	for len(c.held) > 0 && drained < 10 {
		c.second(healthy, mix(200))
		drained++
	}
	assert.LessOrEqual(t, drained, 4, "the held requests drain")
	n = c.second(healthy, mix(200))
	assert.Equal(t, n.asked, n.sent, "fast successes release the pacer")
	assert.Empty(t, c.held)
	assert.False(t, c.e.Snapshot().Shedding)
}

// TestAdmitLeavesASlowDependencyAlone asserts that slow successes alone (a dependency eight
// times slower, every request completed) shed nothing: without refusals, failures or a
// CRITICAL score, slowness is not a queue that pacing could drain.
func TestAdmitLeavesASlowDependencyAlone(t *testing.T) {
	c := newClient(t, nil)
	for range 10 {
		n := c.second(queueing{latency: 400 * time.Millisecond, slowOnly: true}, mix(200))
		assert.Equal(t, n.asked, n.sent)
	}
	assert.False(t, c.e.Snapshot().Shedding)
	assert.Zero(t, c.e.Snapshot().OriginalsShed)
}

// TestAdmitTakesASteadySlownessAsTheServices asserts that once the pacer is on, a slowness
// that does not ease over a short span of pacing (a slow dependency that also failed some
// requests as it began) stops counting as a queue: the engine sends everything again.
func TestAdmitTakesASteadySlownessAsTheServices(t *testing.T) {
	c := newClient(t, nil)
	c.second(queueing{capacity: 100, latency: 400 * time.Millisecond}, mix(200)) // failures as it begins
	c.second(queueing{capacity: 100, latency: 400 * time.Millisecond}, mix(200))
	require.True(t, c.e.Snapshot().Shedding)
	var n traffic
	for range 12 {
		n = c.second(queueing{latency: 400 * time.Millisecond, slowOnly: true}, mix(200))
	}
	assert.Equal(t, n.asked, n.sent)
	assert.False(t, c.e.Snapshot().Shedding)
}

// TestSteadySlownessPricesRetriesAsHealthy asserts that a slowness the pacer has taken as the
// service's own (TestAdmitTakesASteadySlownessAsTheServices) stops pricing retries: a slow
// dependency has no queue for a retry to join, so S is 0 and a timeout's retry costs one token
// (held-out slow-dependency, seed 11: 134 retries refused for the budget -> 66); a slowness
// beyond it (the queue grows again) prices them again.
func TestSteadySlownessPricesRetriesAsHealthy(t *testing.T) {
	c := newClient(t, nil)
	c.second(queueing{capacity: 100, latency: 400 * time.Millisecond}, mix(200))
	c.second(queueing{capacity: 100, latency: 400 * time.Millisecond}, mix(200))
	require.Equal(t, 1.0, c.e.Snapshot().Slowdown, "new slowness: a queue, until the pacer knows better")
	for range 12 {
		c.second(queueing{latency: 400 * time.Millisecond, slowOnly: true}, mix(200))
	}
	require.False(t, c.e.Snapshot().Shedding)
	assert.Zero(t, c.e.Snapshot().Slowdown, "the service's own slowness")
	before := c.e.Snapshot().Tokens
	d := c.e.Decide(Failure{Priority: 5, Timeout: true})
	require.Equal(t, Retry, d.Action, d.Reason)
	assert.InDelta(t, 1, before-c.e.Snapshot().Tokens, 0.01, "a timeout's retry costs one token")

	for range 2 {
		c.second(queueing{latency: time.Second, slowOnly: true}, mix(200))
	}
	assert.Positive(t, c.e.Snapshot().Slowdown, "slower than the service's own: priced again")
}

// TestAdmitArticle asserts that with the article's parameters (AdmitOriginals off) every new
// request goes, however overloaded the service, and is counted.
func TestAdmitArticle(t *testing.T) {
	c := newClient(t, onArticle(nil))
	for range 10 {
		n := c.second(queueing{capacity: 50, latency: 2 * time.Second}, mix(200))
		require.Equal(t, n.asked, n.sent)
	}
	s := c.e.Snapshot()
	assert.Zero(t, s.OriginalsShed)
	assert.Equal(t, uint64(60*100+10*200), s.OriginalsAdmitted)
}

// TestAdmitDecision asserts what Admit's answer carries: the clamped priority, the admission
// floor, the score now, ADMITTED, HELD or SHED_LOW_PRIORITY, and that AdmitRequestExplained
// gives the same answer with the pace, the smoothed completions and the check that decided.
func TestAdmitDecision(t *testing.T) {
	e, _ := newTestEngine(t, nil)
	d := e.Admit(42)
	assert.Equal(t, Decision{Action: Retry, Priority: MaxPriority, Reason: ReasonAdmitted, State: Healthy}, d)
	assert.Equal(t, 0, e.Admit(-3).Priority)

	c := newClient(t, nil)
	for range 6 {
		c.second(queueing{capacity: 120, latency: 400 * time.Millisecond}, mix(200))
	}
	for range 50 { // priority 9 takes the slots of the next second
		c.e.AdmitRequest(Request{Priority: 9, Remaining: 5 * time.Second})
	}
	var x Explanation
	d = c.e.AdmitRequestExplained(Request{Priority: 1, Remaining: 300 * time.Millisecond}, &x)
	assert.Equal(t, Reject, d.Action)
	assert.Equal(t, ReasonShedLowPriority, d.Reason)
	assert.Equal(t, d, x.Decision)
	assert.True(t, x.Original)
	assert.True(t, x.Shedding)
	assert.Equal(t, 4, x.Check)
	assert.InDelta(t, 1.1*x.Completed, x.Pace, 15, "a tenth more than completed")
	assert.Equal(t, d.CPS, x.CPS)
	assert.GreaterOrEqual(t, x.Slowdown, 0.5)
	d = c.e.AdmitRequestExplained(Request{Priority: 9, Remaining: 5 * time.Second}, &x)
	assert.Equal(t, Retry, d.Action)
	assert.Equal(t, ReasonHeld, d.Reason, "priority 9 waits for a slot")
	assert.Positive(t, d.Delay)
	assert.Equal(t, 4, x.Check)
}

// TestAdmitAllocatesNothing asserts that Admit, the hot path of every new request, allocates
// nothing.
func TestAdmitAllocatesNothing(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	var d Decision
	allocs := testing.AllocsPerRun(1000, func() {
		clock.Advance(time.Millisecond)
		e.AdmitTo(&d, 5)
		e.RecordSuccess(10 * time.Millisecond)
	})
	assert.Zero(t, allocs)
}

// TestAdmitRequestHolds asserts AdmitRequest's holds of a retry decided with Hold
// (HoldForProbe): while the circuit is OPEN it is held until the cooldown ends (plus a quarter
// of it at most, the midpoint in deterministic mode); one whose deadline leaves no time goes;
// with every HALF_OPEN probe slot taken it waits for up to two attempts' time; outside the
// recovery ramp's share a low priority waits for the ramp; a retry decided without Hold, a new
// request, or any retry without HoldForProbe, is not held.
func TestAdmitRequestHolds(t *testing.T) {
	const cooldown = 5 * time.Second
	share := (0.5 - rampStartShare) / (1 - rampStartShare) // the ramp's progress at which it admits priority 5
	rampWait := time.Duration(share * float64(10*time.Second))
	open := func(_ testing.TB, e *Engine, _ *ManualClock) { e.ForceOpen() }
	closed := func(t testing.TB, e *Engine, clock *ManualClock) { e.ForceOpen(); closeCircuit(t, e, clock) }
	tests := []struct {
		name       string
		mutate     func(c *Config)
		setup      func(t testing.TB, e *Engine, clock *ManualClock)
		req        Request
		wantReason string
		wantDelay  time.Duration // exact; -1: any positive delay below a second
	}{
		{name: "open: held until the probe", setup: open,
			req: Request{Priority: 9, Retry: 1, Remaining: 25 * time.Second, Hold: true}, wantReason: ReasonHeld,
			wantDelay: cooldown + cooldown/8},
		{name: "open: held without a deadline", setup: open,
			req: Request{Priority: 9, Retry: 1, Hold: true}, wantReason: ReasonHeld, wantDelay: cooldown + cooldown/8},
		{name: "open: a second into the cooldown", setup: func(_ testing.TB, e *Engine, clock *ManualClock) { e.ForceOpen(); clock.Advance(time.Second) },
			req: Request{Priority: 9, Retry: 1, Remaining: 25 * time.Second, Hold: true}, wantReason: ReasonHeld,
			wantDelay: cooldown - time.Second + cooldown/8},
		{name: "open: no time to wait, it goes", setup: open,
			req: Request{Priority: 9, Retry: 2, Remaining: 2 * time.Second, Hold: true}, wantReason: ReasonAdmitted},
		{name: "open: decided without Hold, it goes", setup: open,
			req: Request{Priority: 9, Retry: 1}, wantReason: ReasonAdmitted},
		{name: "open: a new request is not held", setup: open,
			req: Request{Priority: 9, Hold: true}, wantReason: ReasonAdmitted},
		{name: "half-open, probes busy: two attempts' time", mutate: func(c *Config) { c.HalfOpenProbes = 1 },
			setup: func(_ testing.TB, e *Engine, clock *ManualClock) {
				e.ForceOpen()
				clock.Advance(cooldown)
				e.AdmitRequest(Request{Priority: 9, Retry: 1, Hold: true}) // the probe
			},
			req: Request{Priority: 9, Retry: 1, Remaining: 25 * time.Second, Hold: true}, wantReason: ReasonHeld, wantDelay: -1},
		{name: "recovery ramp: a low priority waits for it", setup: closed,
			req: Request{Priority: 5, Retry: 1, Remaining: 25 * time.Second, Hold: true}, wantReason: ReasonHeld,
			wantDelay: rampWait + time.Second/2},
		{name: "recovery ramp: a top priority goes", setup: closed,
			req: Request{Priority: 9, Retry: 1, Remaining: 25 * time.Second, Hold: true}, wantReason: ReasonAdmitted},
		{name: "without HoldForProbe: it goes", mutate: func(c *Config) { c.HoldForProbe = false }, setup: open,
			req: Request{Priority: 9, Retry: 1, Hold: true}, wantReason: ReasonAdmitted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, clock := newTestEngine(t, tt.mutate)
			for range 100 {
				clock.Advance(10 * time.Millisecond)
				e.RecordSuccess(40 * time.Millisecond)
			}
			tt.setup(t, e, clock)
			d := e.AdmitRequest(tt.req)
			assert.Equal(t, Retry, d.Action, "%v", d)
			assert.Equal(t, tt.wantReason, d.Reason)
			switch {
			case tt.wantDelay > 0:
				assert.Equal(t, tt.wantDelay, d.Delay)
			case tt.wantDelay < 0:
				assert.Positive(t, d.Delay)
				assert.Less(t, d.Delay, time.Second)
			default:
				assert.Zero(t, d.Delay)
			}
		})
	}
}

// TestHoldPaysAtSend asserts that a retry decided with Hold while the circuit is OPEN spends
// no token when it is decided (it is held until the circuit probes) and pays when AdmitRequest
// sends it, refused there (BUDGET_EXHAUSTED) if the bucket can no longer pay; that a retry
// decided while CLOSED pays at once, as in the article, and not again when sent; and that
// without Hold an OPEN circuit refuses the retry (CIRCUIT_OPEN).
func TestHoldPaysAtSend(t *testing.T) {
	e, clock := newTestEngine(t, func(c *Config) { c.TokenBucketCapacity, c.HalfOpenProbes = 3, 0 })
	for range 100 {
		clock.Advance(10 * time.Millisecond)
		e.RecordSuccess(40 * time.Millisecond)
	}
	f := Failure{Priority: 10, Remaining: 20 * time.Second, Hold: true}
	r := Request{Priority: 10, Retry: 1, Remaining: 20 * time.Second, Hold: true}
	require.Equal(t, ReasonRetry, e.Decide(f).Reason)
	assert.Equal(t, 2.0, e.Snapshot().Tokens, "decided while CLOSED: paid at once")
	assert.Equal(t, ReasonAdmitted, e.AdmitRequest(r).Reason)
	assert.Equal(t, 2.0, e.Snapshot().Tokens, "and not again when sent")

	e.ForceOpen()
	assert.Equal(t, ReasonCircuitOpen, e.Decide(Failure{Priority: 10}).Reason, "without Hold: the article's CIRCUIT_OPEN")
	for range 3 {
		require.Equal(t, ReasonRetry, e.Decide(f).Reason, "OPEN, with Hold: decided")
	}
	assert.Equal(t, 2.0, e.Snapshot().Tokens, "not paid while held")
	assert.Equal(t, ReasonHeld, e.AdmitRequest(r).Reason)
	clock.Advance(e.Config().CircuitCooldown) // no probes: CLOSED again
	require.Equal(t, Closed, e.Snapshot().Circuit)
	r.Priority = MaxPriority // inside the recovery ramp's share
	assert.Equal(t, ReasonAdmitted, e.AdmitRequest(r).Reason)
	assert.Equal(t, ReasonAdmitted, e.AdmitRequest(r).Reason)
	assert.Equal(t, 0.0, e.Snapshot().Tokens, "each held retry paid when sent")
	assert.Equal(t, ReasonBudgetExhausted, e.AdmitRequest(r).Reason, "the third cannot be paid")
}

// TestDeadlineAwareRetry asserts that with a deadline (Failure.Remaining) a retry's delay is cut
// so that it can still be answered in time (the latest successes took 40 ms), that a retry with
// no time left is refused as DEADLINE_EXCEEDED without spending a token, and that without
// DeadlineAware the delay is the plain draw.
func TestDeadlineAwareRetry(t *testing.T) {
	tests := []struct {
		name       string
		off        bool
		remaining  time.Duration
		wantReason string
		wantDelay  time.Duration
	}{
		{name: "no deadline", wantReason: ReasonRetry, wantDelay: 250 * time.Millisecond},
		{name: "a deadline far enough", remaining: 10 * time.Second, wantReason: ReasonRetry, wantDelay: 250 * time.Millisecond},
		{name: "the delay cut to the deadline", remaining: 100 * time.Millisecond, wantReason: ReasonRetry, wantDelay: 60 * time.Millisecond},
		{name: "no time left", remaining: 30 * time.Millisecond, wantReason: ReasonDeadline},
		{name: "DeadlineAware off", off: true, remaining: 30 * time.Millisecond, wantReason: ReasonRetry, wantDelay: 250 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, clock := newTestEngine(t, func(c *Config) { c.DeadlineAware = !tt.off })
			for range 100 {
				clock.Advance(10 * time.Millisecond)
				e.RecordSuccess(40 * time.Millisecond)
			}
			tokens := e.Snapshot().Tokens
			d := e.Decide(Failure{Priority: 9, Remaining: tt.remaining})
			assert.Equal(t, tt.wantReason, d.Reason)
			assert.Equal(t, tt.wantDelay, d.Delay)
			if d.Reason == ReasonDeadline {
				assert.Equal(t, Reject, d.Action)
				assert.Equal(t, tokens, e.Snapshot().Tokens, "no token spent on a retry that cannot be answered in time")
			}
		})
	}
}

// Asserts that AdmitRequestTo writes every field of the Decision it is given, whatever was in
// it: over a storm that parks, holds, sheds and admits, a Decision full of stale values comes
// out equal to the one AdmitRequest returns from a twin engine, and a Decision with a field the
// admission does not write would differ (every field of the stale one is set).
func TestAdmitToWritesEveryField(t *testing.T) {
	clock := NewManualClock(time.Unix(0, 0))
	build := func() *Engine {
		cfg := DefaultConfig()
		cfg.Clock, cfg.Seed = clock, 3
		e, err := New(cfg)
		require.NoError(t, err)
		return e
	}
	a, b := build(), build()
	stale := Decision{Action: CircuitOpen, Delay: time.Hour, CPS: 9, State: Emergency, Priority: 11, Floor: 12,
		Reason: "stale", Fallback: true, Parked: true, Wake: time.Minute, Signals: Signals{F: 1, L: 2, Q: 3, B: 4, C: 5}}
	seen := map[string]bool{}
	for i := range 3000 {
		clock.Advance(5 * time.Millisecond)
		for _, e := range []*Engine{a, b} {
			switch {
			case i < 200 || i > 2500:
				e.RecordSuccess(30 * time.Millisecond)
			case i%3 == 0:
				e.RecordRefused(time.Millisecond)
			default:
				e.RecordFailure(2 * time.Second)
			}
		}
		r := Request{Priority: i % 11, Retry: i % 3, Hold: i%2 == 0, Park: i%4 == 0, Remaining: time.Duration(i%7) * time.Second}
		want := a.AdmitRequest(r)
		got := stale
		b.AdmitRequestTo(&got, r)
		require.Equal(t, want, got, "call %d", i)
		seen[want.Reason] = true
		seen["parked"] = seen["parked"] || want.Parked
	}
	assert.Subset(t, slices.Collect(maps.Keys(seen)), []string{ReasonAdmitted, ReasonHeld, ReasonShedLowPriority, "parked"},
		"the sequence went through the main paths")
}
