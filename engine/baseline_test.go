package engine

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
