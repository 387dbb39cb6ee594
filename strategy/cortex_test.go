package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// newTestCortex builds the cortex strategy on a manual clock with the default engine config.
func newTestCortex(t *testing.T, seed uint64) (*Cortex, *engine.ManualClock) {
	t.Helper()
	env := testEnv(seed)
	s, err := New("cortex", env)
	require.NoError(t, err)
	return s.(*Cortex), env.Clock.(*engine.ManualClock)
}

// TestCortexRecord asserts the outcome mapping: Success and BadRequest are engine successes,
// every retryable outcome an engine failure.
func TestCortexRecord(t *testing.T) {
	c, _ := newTestCortex(t, 1)
	for _, o := range []Outcome{Success, BadRequest, Timeout, FastFail, ServerError, Throttled} {
		c.Record(t0, att(0, 0), o, 50*time.Millisecond)
	}
	snap := c.Engine().Snapshot()
	assert.Equal(t, uint64(2), snap.Successes)
	assert.Equal(t, uint64(4), snap.Failed)
}

// TestCortexDecide asserts that Decide maps the engine's decision: a retry in a healthy engine
// with its delay bounded by the backoff cap and reason never empty, MAX_RETRIES_EXCEEDED at
// retry 3, NOT_RETRYABLE for a BadRequest, and that the engine counted each decision.
func TestCortexDecide(t *testing.T) {
	c, _ := newTestCortex(t, 1)
	v := c.Decide(t0, att(9, 0), ServerError)
	assert.True(t, v.Retry)
	assert.Equal(t, engine.Retry, v.Action)
	assert.NotEmpty(t, v.Reason)
	assert.Positive(t, v.Delay)
	assert.LessOrEqual(t, v.Delay, engine.DefaultConfig().BackoffMaxDelay)

	v = c.Decide(t0, att(9, 3), Timeout)
	assert.Equal(t, engine.MaxRetriesExceeded, v.Action)
	assert.False(t, v.Retry)
	assert.Zero(t, v.Delay)
	assert.NotEmpty(t, v.Reason)

	assert.Equal(t, notRetryable(), c.Decide(t0, att(9, 0), BadRequest))

	snap := c.Engine().Snapshot()
	assert.Equal(t, uint64(1), snap.Decisions[engine.Retry])
	assert.Equal(t, uint64(1), snap.Decisions[engine.MaxRetriesExceeded])
	assert.Equal(t, uint64(1), snap.Decisions[engine.NotRetryable])
}

// TestCortexSheds asserts that under sustained failures the engine stops low-priority retries
// before high-priority ones, and that the verdict carries the engine's action and reason.
func TestCortexSheds(t *testing.T) {
	c, clk := newTestCortex(t, 1)
	for range 200 {
		clk.Advance(10 * time.Millisecond)
		c.Record(at(clk), att(0, 0), Timeout, 2*time.Second)
	}
	c.SetPending(800)
	low := c.Decide(at(clk), att(0, 0), Timeout)
	assert.False(t, low.Retry, "priority 0 under full failure: %+v", low)
	assert.NotEqual(t, engine.Retry, low.Action)
	assert.NotEmpty(t, low.Reason)
	assert.NotEqual(t, "RETRY", low.Reason)
}

// TestCortexSetPending asserts that SetPending sets the engine's queue signal Q to
// pending / QueueCapacity.
func TestCortexSetPending(t *testing.T) {
	c, _ := newTestCortex(t, 1)
	c.SetPending(250)
	c.Decide(t0, att(9, 0), ServerError) // some engines refresh signals on decisions
	assert.InDelta(t, 250.0/float64(engine.DefaultConfig().QueueCapacity), c.Engine().Snapshot().Signals.Q, 1e-9)
	assert.True(t, c.Admit(t0, att(0, 0)).Admitted(), "an idle service sheds nothing")
}

// TestCortexUsesEnvConfigAndClock asserts that Env.Cortex is used (here a 1-retry limit) and
// that the engine reads Env.Clock.
func TestCortexUsesEnvConfigAndClock(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.MaxRetryAttempts = 1
	env := testEnv(1)
	env.Cortex = &cfg
	s, err := New("cortex", env)
	require.NoError(t, err)
	assert.Equal(t, engine.MaxRetriesExceeded, s.Decide(t0, att(9, 1), ServerError).Action)
	assert.Zero(t, cfg.Seed, "the caller's config is not modified")

	// The circuit trips after failures sustained for 10 s of the manual clock.
	clk := env.Clock.(*engine.ManualClock)
	for range 400 {
		clk.Advance(50 * time.Millisecond)
		s.Record(at(clk), att(0, 0), FastFail, time.Millisecond)
	}
	assert.Equal(t, engine.Open, s.(EngineHolder).Engine().Snapshot().Circuit)
}

// TestNewCortexNil asserts that wrapping a nil engine is an error, not a panic later.
func TestNewCortexNil(t *testing.T) {
	_, err := NewCortex(nil)
	assert.Error(t, err)
}

// TestCortexConcurrent asserts that the cortex strategy may be driven from several goroutines
// at once (run with -race) and that every outcome is counted.
func TestCortexConcurrent(t *testing.T) {
	c, clk := newTestCortex(t, 1)
	const workers, each = 4, 250
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range each {
				now := at(clk)
				c.SetPending(i)
				if c.Admit(now, att(w, 0)).Admitted() {
					c.Record(now, att(0, i%4), failures[i%len(failures)], time.Millisecond)
					c.Decide(now, att(w, i%4), Timeout)
				}
				clk.Advance(time.Millisecond)
			}
		}()
	}
	for range workers {
		<-done
	}
	assert.Equal(t, uint64(workers*each), c.Engine().Snapshot().Failed)
}

// TestCortexTimeouts asserts what the strategy tells the engine about timeouts: a run of fast
// failures opens the circuit while the same run of timeouts does not (the default engine trips
// on answered failures only), and once recent successes are slow a retry after a timeout costs
// more of the budget than a retry after a fast failure (Config.SlowdownCost).
func TestCortexTimeouts(t *testing.T) {
	for _, tc := range []struct {
		o    Outcome
		want engine.CircuitState
	}{{FastFail, engine.Open}, {Timeout, engine.Closed}} {
		c, clk := newTestCortex(t, 1)
		for range 200 {
			clk.Advance(20 * time.Millisecond)
			c.Record(t0, att(0, 0), tc.o, 10*time.Millisecond)
		}
		assert.Equal(t, tc.want, c.Engine().Snapshot().Circuit, "after 200 outcomes %v", tc.o)
	}

	spent := func(o Outcome) float64 {
		c, clk := newTestCortex(t, 1)
		for i := range 40 { // a baseline of 10 ms, then successes ten times slower
			clk.Advance(10 * time.Millisecond)
			c.Record(t0, att(0, 0), Success, time.Duration(1+9*(i/20))*10*time.Millisecond)
		}
		before := c.Engine().Snapshot().Tokens
		v := c.Decide(t0, att(10, 0), o)
		require.True(t, v.Retry, "%v", o)
		return before - c.Engine().Snapshot().Tokens
	}
	fast, slow := spent(FastFail), spent(Timeout)
	cfg := engine.DefaultConfig()
	assert.InDelta(t, 1+cfg.SlowdownCost, fast, 1e-6, "a fast failure's retry at full slowdown")
	assert.InDelta(t, 1+2*cfg.SlowdownCost, slow, 1e-6, "a timeout's retry at full slowdown")
}
