package upstream

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that service times are lognormal around the mean service time: their mean is the
// mean (within 1% over 200,000 draws), the standard deviation of their logarithm is sigma,
// and sigma 0 gives the mean exactly. The added latency is part of the mean.
func TestServiceTimeDistribution(t *testing.T) {
	tests := []struct {
		sigma   float64
		latency time.Duration
	}{{0, 0}, {0.25, 0}, {0.5, 0}, {1, 0}, {0.25, 50 * time.Millisecond}}
	for _, tt := range tests {
		cfg := DefaultConfig()
		cfg.ServiceTime, cfg.Sigma = 100*time.Millisecond, tt.sigma
		tg, err := New(cfg)
		require.NoError(t, err)
		require.NoError(t, tg.SetLatency(tt.latency))
		mean := (cfg.ServiceTime + tt.latency).Seconds()
		const n = 200_000
		var sum, sumLog, sumLog2 float64
		tg.mu.Lock()
		for range n {
			d := tg.svc.Draw(tg.rng).Seconds()
			sum += d
			sumLog += math.Log(d)
			sumLog2 += math.Log(d) * math.Log(d)
		}
		tg.mu.Unlock()
		assert.InEpsilon(t, mean, sum/n, 0.01, "sigma %v: mean", tt.sigma)
		sd := math.Sqrt(max(0, sumLog2/n-(sumLog/n)*(sumLog/n)))
		assert.InDelta(t, tt.sigma, sd, 0.01, "sigma %v: spread of the logarithm", tt.sigma)
	}
}

// Asserts that the seed, or the source given WithRand, decides the service times: the same seed
// gives the same sequence of Server-Timing values over real HTTP, another seed another one.
func TestSeededServiceTimes(t *testing.T) {
	noLeaks(t)
	timings := func(opts ...Option) []string {
		cfg := testConfig(1, time.Millisecond, 0)
		cfg.Sigma = 0.5
		tg := start(t, cfg, opts...)
		c := client(t)
		var out []string
		for range 5 {
			r := get(context.Background(), c, tg.URL())
			require.NoError(t, r.err)
			out = append(out, r.timing)
		}
		return out
	}
	seeded := func(seed uint64) Option { return WithRand(rand.New(rand.NewPCG(seed, streamService))) }
	first := timings()
	assert.Equal(t, first, timings(), "the default seed")
	assert.Equal(t, first, timings(seeded(DefaultSeed)), "the default source is the PCG of Config.Seed")
	assert.NotEqual(t, first, timings(seeded(2)))
}
