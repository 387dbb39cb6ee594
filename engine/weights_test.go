package engine

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
)

// TestWeightsNormalized asserts that valid weights are scaled to sum 1 keeping their
// proportions, and invalid ones are refused with an error naming each bad field.
func TestWeightsNormalized(t *testing.T) {
	tests := []struct {
		name       string
		in         Weights
		wantFields []string // nil: valid
	}{
		{"defaults", DefaultWeights(), nil},
		{"unnormalised", Weights{F: 3, L: 2, Q: 1, B: 1, C: 2}, nil},
		{"a single signal", Weights{Q: 0.4}, nil},
		{"negative", Weights{F: -0.1, L: 1}, []string{"Weights.F"}},
		{"two bad", Weights{L: math.NaN(), C: math.Inf(1)}, []string{"Weights.L", "Weights.C"}},
		{"all zero", Weights{}, []string{"Weights"}},
		{"infinite sum", Weights{F: math.MaxFloat64, L: math.MaxFloat64}, []string{"Weights"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Normalized()
			if tc.wantFields != nil {
				var ce ConfigError
				require.True(t, errors.As(err, &ce), "error %v", err)
				assert.Equal(t, tc.wantFields, ce.Fields())
				for _, f := range tc.wantFields {
					assert.Contains(t, err.Error(), f)
				}
				return
			}
			require.NoError(t, err)
			s := tc.in.sum()
			assert.InDelta(t, 1, got.sum(), 1e-12)
			in, out := tc.in.Array(), got.Array()
			for i := range in {
				assert.InDelta(t, in[i]/s, out[i], 1e-12)
			}
		})
	}
}

// TestBounded asserts that bounded() always returns weights within the bounds summing to 1, and
// leaves weights already inside alone (apart from normalising).
func TestBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cases := []Weights{
		DefaultWeights(),
		{F: 1},
		{F: 1, L: 1},
		{F: 0.9, L: 0.1, Q: 0, B: 0, C: 0},
		{F: 100, L: 1e-9, Q: 1e-9, B: 1e-9, C: 1e-9},
		{},
	}
	for range 500 {
		var w Weights
		a := w.Array()
		for i := range a {
			a[i] = r.Float64() * math.Pow(10, float64(r.IntN(6)-3))
		}
		cases = append(cases, WeightsFrom(a))
	}
	for _, w := range cases {
		got := bounded(w, AdaptiveMinWeight, AdaptiveMaxWeight)
		assert.InDelta(t, 1, got.sum(), 1e-9, "%v -> %v", w, got)
		for _, v := range got.Array() {
			assert.GreaterOrEqual(t, v, AdaptiveMinWeight-1e-12, "%v -> %v", w, got)
			assert.LessOrEqual(t, v, AdaptiveMaxWeight+1e-12, "%v -> %v", w, got)
		}
	}
	d := bounded(DefaultWeights(), AdaptiveMinWeight, AdaptiveMaxWeight)
	want, got := DefaultWeights().Array(), d.Array()
	assert.InDeltaSlice(t, want[:], got[:], 1e-12, "defaults are inside the bounds")
}

// TestAdaptiveRule asserts the adaptive rule: a signal alarming before a failure spike gains a
// step, a false alarm loses one, a signal alarming only with the spike is unchanged.
func TestAdaptiveRule(t *testing.T) {
	spike := DefaultConfig().CircuitFailureThreshold
	tests := []struct {
		name  string
		steps []Signals
		// the sign of the expected change of each weight, before renormalisation moves the rest
		signal int // index into F L Q B C
		up     bool
	}{
		{
			name:   "latency warned before the spike",
			steps:  []Signals{{}, {L: 0.5}, {L: 0.8, F: spike}},
			signal: 1, up: true,
		},
		{
			name:   "queue alarmed and calmed down without a spike",
			steps:  []Signals{{}, {Q: 0.9}, {Q: 0.1}},
			signal: 2, up: false,
		},
		{
			name:   "budget warned before the spike and then calmed down: no penalty",
			steps:  []Signals{{B: 0.7}, {B: 0.7, F: spike}, {}},
			signal: 3, up: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := adaptiveWeights{spikeLevel: spike}
			w := DefaultWeights()
			before := w.Array()[tc.signal]
			for _, s := range tc.steps {
				a.step(s, &w)
			}
			after := w.Array()[tc.signal]
			if tc.up {
				assert.Greater(t, after, before)
			} else {
				assert.Less(t, after, before)
			}
			assert.InDelta(t, 1, w.sum(), 1e-9)
		})
	}

	a := adaptiveWeights{spikeLevel: spike}
	w := DefaultWeights()
	a.step(Signals{}, &w)
	changed := a.step(Signals{F: spike, L: 1, Q: 1, B: 1, C: 1}, &w)
	assert.False(t, changed, "signals alarming together with the spike did not warn ahead: no change")
	assert.Equal(t, DefaultWeights(), w)
}

// TestAdaptiveHysteresis asserts that a signal hovering around its alarm level (as L does with
// an ordinary latency spread) raises one alarm, not a string of false alarms that would wear its
// weight down.
func TestAdaptiveHysteresis(t *testing.T) {
	a := adaptiveWeights{spikeLevel: 0.6}
	w := DefaultWeights()
	for i := range 1000 {
		l := alarmOn[1] - 0.1
		if i%2 == 0 {
			l = alarmOn[1] + 0.05
		}
		a.step(Signals{L: l}, &w)
	}
	assert.Equal(t, DefaultWeights(), w)
	a.step(Signals{L: alarmOff[1] - 0.01}, &w)
	assert.Less(t, w.L, DefaultWeights().L, "the one alarm, ended without a spike, costs one step")
}

// TestAdaptiveBounds asserts that no sequence of signals can push a weight outside
// [AdaptiveMinWeight, AdaptiveMaxWeight] or the set away from a sum of 1.
func TestAdaptiveBounds(t *testing.T) {
	// Long random sequences of signals on one goroutine: the engine's concurrency is
	// TestConcurrentStress's, under the race detector.
	racedetect.SkipWholeRuns(t)
	r := rand.New(rand.NewPCG(7, 8))
	a := adaptiveWeights{spikeLevel: 0.6}
	w := DefaultWeights()
	moved := 0
	for range 20000 {
		var s Signals
		// Bursty signals: mostly one alarming signal at a time, spikes now and then.
		switch r.IntN(4) {
		case 0:
			s.L = r.Float64()
		case 1:
			s.Q = r.Float64()
		case 2:
			s.F = r.Float64()
		case 3:
			s.B, s.C = r.Float64(), float64(r.IntN(3))/2
		}
		if a.step(s, &w) {
			moved++
		}
		require.InDelta(t, 1, w.sum(), 1e-9)
		for _, v := range w.Array() {
			require.GreaterOrEqual(t, v, AdaptiveMinWeight-1e-12)
			require.LessOrEqual(t, v, AdaptiveMaxWeight+1e-12)
		}
	}
	assert.Positive(t, moved, "the random walk exercised the rule")
}

// TestWeightsAdjust asserts that Adjust moves one weight, floors it at 0 and renormalises the
// set to sum 1, that Array and WeightsFrom are inverses, and that a change leaving every weight
// at 0, or a signal index outside 0..4, is refused.
func TestWeightsAdjust(t *testing.T) {
	w := DefaultWeights()
	assert.Equal(t, w, WeightsFrom(w.Array()))

	got, err := w.Adjust(0, 0.05) // F 0.35 of a sum of 1.05
	require.NoError(t, err)
	assert.InDelta(t, 0.35/1.05, got.F, 1e-12)
	assert.InDelta(t, 0.20/1.05, got.L, 1e-12)
	assert.InDelta(t, 1, got.F+got.L+got.Q+got.B+got.C, 1e-12)

	got, err = Weights{Q: 0.03, C: 1}.Adjust(2, -0.05)
	require.NoError(t, err)
	assert.Equal(t, Weights{C: 1}, got, "floored at 0")

	_, err = Weights{B: 1}.Adjust(3, -1)
	assert.Error(t, err, "every weight at 0")
	for _, i := range []int{-1, 5} {
		_, err = w.Adjust(i, 0.05)
		assert.Error(t, err, "index %d", i)
	}
}

// TestBandStartsAreStateFor asserts that the lines BandStarts draws are where StateFor changes
// band, for the default and for another emergency threshold.
func TestBandStartsAreStateFor(t *testing.T) {
	for _, em := range []float64{DefaultEmergencyThreshold, 0.9} {
		starts := BandStarts(em)
		for i, at := range starts {
			assert.Equal(t, State(i), StateFor(math.Nextafter(at, 0), em), "just below line %d", i)
			assert.Equal(t, State(i+1), StateFor(at, em), "at line %d", i)
		}
	}
	assert.Equal(t, DefaultEmergencyThreshold, DefaultConfig().EmergencyThreshold)
}
