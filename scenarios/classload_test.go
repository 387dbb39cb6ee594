package scenarios_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// surge is minimal with a second class whose own profile spikes 12x from 20s to 40s, beside a
// global profile that doubles at 30s.
const surge = minimal + `
[[class]]
name = "prefetch"
priority = 1
rate = 5

[[class.load]]
at = "10s"
factor = 1

[[class.load]]
at = "20s"
factor = 12

[[class.load]]
at = "40s"
factor = 12

[[class.load]]
at = "50s"
factor = 1

[[load]]
at = "30s"
factor = 1

[[load]]
at = "31s"
factor = 2
`

// TestParseClassLoad asserts that [[class.load]] entries belong to the class above them, that
// the class's rate is its base rate times its own factor times the scenario's, and that a class
// without points follows the scenario's profile alone.
func TestParseClassLoad(t *testing.T) {
	s, err := scenarios.Parse("t.toml", []byte(surge))
	require.NoError(t, err)
	require.Len(t, s.Classes, 2)
	assert.Empty(t, s.Classes[0].Load)
	assert.Equal(t, []scenarios.LoadPoint{{At: 10 * time.Second, Factor: 1}, {At: 20 * time.Second, Factor: 12},
		{At: 40 * time.Second, Factor: 12}, {At: 50 * time.Second, Factor: 1}}, s.Classes[1].Load)
	tests := []struct {
		at           time.Duration
		class, scene float64
	}{
		{0, 1, 1},
		{15 * time.Second, 6.5, 1},
		{25 * time.Second, 12, 1},
		{35 * time.Second, 12, 2},
		{45 * time.Second, 6.5, 2},
		{55 * time.Second, 1, 2},
	}
	for _, tt := range tests {
		assert.InDelta(t, 1, s.ClassLoadAt(0, tt.at), 1e-12, "at %s: the class without points", tt.at)
		assert.InDelta(t, tt.class, s.ClassLoadAt(1, tt.at), 1e-12, "at %s: the surging class", tt.at)
		assert.InDelta(t, tt.scene, s.LoadAt(tt.at), 1e-12, "at %s: the scenario's profile", tt.at)
	}
	assert.True(t, s.ClassLoads())
	inline := strings.Replace(minimal, "rate = 10", `rate = 10
load = [{ at = "10s", factor = 1 }, { at = "20s", factor = 12 }]`, 1)
	s2, err := scenarios.Parse("t.toml", []byte(inline))
	require.NoError(t, err)
	assert.Equal(t, []scenarios.LoadPoint{{At: 10 * time.Second, Factor: 1}, {At: 20 * time.Second, Factor: 12}}, s2.Classes[0].Load, "an inline array says the same")
}

// TestPeakRateAndRateSeconds asserts the peak and the integral of the arrival rate with class
// profiles against a fine numerical scan of the rates, and that without class profiles they
// are BaseRate x PeakLoad and BaseRate x LoadSeconds.
func TestPeakRateAndRateSeconds(t *testing.T) {
	s, err := scenarios.Parse("t.toml", []byte(surge))
	require.NoError(t, err)
	// The peak is where a falling class profile meets a rising global one: 10 x (1 + 1) + 5 x 12
	// x 2 at 35s; the scan also checks a product that peaks inside a segment below.
	scan := func(s scenarios.Scenario) (peak, integral float64) {
		const steps = 600000
		dt := s.Duration / steps
		for i := 0; i <= steps; i++ {
			at := time.Duration(i) * dt
			r := 0.0
			for c := range s.Classes {
				r += s.Classes[c].Rate * s.ClassLoadAt(c, at) * s.LoadAt(at)
			}
			peak = max(peak, r)
			if i < steps {
				integral += r * dt.Seconds()
			}
		}
		return peak, integral
	}
	peak, integral := scan(s)
	assert.InDelta(t, 140, s.PeakRate(), 1e-9)
	assert.InDelta(t, peak, s.PeakRate(), 1e-6)
	assert.InEpsilon(t, integral, s.RateSeconds(), 1e-4)

	// A class falling while the scenario rises: the product peaks between the points.
	s.Load = []scenarios.LoadPoint{{At: 0, Factor: 0}, {At: 60 * time.Second, Factor: 4}}
	s.Classes[1].Load = []scenarios.LoadPoint{{At: 0, Factor: 20}, {At: 60 * time.Second, Factor: 0}}
	s.Classes[0].Rate = 0
	peak, integral = scan(s)
	assert.InDelta(t, 5*20*4/4.0, s.PeakRate(), 1e-9, "5 x (20 - u) x 4u/60 over u peaks at u = 30s: 5 x 10 x 2")
	assert.InDelta(t, peak, s.PeakRate(), 1e-6)
	assert.InEpsilon(t, integral, s.RateSeconds(), 1e-4)

	plain, err := scenarios.Parse("t.toml", []byte(minimal+"\n[[load]]\nat = \"10s\"\nfactor = 1\n\n[[load]]\nat = \"30s\"\nfactor = 3\n"))
	require.NoError(t, err)
	assert.False(t, plain.ClassLoads())
	assert.Equal(t, plain.BaseRate()*plain.PeakLoad(), plain.PeakRate())
	assert.InEpsilon(t, plain.BaseRate()*plain.LoadSeconds(), plain.RateSeconds(), 1e-12)
	assert.False(t, math.IsNaN(plain.RateSeconds()))
}

// TestClassLoadErrors asserts that every problem of a class's load points is reported with the
// file, the line and the field path of the class and the point.
func TestClassLoadErrors(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"out of order", "at = \"20s\"\nfactor = 12", "at = \"5s\"\nfactor = 12",
			"t.toml:24: class[2].load[2].at: must be after class[2].load[1].at (10s), got 5s"},
		{"factor too large", "at = \"20s\"\nfactor = 12", "at = \"20s\"\nfactor = 120",
			"t.toml:25: class[2].load[2].factor: must be between 0 and 100, got 120"},
		{"negative time", "at = \"10s\"\nfactor = 1\n\n[[class.load]]\nat = \"20s\"", "at = \"-10s\"\nfactor = 1\n\n[[class.load]]\nat = \"20s\"",
			"t.toml:20: class[2].load[1].at: must not be negative, got -10s"},
		{"unknown key", "at = \"20s\"\nfactor = 12", "at = \"20s\"\nfactr = 12",
			"t.toml:25: class[2].load[2].factr: unknown key (did you mean \"factor\"?); valid keys in [[class.load]]: at, factor"},
		{"missing factor", "at = \"20s\"\nfactor = 12", "at = \"20s\"",
			"t.toml:23: class[2].load[2].factor: is required (e.g. factor = 1.5)"},
		{"a table, not a list", "[[class.load]]\nat = \"10s\"\nfactor = 1\n\n[[class.load]]\nat = \"20s\"\nfactor = 12\n\n[[class.load]]\nat = \"40s\"\nfactor = 12\n\n[[class.load]]\nat = \"50s\"\nfactor = 1\n",
			"[class.load]\nat = \"10s\"\nfactor = 1\n",
			"t.toml:19: class[2].load: must be a list of tables: write [[class.load]], not [class.load]"},
		{"peak arrival rate", "rate = 5\n", "rate = 100000\n",
			"t.toml:5: class: the peak arrival rate, 2.40002e+06 requests/s (at its largest, the sum over classes of rate x the class's own load factor x the load factor), must be at most 1000000 requests/s"},
	}
	_, err := scenarios.Parse("t.toml", []byte(edit(t, "rate = 10\n", "rate = 10\nload = 3\n")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "t.toml:9: class[1].load: must be a list of tables ([[class.load]]), got the integer 3")
	orphan := strings.Replace(minimal, "[[class]]\nname = \"a\"\npriority = 5\nrate = 10\n", "[[class.load]]\nat = \"0s\"\nfactor = 1\n", 1)
	require.NotEqual(t, minimal, orphan)
	_, err = scenarios.Parse("t.toml", []byte(orphan))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "t.toml:5: class: [[class.load]] must follow the [[class]] it belongs to")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, surge, tt.old)
			_, err := scenarios.Parse("t.toml", []byte(strings.Replace(surge, tt.old, tt.new, 1)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestClassLoadRoundTrip asserts that MarshalTOML writes a class's load points as
// [[class.load]] under their class and that the file reads back to the same scenario.
func TestClassLoadRoundTrip(t *testing.T) {
	s, err := scenarios.Parse("t.toml", []byte(surge))
	require.NoError(t, err)
	out, err := s.MarshalTOML()
	require.NoError(t, err)
	assert.Contains(t, string(out), "name = \"prefetch\"\npriority = 1\nrate = 5\n\n[[class.load]]\nat = \"10s\"\nfactor = 1\n")
	again, err := scenarios.Parse("again.toml", out)
	require.NoError(t, err, "MarshalTOML output:\n%s", out)
	assert.Equal(t, s, again)
}
