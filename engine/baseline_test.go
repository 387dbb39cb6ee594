package engine

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// TestBaselineForms asserts that the learned baseline stays unformed (L = 0) until 20 healthy
// successes, then equals their median; and that a fixed baseline is used at once.
func TestBaselineForms(t *testing.T) {
	var lat []time.Duration
	for i := range baselineSeed {
		lat = append(lat, time.Duration(10+(i*7)%23)*time.Millisecond)
	}
	b := newBaseline(0, false)
	for i, l := range lat {
		assert.Zero(t, b.value, "not formed after %d samples", i)
		assert.Zero(t, b.deviation(time.Hour), "L is 0 before the baseline forms")
		b.observe(l)
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	assert.Equal(t, (s[9]+s[10])/2, b.value, "the median of the first 20")

	fixed := newBaseline(50*time.Millisecond, false)
	assert.Equal(t, 50*time.Millisecond, fixed.value)
	fixed.observe(time.Second)
	fixed.step()
	assert.Equal(t, 50*time.Millisecond, fixed.value, "a fixed baseline never moves")
}

// TestBaselineSteps asserts that a formed baseline moves one step per call, towards the side
// where most recent healthy successes fell, and stays put when they balance.
func TestBaselineSteps(t *testing.T) {
	tests := []struct {
		name   string
		feed   []time.Duration
		factor float64
	}{
		{"mostly slower moves up", []time.Duration{60, 70, 80, 10}, 1 + baselineStep},
		{"mostly faster moves down", []time.Duration{10, 20, 30, 90}, 1 - baselineStep},
		{"balanced stays", []time.Duration{10, 90}, 1},
		{"equal to the baseline stays", []time.Duration{40, 40, 40}, 1},
		{"nothing new stays", nil, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBaseline(0, false)
			for range baselineSeed {
				b.observe(40 * time.Millisecond)
			}
			require.Equal(t, 40*time.Millisecond, b.value)
			for _, ms := range tc.feed {
				b.observe(ms * time.Millisecond)
			}
			b.step()
			assert.Equal(t, time.Duration(float64(40*time.Millisecond)*tc.factor), b.value)
		})
	}
}

// TestBaselineDeviation asserts the L formula min(1, max(0, (P99-base)/(3 base))).
func TestBaselineDeviation(t *testing.T) {
	b := newBaseline(100*time.Millisecond, false)
	for _, p99 := range []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, 175 * time.Millisecond, 250 * time.Millisecond, 400 * time.Millisecond, 5 * time.Second} {
		want := math.Min(1, math.Max(0, (float64(p99)-1e8)/(3e8)))
		assert.InDelta(t, want, b.deviation(p99), 1e-12, "P99 %v", p99)
	}
}

// lognormalSpread returns 100 latencies spread like a healthy service's: the quantiles of a
// lognormal distribution of median 40 ms whose P99 is 1.8 times the median, in a fixed
// shuffled order (step 37 through the 100 quantiles), so every run sees the same values.
func lognormalSpread() []time.Duration {
	const n = 100
	const z99 = 2.3263478740408408 // the standard normal's 99th percentile
	sigma := math.Log(1.8) / z99
	out := make([]time.Duration, n)
	for i := range n {
		z := math.Sqrt2 * math.Erfinv(2*(float64(i)+0.5)/n-1)
		out[(i*37)%n] = time.Duration(float64(40*time.Millisecond) * math.Exp(sigma*z))
	}
	return out
}

// TestLearnedTail asserts what LearnTail changes in L for a healthy service with an ordinary
// lognormal spread (P99 about 1.8 times the median): with it the tail is learned near the
// healthy P99 and L reads about 0; without it L = (P99 - P50)/(3 P50), about 0.26, as long as
// the service runs, with no incident at all.
func TestLearnedTail(t *testing.T) {
	lat := lognormalSpread()
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	p50 := float64(sorted[49]+sorted[50]) / 2
	// P99 as the engine reads it: the mean of the histogram bin holding rank 99 (within 25%
	// of the exact value, TestHistogramQuantile).
	var h histogram
	for _, l := range lat {
		h.add(int64(l))
	}
	p99 := float64(h.quantile(0.99, uint64(len(lat))))
	require.InDelta(t, 1.8, p99/p50, 0.1, "a P99 about 1.8 times the median")
	spreadL := (p99 - p50) / (3 * p50)
	require.InDelta(t, 0.26, spreadL, 0.03)
	tests := []struct {
		name      string
		learnTail bool
		wantL     float64
		delta     float64
	}{
		{"LearnTail: L near 0", true, 0, 0.02},
		{"without: L of the spread", false, spreadL, 0.01},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, func(c *Config) { c.LearnTail = tc.learnTail })
			for i := range 12000 { // 100 per second for 2 minutes
				clock.Advance(10 * time.Millisecond)
				e.RecordSuccess(lat[i%len(lat)])
				if i >= 1000 && i%100 == 0 {
					s := e.Snapshot()
					require.InDelta(t, tc.wantL, s.Signals.L, tc.delta, "L at %v", clock.Now().Sub(epoch))
				}
			}
			s := e.Snapshot()
			assert.InEpsilon(t, p50, float64(s.Baseline), 0.05, "the baseline is the median")
			if tc.learnTail {
				assert.InEpsilon(t, p99, float64(e.bl.tail), 0.05, "the tail is the healthy P99")
			} else {
				assert.Zero(t, e.bl.tail, "no tail is learned without LearnTail")
			}
		})
	}
}

// TestLearnedTailIgnoresIncident asserts that the learned tail does not learn during an
// incident: from the moment successes stop teaching (F >= 0.10 over the short span, or the
// circuit OPEN or HALF_OPEN) until the incident ends, neither the tail nor the histogram of
// healthy successes it is learned from change, however slow the successes; the slice in which
// the incident began moves the tail by one step at most.
func TestLearnedTailIgnoresIncident(t *testing.T) {
	// Minutes of virtual traffic through one engine on one goroutine: the engine's concurrency is
	// TestConcurrentStress's, under the race detector.
	racedetect.SkipWholeRuns(t)
	lat := lognormalSpread()
	tests := []struct {
		name   string
		mutate func(c *Config)
		start  func(e *Engine, clock *ManualClock)
		record func(e *Engine, i int)
	}{
		{
			name: "F >= 0.10 over the short span",
			// Keep the circuit CLOSED: the failure rate alone stops the learning.
			mutate: func(c *Config) { c.CircuitFailureThreshold = 1 },
			record: func(e *Engine, i int) {
				if i%4 == 0 {
					e.RecordFailure(time.Second)
				} else {
					e.RecordSuccess(3 * lat[i%len(lat)])
				}
			},
		},
		{
			name:   "circuit OPEN",
			mutate: func(c *Config) { c.CircuitCooldown, c.ProbeOnSuccess = time.Hour, false },
			start:  func(e *Engine, _ *ManualClock) { e.ForceOpen() },
			record: func(e *Engine, i int) { e.RecordSuccess(3 * lat[i%len(lat)]) },
		},
		{
			name:   "circuit HALF_OPEN",
			mutate: func(c *Config) { c.HalfOpenProbes = 1_000_000 },
			start: func(e *Engine, clock *ManualClock) {
				e.ForceOpen()
				clock.Advance(e.Config().CircuitCooldown)
			},
			record: func(e *Engine, i int) { e.RecordSuccess(3 * lat[i%len(lat)]) },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, clock := newTestEngine(t, tc.mutate)
			require.True(t, e.Config().LearnTail)
			for i := range 6000 { // a healthy minute
				clock.Advance(10 * time.Millisecond)
				e.RecordSuccess(lat[i%len(lat)])
			}
			healthyTail := e.bl.tail
			require.NotZero(t, healthyTail)
			if tc.start != nil {
				tc.start(e, clock)
			}
			var frozenTail time.Duration
			var frozenHist decayingHistogram
			for i := range 6000 { // a minute of incident
				clock.Advance(10 * time.Millisecond)
				tc.record(e, i)
				_ = e.Snapshot()
				if frozenTail == 0 && !e.healthy() {
					frozenTail, frozenHist = e.bl.tail, e.bl.healthy
				}
				if frozenTail != 0 {
					require.Equal(t, frozenTail, e.bl.tail, "the tail learns nothing at %v", clock.Now().Sub(epoch))
					require.Equal(t, frozenHist, e.bl.healthy, "nor does its histogram")
					require.False(t, e.healthy(), "the incident goes on")
				}
			}
			require.NotZero(t, frozenTail, "the incident stopped the learning")
			assert.InEpsilon(t, float64(healthyTail), float64(frozenTail), 1.5*baselineStep, "one step at most before it stopped")
		})
	}
}

// TestSnapshotTailAndSlowdown asserts what Snapshot reports of the latency learning: the learned
// tail once a minute of healthy traffic has formed it (none with ArticleConfig, which measures
// L against the baseline P50), and the slowdown S of the latest successes, 0 while they run at
// the baseline and 1 once they are ten times slower than it (S saturates at four).
func TestSnapshotTailAndSlowdown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      Config
		wantTail bool
	}{{"default", DefaultConfig(), true}, {"article", ArticleConfig(), false}} {
		clock := NewManualClock(time.Unix(0, 0))
		cfg := tc.cfg
		cfg.Clock = clock
		e, err := New(cfg)
		require.NoError(t, err)
		for i := range 1200 { // 20/s for a minute, 10 ms with a tail up to 19 ms
			clock.Advance(50 * time.Millisecond)
			e.RecordSuccess(time.Duration(10+i%10) * time.Millisecond)
		}
		s := e.Snapshot()
		if tc.wantTail {
			assert.Greater(t, s.Tail, s.Baseline, "%s: the tail is above the median", tc.name)
		} else {
			assert.Zero(t, s.Tail, tc.name)
		}
		assert.Less(t, s.Slowdown, 0.2, "%s: successes at the baseline", tc.name)
		for range 50 {
			clock.Advance(50 * time.Millisecond)
			e.RecordSuccess(200 * time.Millisecond)
		}
		assert.InDelta(t, 1, e.Snapshot().Slowdown, 1e-9, "%s: successes 10x slower", tc.name)
	}
}
