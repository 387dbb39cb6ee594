package strategy

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sec is the Time s seconds after the origin.
func sec(s float64) Time { return Time(s * 1e9) }

// TestAWSAdaptiveCubic asserts the rate limiter's update rule against the pseudo-code, computed
// by hand: off until the first throttle (every attempt admitted); the measured rate folds each
// 0.5 s bucket (0.8 x count / span + 0.2 x before); a throttle sets W_max, K = cbrt(W_max x 0.3 /
// 0.4) and the rate to 0.7 x W_max, and turns the bucket on with the tokens refilled since the
// first answer (the refill clock starts at the first answer); an attempt without a token is held (1 - tokens) / fill rate and then admitted
// once the bucket has refilled; after the throttle the rate grows along 0.4 (t - t_last - K)^3
// + W_max, capped at twice the measured rate.
func TestAWSAdaptiveCubic(t *testing.T) {
	s := must(NewAWSAdaptive(newRand(1), DefaultAWSAdaptiveConfig()))
	a := att(5, 0)
	require.True(t, s.Admit(sec(0), a).Admitted(), "the clock starts at 0: the first bucket is [0, 0.5)")
	for range 20 {
		s.Record(sec(0.25), a, Success, 0)
	}
	s.Record(sec(0.5), a, Success, 0) // bucket 0.5: rate 21 / 0.5 = 42, measured 0.8 x 42 = 33.6
	_, on := s.FillRate()
	assert.False(t, on)
	assert.InDelta(t, 33.6, s.cubic.measured, 1e-9)
	assert.True(t, s.Admit(sec(0.6), a).Admitted(), "off: every attempt goes")

	s.Record(sec(1), a, Throttled, 0) // bucket 1: rate 1 / 0.5 = 2, measured 1.6 + 0.2 x 33.6 = 8.32
	fill, on := s.FillRate()
	require.True(t, on)
	assert.InDelta(t, 8.32, s.cubic.measured, 1e-9)
	assert.InDelta(t, 8.32, s.cubic.lastMax, 1e-9)
	assert.InDelta(t, math.Cbrt(8.32*0.3/0.4), s.cubic.window, 1e-12)
	assert.InDelta(t, 0.7*8.32, fill, 1e-9, "rate 0.7 x W_max (under 2 x measured)")
	assert.InDelta(t, 0.375, s.cubic.tokens, 1e-9, "refilled at 0.5 tokens/s since the first answer, at 0.25 s")

	adm := s.Admit(sec(1), a)
	require.True(t, adm.Held())
	assert.Equal(t, ReasonRateLimited, adm.Reason)
	assert.InDelta(t, 0.625/5.824, adm.Wait.Seconds(), 1e-9, "(1 - 0.375) / 5.824")
	require.True(t, s.Admit(sec(1.2), a).Admitted(), "0.375 + 0.2 x 5.824 >= 1")
	assert.InDelta(t, 0.375+0.2*5.824-1, s.cubic.tokens, 1e-9)

	s.Record(sec(3), a, Success, 0) // bucket 3: rate 1 / 2 = 0.5, measured 0.4 + 0.2 x 8.32 = 2.064
	d := 3 - 1 - math.Cbrt(8.32*0.3/0.4)
	cubic := 0.4*d*d*d + 8.32
	assert.InDelta(t, cubic, s.cubic.calculated, 1e-9)
	fill, _ = s.FillRate()
	assert.InDelta(t, 2*2.064, fill, 1e-9, "the cubic rate capped at twice the measured rate")
}

// TestAWSAdaptiveQuota asserts that the retries are the standard mode's (the quota pays 5 a
// retry, 10 after a timeout, a successful original gives 1 back), that the 2026 variant costs 14
// a retry, and that aws-sdk-go-v2 as shipped (#3550) never gives a successful original's 1 back.
func TestAWSAdaptiveQuota(t *testing.T) {
	tests := []struct {
		name string
		cfg  AWSAdaptiveConfig
		want int
	}{
		{"botocore and the docs", DefaultAWSAdaptiveConfig(), 500 - 5 - 10 + 1},
		{"2026 costs", AWSAdaptiveConfig2026(), 500 - 14 - 14 + 1},
		{"aws-sdk-go-v2 #3550", AWSAdaptiveConfigGoV2(), 500 - 5 - 10},
	}
	for _, tt := range tests {
		s := must(NewAWSAdaptive(newRand(1), tt.cfg))
		assert.True(t, s.Decide(t0, att(5, 0), ServerError).Retry, tt.name)
		assert.True(t, s.Decide(t0, att(5, 1), Timeout).Retry, tt.name)
		s.Record(t0, att(5, 0), Success, 0)
		assert.Equal(t, tt.want, s.Quota(), tt.name)
	}
	assert.Equal(t, AWSAdaptiveConfigGoV2().Standard.NoRetryIncrement, 0)
}

// TestAWSAdaptiveConfig asserts that every field out of range is reported by name.
func TestAWSAdaptiveConfig(t *testing.T) {
	for field, edit := range map[string]func(*AWSAdaptiveConfig){
		"Smooth":      func(c *AWSAdaptiveConfig) { c.Smooth = 0 },
		"Beta":        func(c *AWSAdaptiveConfig) { c.Beta = 1 },
		"Scale":       func(c *AWSAdaptiveConfig) { c.Scale = math.NaN() },
		"MinFillRate": func(c *AWSAdaptiveConfig) { c.MinFillRate = -1 },
		"RequestCost": func(c *AWSAdaptiveConfig) { c.RequestCost = 0 },
		"Quota":       func(c *AWSAdaptiveConfig) { c.Standard.Quota = -1 },
	} {
		cfg := DefaultAWSAdaptiveConfig()
		edit(&cfg)
		_, err := NewAWSAdaptive(newRand(1), cfg)
		assert.ErrorContains(t, err, field)
	}
	_, err := NewAWSAdaptive(nil, DefaultAWSAdaptiveConfig())
	assert.ErrorContains(t, err, "random source")
	require.Less(t, time.Duration(float64(time.Second)/DefaultAWSAdaptiveConfig().MinFillRate), MaxDelay, "a hold is at most 2 s")
}
