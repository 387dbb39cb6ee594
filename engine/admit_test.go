package engine

import (
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

// second drives one second of traffic: asks (Admit) every original of prios, spread over the
// second, sends the admitted ones to svc, and records their outcomes. It returns how many of
// each priority were asked and admitted.
func second(e *Engine, clock *ManualClock, svc queueing, prios []int) (asked, admitted map[int]int) {
	asked, admitted = map[int]int{}, map[int]int{}
	every := time.Second / time.Duration(len(prios))
	served := 0
	for _, p := range prios {
		clock.Advance(every)
		asked[p]++
		if e.Admit(p).Action != Retry {
			continue
		}
		admitted[p]++
		if svc.slowOnly || served < svc.capacity {
			served++
			e.RecordSuccess(svc.latency)
		} else {
			e.RecordFailure(time.Millisecond)
		}
	}
	return asked, admitted
}

// warm gives e a healthy minute at 50 ms, so that its baseline is formed.
func warm(t *testing.T, e *Engine, clock *ManualClock) {
	t.Helper()
	for range 60 {
		second(e, clock, queueing{capacity: 1000, latency: 50 * time.Millisecond}, mix(100))
	}
	require.Equal(t, 50*time.Millisecond, e.Snapshot().Baseline)
	require.False(t, e.Snapshot().Shedding)
}

// TestAdmitShedsWhatTheServiceCannotComplete asserts that, when a service completes 120 of the
// 200 requests a second it is asked, slowly (a queue) and refusing the rest, the engine sheds
// new requests, lowest priorities first: within five seconds it admits about a tenth more than
// the service completes (132 a second), priority 1 not at all, priority 9 every time; and that
// it admits everything again within two seconds of the service answering fast.
func TestAdmitShedsWhatTheServiceCannotComplete(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	warm(t, e, clock)
	overload := queueing{capacity: 120, latency: 400 * time.Millisecond}
	for range 5 {
		second(e, clock, overload, mix(200))
	}
	asked, admitted := second(e, clock, overload, mix(200))
	s := e.Snapshot()
	require.True(t, s.Shedding, "the service queues")
	total := admitted[1] + admitted[5] + admitted[9]
	assert.InDelta(t, 132, total, 15, "a tenth more than the service completes")
	assert.Zero(t, admitted[1], "priority 1 is shed first")
	assert.Equal(t, asked[9], admitted[9], "priority 9 goes")
	assert.Less(t, admitted[5], asked[5], "priority 5 is partly shed")
	assert.InDelta(t, 1-float64(total)/200, s.ShedShare, 0.05)
	assert.Equal(t, 5, s.AdmitFloor, "below 5 shed whole, part of 5")
	assert.Positive(t, s.OriginalsShed)

	d := e.ShouldRetry(1, 0, true)
	assert.Equal(t, ReasonShedLowPriority, d.Reason, "a retry below the admission floor is shed with the new requests")

	healthy := queueing{capacity: 1000, latency: 50 * time.Millisecond}
	second(e, clock, healthy, mix(200))
	asked, admitted = second(e, clock, healthy, mix(200))
	assert.Equal(t, asked, admitted, "a fast success releases the shedding at once")
	assert.False(t, e.Snapshot().Shedding)
}

// TestAdmitLeavesASlowDependencyAlone asserts that slow successes alone (a dependency four
// times slower, every request completed) shed nothing: without refusals, failures or a
// CRITICAL score, slowness is not a queue that shedding could drain.
func TestAdmitLeavesASlowDependencyAlone(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	warm(t, e, clock)
	for range 10 {
		asked, admitted := second(e, clock, queueing{latency: 400 * time.Millisecond, slowOnly: true}, mix(200))
		assert.Equal(t, asked, admitted)
	}
	assert.False(t, e.Snapshot().Shedding)
	assert.Zero(t, e.Snapshot().OriginalsShed)
}

// TestAdmitKeepsHalfTheTopClass asserts that when one class alone is more than the service can
// complete, admission sheds at most half of it: the rest keeps the signals learning.
func TestAdmitKeepsHalfTheTopClass(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	warm(t, e, clock)
	only9 := make([]int, 200)
	for i := range only9 {
		only9[i] = 9
	}
	var admitted map[int]int
	for range 10 {
		_, admitted = second(e, clock, queueing{capacity: 10, latency: 400 * time.Millisecond}, only9)
	}
	assert.Equal(t, 100, admitted[9], "half of the only class goes")
}

// TestAdmitArticle asserts that with the article's parameters (AdmitOriginals off) every new
// request goes, however overloaded the service, and is counted.
func TestAdmitArticle(t *testing.T) {
	e, clock := newTestEngine(t, onArticle(nil))
	warm(t, e, clock)
	for range 10 {
		asked, admitted := second(e, clock, queueing{capacity: 50, latency: 2 * time.Second}, mix(200))
		require.Equal(t, asked, admitted)
	}
	s := e.Snapshot()
	assert.Zero(t, s.OriginalsShed)
	assert.Equal(t, uint64(60*100+10*200), s.OriginalsAdmitted)
}

// TestAdmitDecision asserts what Admit's answer carries: the clamped priority, the admission
// floor, the score now, ADMITTED or SHED_LOW_PRIORITY, and that AdmitExplained gives the same
// answer with the shed share, the smoothed counts and the check that decided.
func TestAdmitDecision(t *testing.T) {
	e, clock := newTestEngine(t, nil)
	d := e.Admit(42)
	assert.Equal(t, Decision{Action: Retry, Priority: MaxPriority, Reason: ReasonAdmitted, State: Healthy}, d)
	assert.Equal(t, 0, e.Admit(-3).Priority)

	warm(t, e, clock)
	for range 6 {
		second(e, clock, queueing{capacity: 120, latency: 400 * time.Millisecond}, mix(200))
	}
	var x Explanation
	d = e.AdmitExplained(1, &x)
	assert.Equal(t, Reject, d.Action)
	assert.Equal(t, ReasonShedLowPriority, d.Reason)
	assert.Equal(t, 5, d.Floor)
	assert.Equal(t, d, x.Decision)
	assert.True(t, x.Original)
	assert.True(t, x.Shedding)
	assert.Equal(t, 4, x.Check)
	assert.InDelta(t, 1-x.Completed*1.1/x.Asked, x.ShedShare, 1e-9)
	assert.Equal(t, d.CPS, x.CPS)
	assert.GreaterOrEqual(t, x.Slowdown, 0.5)
	d = e.AdmitExplained(9, &x)
	assert.Equal(t, Retry, d.Action)
	assert.Equal(t, 5, x.Check)
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
