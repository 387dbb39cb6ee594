package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// TestNoteAt asserts that the caption is the last note at or before t, and empty before the
// first note or without notes.
func TestNoteAt(t *testing.T) {
	s := scenarios.Scenario{Notes: []scenarios.Note{
		{At: 5 * time.Second, Text: "first"},
		{At: 20 * time.Second, Text: "second"},
		{At: 60 * time.Second, Text: "third"},
	}}
	tests := []struct {
		t    time.Duration
		want string
	}{
		{0, ""},
		{5*time.Second - 1, ""},
		{5 * time.Second, "first"},
		{19 * time.Second, "first"},
		{20 * time.Second, "second"},
		{59 * time.Second, "second"},
		{60 * time.Second, "third"},
		{time.Hour, "third"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, s.NoteAt(tt.t, "naive"), "at %s", tt.t)
	}
	assert.Empty(t, scenarios.Scenario{}.NoteAt(time.Minute, "naive"), "no notes, no caption")
}

// TestNoteAtStrategy asserts that a note naming strategies is the caption of those strategies
// only: another strategy keeps the last note it may see.
func TestNoteAtStrategy(t *testing.T) {
	s := scenarios.Scenario{Notes: []scenarios.Note{
		{At: 0, Text: "all"},
		{At: 20 * time.Second, Text: "naive only", Strategies: []string{"naive", "backoff"}},
		{At: 20 * time.Second, Text: "cortex only", Strategies: []string{"cortex"}},
		{At: 40 * time.Second, Text: "all again"},
		{At: 50 * time.Second, Text: "all but naive", Except: []string{"naive"}},
	}}
	tests := []struct {
		strategy string
		t        time.Duration
		want     string
	}{
		{"naive", 30 * time.Second, "naive only"},
		{"backoff", 30 * time.Second, "naive only"},
		{"cortex", 30 * time.Second, "cortex only"},
		{"none", 30 * time.Second, "all"},
		{"cortex", 40 * time.Second, "all again"},
		{"naive", 50 * time.Second, "all again"},
		{"a-strategy-added-later", 50 * time.Second, "all but naive"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, s.NoteAt(tt.t, tt.strategy), "%s at %s", tt.strategy, tt.t)
	}
}

// TestLoadAt asserts that the load profile is piecewise linear between its points, flat
// outside them, and 1 without points.
func TestLoadAt(t *testing.T) {
	s := scenarios.Scenario{Load: []scenarios.LoadPoint{
		{At: 10 * time.Second, Factor: 1},
		{At: 30 * time.Second, Factor: 2},
		{At: 40 * time.Second, Factor: 0},
	}}
	tests := []struct {
		t    time.Duration
		want float64
	}{
		{0, 1},                      // before the first point: its factor
		{10 * time.Second, 1},       // on a point
		{15 * time.Second, 1.25},    // a quarter of the way from 1 to 2
		{20 * time.Second, 1.5},     // half way
		{30 * time.Second, 2},       // on a point
		{35 * time.Second, 1},       // half way down from 2 to 0
		{40 * time.Second, 0},       // the last point
		{time.Hour, 0},              // after the last point: its factor
		{-5 * time.Second, 1},       // negative time: the first factor
		{39*time.Second + 5e8, 0.1}, // 39.5 s: 2 * (0.5 / 10)
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, s.LoadAt(tt.t), 1e-12, "at %s", tt.t)
	}
	assert.Equal(t, 1.0, scenarios.Scenario{}.LoadAt(time.Minute), "no points: flat 1")
	one := scenarios.Scenario{Load: []scenarios.LoadPoint{{At: time.Minute, Factor: 3}}}
	assert.Equal(t, 3.0, one.LoadAt(0), "a single point: flat")
	assert.Equal(t, 3.0, one.LoadAt(time.Hour))
}

// TestFormatDuration asserts the duration format of files and messages, and that it parses back.
func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{180 * time.Second, "180s"},
		{250 * time.Millisecond, "250ms"},
		{1500 * time.Millisecond, "1.5s"},
		{-60 * time.Second, "-60s"},
		{time.Hour, "3600s"},
	}
	for _, tt := range tests {
		got := scenarios.FormatDuration(tt.d)
		assert.Equal(t, tt.want, got)
		back, err := time.ParseDuration(got)
		assert.NoError(t, err)
		assert.Equal(t, tt.d, back)
	}
}

// TestServiceCapacity asserts capacity = workers / service time, and 0 without a service time.
func TestServiceCapacity(t *testing.T) {
	assert.InDelta(t, 500, scenarios.Service{Workers: 50, ServiceTime: 100 * time.Millisecond}.Capacity(), 1e-9)
	assert.Zero(t, scenarios.Service{Workers: 50}.Capacity())
}

// TestPeakLoadAndLoadSeconds asserts the largest load factor over the arrival phase and the
// integral of the load profile over it (factor-seconds), for a flat profile, a ramp, points
// outside the phase, and a peak between points.
func TestPeakLoadAndLoadSeconds(t *testing.T) {
	s := func(d time.Duration, pts ...scenarios.LoadPoint) scenarios.Scenario {
		return scenarios.Scenario{Duration: d, Load: pts}
	}
	p := func(at time.Duration, f float64) scenarios.LoadPoint { return scenarios.LoadPoint{At: at, Factor: f} }
	tests := []struct {
		name    string
		scn     scenarios.Scenario
		peak    float64
		seconds float64
	}{
		{"no points: flat 1", s(60 * time.Second), 1, 60},
		{"one point: flat", s(60*time.Second, p(30*time.Second, 2)), 2, 120},
		{"a ramp from 1 to 3 over the phase", s(60*time.Second, p(0, 1), p(60*time.Second, 3)), 3, 120},
		{"a peak in the middle", s(100*time.Second, p(0, 1), p(50*time.Second, 5), p(100*time.Second, 1)), 5, 300},
		{"a peak after the phase does not count", s(10*time.Second, p(0, 1), p(20*time.Second, 3)), 2, 15},
		{"the black-friday shape", s(180*time.Second, p(0, 1), p(50*time.Second, 1.5), p(150*time.Second, 1.5), p(180*time.Second, 1.2)), 1.5, 62.5 + 150 + 40.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.peak, tt.scn.PeakLoad(), 1e-9)
			assert.InDelta(t, tt.seconds, tt.scn.LoadSeconds(), 1e-9)
		})
	}
}
