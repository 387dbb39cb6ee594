package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newVegasLimit is a VegasLimit with the defaults and a probe that never comes.
func newVegasLimit() *vegasLimit {
	v := &vegasLimit{cfg: DefaultVegasConfig(), rnd: newRand(1), limit: 20}
	v.probeJit = 1e9
	return v
}

// TestVegasUpdate asserts VegasLimit's rule, computed by hand from the pseudo-code: the first
// sample sets rtt_noload; a sample at it (queue 0 <= lg = 1) raises L by beta = 6 to 26; a
// sample at twice it (queue ceil(26 x 0.5) = 13 > 6) lowers L by 1; a drop lowers it by 1
// whatever the in-flight count; fewer than L/2 in flight leave it; a shorter round trip is the
// new rtt_noload; queue 2 (< alpha 3) raises L by 1; queue 4 (between alpha and beta) leaves it.
func TestVegasUpdate(t *testing.T) {
	v := newVegasLimit()
	ms := time.Millisecond
	steps := []struct {
		rtt      time.Duration
		inflight int
		dropped  bool
		want     int
	}{
		{100 * ms, 15, false, 20}, // rtt_noload = 100 ms
		{100 * ms, 15, false, 26},
		{200 * ms, 15, false, 25},
		{100 * ms, 1, true, 24},
		{200 * ms, 5, false, 24},   // 5 x 2 < 24
		{50 * ms, 15, false, 24},   // rtt_noload = 50 ms
		{54 * ms, 15, false, 25},   // queue ceil(24 x 4/54) = 2
		{60 * ms, 15, false, 25},   // queue ceil(25 x 10/60) = 5: hold
		{0, 15, false, 25},         // no sample: the library throws
		{1000 * ms, 15, false, 24}, // queue 24 > 6
	}
	for i, s := range steps {
		assert.Equal(t, s.want, v.sample(s.rtt, s.inflight, s.dropped), "step %d", i)
	}
}

// TestVegasProbe asserts the probe: after U(0.5, 1) x 30 x L samples rtt_noload is reset to the
// sample, so a service that became slower for good is learned again.
func TestVegasProbe(t *testing.T) {
	v := &vegasLimit{cfg: DefaultVegasConfig(), rnd: newRand(1), limit: 20}
	v.resetProbe()
	require.GreaterOrEqual(t, v.probeJit, 0.5)
	require.Less(t, v.probeJit, 1.0)
	v.sample(100*time.Millisecond, 15, false)
	jitter := v.probeJit
	n := 0
	for v.noLoad != 150*time.Millisecond {
		v.sample(150*time.Millisecond, 2, false) // few in flight: L stays, so the probe's turn is fixed
		n++
		require.Less(t, n, 1000)
	}
	assert.InDelta(t, jitter*30*20, float64(n+1), 1, "probed after jitter x 30 x L samples")
}

// TestVegasLimiter asserts the SimpleLimiter around it: at the limit every call is refused
// LIMIT_EXCEEDED whatever its priority.
func TestVegasLimiter(t *testing.T) {
	v := must(NewVegas(newRand(1), DefaultVegasConfig()))
	for range 20 {
		require.True(t, v.Admit(t0, att(1, 0)).Admitted())
	}
	assert.True(t, v.Admit(t0, att(10, 0)).Refused())
	assert.Equal(t, ReasonLimitExceeded, v.Admit(t0, att(10, 2)).Reason)
}
