package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// TestGradient2Update asserts Gradient2Limit's rule on single samples, computed by hand from
// the pseudo-code (initial 20, smoothing 0.2, queue 4, tolerance 1.5): 100 ms with 15 in flight
// gives long 100, g = 1, L = 0.8 x 20 + 0.2 x 24 = 20.8; 200 ms gives long 150, g = min(1, 1.125),
// L = 0.8 x 20.8 + 0.2 x 24.8 = 21.6; 1 s gives long 433.3, g = 0.65, L = 0.8 x 21.6 + 0.2 x
// 18.04 = 20.888; 5 in flight (under L/2) leaves L; a long round trip over twice the sample is
// cut by 5% after the sample used it.
func TestGradient2Update(t *testing.T) {
	g := &gradient2Limit{cfg: DefaultGradient2Config(), limit: 20, long: expAvg{window: 600, warmup: 10}}
	steps := []struct {
		rtt      time.Duration
		inflight int
		want     float64
	}{
		{100 * time.Millisecond, 15, 20.8},
		{200 * time.Millisecond, 15, 21.6},
		{time.Second, 15, 0.8*21.6 + 0.2*(21.6*1.5*(1300.0/3)/1000+4)},
		{time.Second, 5, 0.8*21.6 + 0.2*(21.6*1.5*(1300.0/3)/1000+4)},
	}
	for i, s := range steps {
		assert.Equal(t, int(s.want), g.sample(s.rtt, s.inflight, false), "step %d", i)
		assert.InDelta(t, s.want, g.limit, 1e-9, "step %d", i)
	}

	g = &gradient2Limit{cfg: DefaultGradient2Config(), limit: 20, long: expAvg{window: 600, warmup: 10}}
	g.sample(time.Second, 15, false)
	g.sample(100*time.Millisecond, 15, false) // long 550 ms, over twice the sample: cut to 522.5
	assert.InDelta(t, 0.95*float64(550*time.Millisecond), g.long.value, 1)
	assert.InDelta(t, 21.6, g.limit, 1e-9, "g = min(1, 1.5 x 550/100): 0.8 x 20.8 + 0.2 x 24.8")
}

// TestGradient2Partitions asserts AbstractPartitionedLimiter's admission, with limit 20 split
// live 90% (18) and batch 10% (2): under the limit any call goes; at the limit a call goes only
// while its partition is under its share (so batch bursts past the global limit by its 2), and
// is refused LIMIT_EXCEEDED otherwise; a release frees its partition's slot.
func TestGradient2Partitions(t *testing.T) {
	g := must(NewGradient2(newRand(1), DefaultGradient2Config()))
	live, batch := att(9, 0), att(1, 0)
	for i := range 20 {
		require.True(t, g.Admit(t0, live).Admitted(), "live %d", i)
	}
	assert.Equal(t, Refuse(engine.Reject, ReasonLimitExceeded), g.Admit(t0, live), "live holds 20 of its 18")
	assert.True(t, g.Admit(t0, batch).Admitted())
	assert.True(t, g.Admit(t0, batch).Admitted())
	assert.True(t, g.Admit(t0, batch).Refused(), "batch holds its 2")
	assert.Equal(t, 22, g.Inflight())
	g.Record(t0, batch, Timeout, time.Second)
	assert.True(t, g.Admit(t0, batch).Admitted(), "a released batch slot")
	for range 5 {
		g.Record(t0, live, ServerError, time.Second)
	}
	assert.Equal(t, 17, g.Inflight())
	assert.True(t, g.Admit(t0, live).Admitted(), "under the limit again")
}

// TestGradient2Window asserts WindowedLimit: samples under 100 µs are ignored; a window goes to
// the limit when a call ends after its end, with its average round trip and its largest
// in-flight count, only if it holds at least 10 samples (the first window, of one sample, is
// dropped); a timeout or a 5xx gives no sample, a refused connection a dropped one.
func TestGradient2Window(t *testing.T) {
	g := must(NewGradient2(newRand(1), DefaultGradient2Config()))
	now := t0
	rec := func(rtt time.Duration, o Outcome, inflight int) {
		for range inflight {
			g.Admit(now, att(9, 0))
		}
		g.Record(now, att(9, 0), o, rtt)
		for range inflight - 1 {
			g.Record(now, att(9, 0), Timeout, rtt) // no sample
		}
	}
	rec(100*time.Millisecond, Success, 15) // the first window: 1 sample, dropped
	assert.Equal(t, 0, g.g.long.count)
	for range 9 {
		now = now.Add(10 * time.Millisecond)
		rec(100*time.Millisecond, Success, 15)
		rec(50*time.Microsecond, Success, 1) // ignored
		rec(time.Second, ServerError, 1)     // no sample
	}
	now = t0.Add(1100 * time.Millisecond)
	rec(200*time.Millisecond, Success, 15) // the 10th sample ends the window
	require.Equal(t, 1, g.g.long.count, "one window went to the limit")
	assert.InDelta(t, float64(110*time.Millisecond), g.g.long.value, 1, "(9 x 100 + 200) / 10 ms")
	assert.InDelta(t, 20.8, g.g.limit, 1e-9, "g = 1, 15 in flight")
}
