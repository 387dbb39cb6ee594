package upstream

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// crashConfig crashes when the utilisation stays above 2 for 300 ms, restarts after 1 s, and
// warms up from 30% over 1 s; 10 workers of 100 ms make 100 requests/s.
func crashConfig() Config {
	c := testConfig(10, 100*time.Millisecond, 0)
	c.Tick = 100 * time.Millisecond // a window of 10 steps
	c.CrashFactor, c.CrashAfter, c.RestartDelay = 2, 300*time.Millisecond, time.Second
	c.WarmStart, c.Warmup = 0.3, time.Second
	return c
}

// offer adds w to the work offered since the last step, as admitted and refused requests do.
func (t *Target) offer(w float64) {
	t.mu.Lock()
	t.svc.Offered += w
	t.mu.Unlock()
}

// offeredNow returns the work offered since the last step.
func (t *Target) offeredNow() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.svc.Offered
}

// Asserts the crash rule and the warm-up step by step on a manual clock, formula by formula
// as in the simulator: utilisation over the last second above crash_factor for crash_after
// crashes it (exactly at the step that reaches crash_after, not one before; a utilisation of
// exactly crash_factor is not overload); it then refuses connections until restart_delay has
// passed, retries a restart whose port is taken, comes back on the same port, and its
// effective workers follow max(1, round(workers x warm)) with
// warm = warm_start + (1 - warm_start) x elapsed / warmup.
func TestCrashRuleAndWarmup(t *testing.T) {
	noLeaks(t)
	clk := engine.NewManualClock(time.Unix(1_000_000, 0))
	tg := start(t, crashConfig(), WithClock(clk))
	addr := tg.Addr()
	step := func(d time.Duration) Snapshot {
		clk.Advance(d)
		tg.step(clk.Now())
		return tg.Snapshot()
	}

	// capacity 100/s: a 100 ms step can serve 10 requests.
	tg.offer(20)
	s := step(100 * time.Millisecond)
	assert.Equal(t, 2.0, s.Utilisation)
	assert.Equal(t, time.Duration(0), s.Overload, "exactly crash_factor is not overload")
	tg.offer(40)
	s = step(100 * time.Millisecond)
	assert.Equal(t, 4.0, s.Utilisation)
	assert.Equal(t, 3.0, s.WindowUtilisation, "60 offered over 20 servable")
	assert.Equal(t, 100*time.Millisecond, s.Overload)
	tg.offer(30)
	s = step(100 * time.Millisecond)
	assert.Equal(t, StateUp, s.State)
	assert.Equal(t, 200*time.Millisecond, s.Overload)
	s = step(100 * time.Millisecond) // 90 over 40: 2.25, still above 2
	assert.Equal(t, StateCrashed, s.State, "overload reached crash_after")
	assert.Equal(t, int64(1), s.Counters.Crashes)
	assert.Equal(t, 2.25, s.CrashUtilisation, "the crash keeps the utilisation that killed it")
	assert.Equal(t, 300*time.Millisecond, s.CrashOverload, "and how long it lasted")
	assert.Equal(t, time.Second, s.RestartIn)
	assert.Zero(t, s.Capacity)
	assert.Zero(t, s.Effective)
	assert.True(t, refused(addr), "the listener is closed")

	s = step(999 * time.Millisecond)
	assert.Equal(t, StateCrashed, s.State)
	assert.Equal(t, time.Millisecond, s.RestartIn)
	assert.True(t, refused(addr))

	// Someone takes the port meanwhile: the restart fails, says why, and is retried.
	squatter, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	s = step(time.Millisecond)
	assert.Equal(t, StateCrashed, s.State)
	require.Error(t, s.Err)
	assert.Contains(t, s.Err.Error(), "listen again on "+addr)
	require.NoError(t, squatter.Close())

	s = step(time.Millisecond)
	assert.Equal(t, StateWarming, s.State)
	assert.NoError(t, s.Err)
	assert.Equal(t, addr, s.Addr, "the same port")
	assert.Equal(t, 0.3, s.Warm)
	assert.Equal(t, 3, s.Effective)
	assert.InDelta(t, 30, s.Capacity, 1e-9)
	assert.Equal(t, http.StatusOK, get(context.Background(), client(t), "http://"+addr).status)

	s = step(400 * time.Millisecond)
	assert.Equal(t, StateWarming, s.State)
	assert.InDelta(t, 0.58, s.Warm, 1e-12)
	assert.Equal(t, 6, s.Effective, "round(5.8)")
	assert.InDelta(t, 60, s.Capacity, 1e-9)
	s = step(600 * time.Millisecond)
	assert.Equal(t, StateUp, s.State)
	assert.Equal(t, 1.0, s.Warm)
	assert.Equal(t, 10, s.Effective)
	assert.Equal(t, int64(1), s.Counters.Crashes)
}

// Asserts that a refused request counts refusal_cost of a request in the offered work, an
// admitted one a whole request.
func TestRefusalCost(t *testing.T) {
	noLeaks(t)
	cfg := testConfig(1, time.Millisecond, 0)
	cfg.RefusalCost = 0.25
	clk := engine.NewManualClock(time.Unix(1_000_000, 0)) // no step moves the window meanwhile
	tg := start(t, cfg, WithClock(clk))
	c := client(t)
	require.NoError(t, tg.SetLatency(time.Hour))
	held := async(context.Background(), c, tg.URL())
	eventually(t, tg, "the worker taken", func(s Snapshot) bool { return s.Busy == 1 })
	for range 4 {
		require.Equal(t, http.StatusServiceUnavailable, get(context.Background(), c, tg.URL()).status)
	}
	assert.Equal(t, 1+4*0.25, tg.offeredNow())
	require.NoError(t, tg.Close())
	assert.Error(t, (<-held).err)
}

// Asserts, over real HTTP on a manual clock, that an overloaded target crashes for real: the
// request it was serving gets no answer, new connections are refused for as long as the
// restart delay has not passed, and it comes back on the same port, warming up.
func TestCrashOverHTTP(t *testing.T) {
	noLeaks(t)
	cfg := testConfig(4, 50*time.Millisecond, 0)
	cfg.Tick = 5 * time.Millisecond
	cfg.RefusalCost = 1
	cfg.CrashFactor, cfg.CrashAfter, cfg.RestartDelay = 2, 200*time.Millisecond, 500*time.Millisecond
	cfg.WarmStart, cfg.Warmup = 0.5, 500*time.Millisecond
	clk := engine.NewManualClock(time.Unix(1_000_000, 0))
	tg := start(t, cfg, WithClock(clk))
	addr := tg.Addr()
	c := client(t)

	require.NoError(t, tg.SetLatency(time.Hour))
	held := async(context.Background(), c, tg.URL())
	eventually(t, tg, "a request in service", func(s Snapshot) bool { return s.Busy == 1 })
	require.NoError(t, tg.SetLatency(0))

	stop := flood(c, tg.URL(), 8)
	eventually(t, tg, "the crash", func(s Snapshot) bool {
		clk.Advance(20 * time.Millisecond) // capacity 80/s: 1.6 requests per advance, the flood sends far more
		return s.State == StateCrashed
	})
	stop()
	r := <-held
	assert.Error(t, r.err, "the request in service at the crash gets no answer")
	s := tg.Snapshot()
	assert.Equal(t, StateCrashed, s.State, "the manual clock has not reached the restart")
	assert.Equal(t, int64(1), s.Counters.Crashes)
	assert.GreaterOrEqual(t, s.Counters.Lost, int64(1))
	assert.True(t, refused(addr), "connection refused while crashed")

	clk.Advance(cfg.RestartDelay)
	s = eventually(t, tg, "the restart", func(s Snapshot) bool { return s.State != StateCrashed })
	assert.Equal(t, StateWarming, s.State)
	assert.Equal(t, addr, s.Addr)
	assert.Equal(t, 2, s.Effective, "half of 4 workers")
	assert.InDelta(t, 40, s.Capacity, 1e-9)
	assert.Equal(t, http.StatusOK, get(context.Background(), c, "http://"+addr).status)

	clk.Advance(cfg.Warmup)
	s = eventually(t, tg, "warmed up", func(s Snapshot) bool { return s.State == StateUp })
	assert.Equal(t, 4, s.Effective)
	assert.Equal(t, int64(1), s.Counters.Crashes)
}

// Asserts the same cycle on the wall clock, with short windows: a flood crashes the target, and
// once the flood stops it restarts on its own and warms up to UP, serving on the same URL.
func TestCrashAndRecoverWallClock(t *testing.T) {
	noLeaks(t)
	cfg := testConfig(4, 20*time.Millisecond, 0)
	cfg.RefusalCost = 1
	cfg.CrashFactor, cfg.CrashAfter, cfg.RestartDelay = 2, 100*time.Millisecond, 300*time.Millisecond
	cfg.WarmStart, cfg.Warmup = 0.5, 300*time.Millisecond
	tg := start(t, cfg)
	url := tg.URL()
	c := client(t)

	stop := flood(c, url, 8)
	eventually(t, tg, "the crash", func(s Snapshot) bool { return s.State == StateCrashed })
	stop()
	s := eventually(t, tg, "back up", func(s Snapshot) bool { return s.State == StateUp })
	assert.GreaterOrEqual(t, s.Counters.Crashes, int64(1))
	assert.Equal(t, url, tg.URL())
	assert.Equal(t, http.StatusOK, get(context.Background(), c, url).status)
}
