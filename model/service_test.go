package model

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// testService: 10 workers of 100 ms (100 requests/s), a queue of 5, refusals costing 0.1,
// crashing above 2x for 300 ms, down 1 s, warming from 30% over 2 s; ticks of 100 ms.
func testService() Service {
	return NewService(scenarios.Service{Workers: 10, ServiceTime: 100 * time.Millisecond, Sigma: 0.5, QueueLimit: 5,
		RefusalCost: 0.1, CrashFactor: 2, CrashAfter: 300 * time.Millisecond, RestartDelay: time.Second,
		WarmStart: 0.3, Warmup: 2 * time.Second}, 100*time.Millisecond)
}

// Asserts capacity under each fault lever: the workers scaled (rounded, at least one), the
// latency added to the service time, the throttle capping the capacity, none while down.
func TestServiceResize(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fx       scenarios.Effects
		eff      int
		capacity float64
	}{
		{"no fault", scenarios.NoEffects(), 10, 100},
		{"capacity 0.34", scenarios.Effects{Capacity: 0.34}, 3, 30},
		{"capacity 0.01", scenarios.Effects{Capacity: 0.01}, 1, 10},
		{"latency +0.1s", scenarios.Effects{Capacity: 1, Latency: 0.1}, 10, 50},
		{"throttle 20/s", scenarios.Effects{Capacity: 1, Throttle: 20}, 10, 20},
	} {
		s := testService()
		s.Resize(tc.fx)
		assert.Equal(t, tc.eff, s.Eff, tc.name)
		assert.InDelta(t, tc.capacity, s.Capacity, 1e-9, tc.name)
	}
	s := testService()
	s.Down(source.ServiceDown)
	s.Resize(scenarios.NoEffects())
	assert.Zero(t, s.Eff)
	assert.Zero(t, s.Capacity)
}

// Asserts that service times are a lognormal whose mean is the mean service time in effect.
func TestServiceDraw(t *testing.T) {
	s := testService()
	s.Resize(scenarios.Effects{Capacity: 1, Latency: 0.1})
	r := rand.New(rand.NewPCG(1, 2))
	sum := 0.0
	const n = 100_000
	for range n {
		sum += s.Draw(r).Seconds()
	}
	assert.InEpsilon(t, 0.2, sum/n, 0.01)
}

// Asserts admission and its offered work: a free worker serves, then the queue takes up to its
// limit, then a 503 costs refusal_cost, as a 429 or a 4xx does.
func TestServiceAdmit(t *testing.T) {
	s := testService()
	s.Resize(scenarios.NoEffects())
	s.Busy = 9
	assert.Equal(t, Serve, s.Admit(0))
	s.Busy = 10
	assert.Equal(t, Queue, s.Admit(4))
	assert.Equal(t, Refuse, s.Admit(5))
	s.Refused()
	assert.InDelta(t, 2.2, s.Offered, 1e-12)
}

// Asserts the crash rule: the utilisation over the last second above crash_factor for
// crash_after crashes the service at the tick that reaches it (not one before), the crash says
// the utilisation that set it off and how long it lasted, the service then restarts after
// restart_delay (not while an outage lasts) and warms up from warm_start to full capacity.
func TestServiceCrashAndWarmUp(t *testing.T) {
	s := testService()
	s.Resize(scenarios.NoEffects())
	tick := 100 * time.Millisecond
	able := s.Capacity * tick.Seconds() // 10 requests a tick
	var crash *Crash
	var at time.Duration
	for i := 1; crash == nil && i < 100; i++ {
		at = time.Duration(i) * tick
		s.Offered = 25 // 2.5x
		var util float64
		var over time.Duration
		util, _, over, crash = s.Sample(at, tick, able)
		assert.InDelta(t, 2.5, util, 1e-12)
		if crash == nil {
			assert.Equal(t, time.Duration(i)*tick, over)
		}
	}
	require.NotNil(t, crash)
	assert.Equal(t, 300*time.Millisecond, at, "at the tick that reaches crash_after")
	assert.Equal(t, Crash{Utilisation: 2.5, Overloaded: 300 * time.Millisecond}, *crash)
	assert.Equal(t, source.ServiceCrashed, s.State)
	assert.Zero(t, s.Capacity)
	assert.Equal(t, 600*time.Millisecond, s.RestartIn(700*time.Millisecond))

	assert.False(t, s.RestartDue(1200*time.Millisecond, false))
	assert.False(t, s.RestartDue(1300*time.Millisecond, true), "an outage keeps it down")
	require.True(t, s.RestartDue(1300*time.Millisecond, false))
	require.True(t, s.StartWarming(1300*time.Millisecond))
	s.Resize(scenarios.NoEffects())
	assert.Equal(t, 3, s.Eff, "30% of 10 workers")
	assert.False(t, s.Warmed(2800*time.Millisecond))
	s.Resize(scenarios.NoEffects())
	assert.Equal(t, 8, s.Eff, "three quarters of the way: 82.5%")
	assert.True(t, s.Warmed(3300*time.Millisecond))
	assert.Equal(t, source.ServiceUp, s.State)

	_, window, over, crash := s.Sample(3400*time.Millisecond, tick, 0)
	assert.Nil(t, crash)
	assert.Zero(t, over)
	assert.Zero(t, window, "the window was cleared at the crash")
	s.Offered = 1
	_, window, _, _ = s.Sample(3500*time.Millisecond, tick, 0)
	assert.True(t, math.IsInf(window, 1), "work with no capacity")
}

// Asserts the throttle's bucket: full at R tokens (at least 1) when it starts, refilled at R
// a second, a request with no token refused, and the wait for the next token.
func TestBucket(t *testing.T) {
	var b Bucket
	b.Reset(2, time.Second)
	assert.True(t, b.Take(2, time.Second))
	assert.True(t, b.Take(2, time.Second))
	assert.False(t, b.Take(2, time.Second))
	assert.InDelta(t, 0.5, b.Wait(2), 1e-12)
	assert.True(t, b.Take(2, 1500*time.Millisecond), "a token after half a second")
	b.Reset(0.5, 0)
	assert.True(t, b.Take(0.5, 0), "a burst of at least one")
	assert.False(t, b.Take(0.5, time.Second))
}
