package engine

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPaceDefaults asserts that the pacer's defaults are the constants it had before they were
// configurable, that a zero PaceConfig takes them, and that a set field is kept.
func TestPaceDefaults(t *testing.T) {
	want := PaceConfig{Min: 1, Margin: 0.1, Horizon: 2 * time.Second, Burst: 100 * time.Millisecond,
		SlowShare: 0.05, StartFactor: 2, MaxPoll: time.Second, Release: 1.5,
		Easing: 0.9, Intrinsic: 1.25, RateTau: 500 * time.Millisecond, ArrSlices: 5, RefSlices: 30, Urgent: 2 * time.Second}
	assert.Equal(t, want, DefaultPace())
	assert.Equal(t, want, DefaultConfig().Pace)
	assert.Equal(t, want, PaceConfig{}.resolved())
	set := PaceConfig{Margin: 0.3, Horizon: 5 * time.Second}.resolved()
	assert.Equal(t, 0.3, set.Margin)
	assert.Equal(t, 5*time.Second, set.Horizon)
	assert.Equal(t, 1.5, set.Release)
	e, err := New(Config{Window: time.Minute, Weights: DefaultWeights(), EmergencyThreshold: 0.75,
		CircuitFailureThreshold: 0.6, CircuitCooldown: time.Second, AdmitOriginals: true})
	require.NoError(t, err)
	assert.Equal(t, want, e.pace.c, "a Config without Pace paces with the defaults")
}

// TestPaceValidate asserts that each pacer field refuses what it cannot take and names itself.
func TestPaceValidate(t *testing.T) {
	tests := []struct {
		name  string
		set   func(*PaceConfig)
		field string
	}{
		{"negative min", func(p *PaceConfig) { p.Min = -1 }, "Pace.Min"},
		{"NaN margin", func(p *PaceConfig) { p.Margin = math.NaN() }, "Pace.Margin"},
		{"negative horizon", func(p *PaceConfig) { p.Horizon = -time.Second }, "Pace.Horizon"},
		{"negative burst", func(p *PaceConfig) { p.Burst = -1 }, "Pace.Burst"},
		{"slow share past 1", func(p *PaceConfig) { p.SlowShare = 1.01 }, "Pace.SlowShare"},
		{"infinite start factor", func(p *PaceConfig) { p.StartFactor = math.Inf(1) }, "Pace.StartFactor"},
		{"negative max poll", func(p *PaceConfig) { p.MaxPoll = -1 }, "Pace.MaxPoll"},
		{"negative release", func(p *PaceConfig) { p.Release = -0.5 }, "Pace.Release"},
		{"easing past 1", func(p *PaceConfig) { p.Easing = 1.5 }, "Pace.Easing"},
		{"NaN intrinsic", func(p *PaceConfig) { p.Intrinsic = math.NaN() }, "Pace.Intrinsic"},
		{"negative rate tau", func(p *PaceConfig) { p.RateTau = -time.Millisecond }, "Pace.RateTau"},
		{"negative arrival slices", func(p *PaceConfig) { p.ArrSlices = -0.1 }, "Pace.ArrSlices"},
		{"infinite reference slices", func(p *PaceConfig) { p.RefSlices = math.Inf(1) }, "Pace.RefSlices"},
		{"negative urgent", func(p *PaceConfig) { p.Urgent = -time.Second }, "Pace.Urgent"},
		{"valid", func(p *PaceConfig) { p.Release, p.SlowShare, p.Horizon = 3, 1, 10*time.Second }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.set(&c.Pace)
			assertRefusesOnly(t, c, tt.field)
		})
	}
}

// TestAdmitDefaults asserts that admission's defaults are the constants it had before they were
// configurable, that a zero AdmitConfig takes them, and that a set field is kept.
func TestAdmitDefaults(t *testing.T) {
	want := AdmitConfig{Slow: 0.5, Refused: 0.05, Failed: 0.25, Smooth: 0.5}
	assert.Equal(t, want, DefaultAdmit())
	assert.Equal(t, want, DefaultConfig().Admit)
	assert.Equal(t, want, ArticleConfig().Admit)
	assert.Equal(t, want, AdmitConfig{}.resolved())
	set := AdmitConfig{Slow: 0.8, Failed: 0.1}.resolved()
	assert.Equal(t, AdmitConfig{Slow: 0.8, Refused: 0.05, Failed: 0.1, Smooth: 0.5}, set)
	e, err := New(Config{Window: time.Minute, Weights: DefaultWeights(), EmergencyThreshold: 0.75,
		CircuitFailureThreshold: 0.6, CircuitCooldown: time.Second, AdmitOriginals: true})
	require.NoError(t, err)
	assert.Equal(t, want, e.adm.c, "a Config without Admit admits with the defaults")
}

// TestAdmitValidate asserts that each admission field refuses a value outside [0, 1] (NaN
// included) and names itself.
func TestAdmitValidate(t *testing.T) {
	tests := []struct {
		name  string
		set   func(*AdmitConfig)
		field string
	}{
		{"slow past 1", func(a *AdmitConfig) { a.Slow = 1.1 }, "Admit.Slow"},
		{"negative refused", func(a *AdmitConfig) { a.Refused = -0.01 }, "Admit.Refused"},
		{"NaN failed", func(a *AdmitConfig) { a.Failed = math.NaN() }, "Admit.Failed"},
		{"infinite smooth", func(a *AdmitConfig) { a.Smooth = math.Inf(1) }, "Admit.Smooth"},
		{"valid at the ends", func(a *AdmitConfig) { a.Slow, a.Refused, a.Failed, a.Smooth = 1, 0, 1, 1 }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.set(&c.Admit)
			assertRefusesOnly(t, c, tt.field)
		})
	}
}

// TestAdmitSlowMoves asserts that Admit.Slow is what admission reads: a service whose
// successes all take twice the baseline (S = 1/3) turns the pacer on at a threshold of 0.3,
// with a quarter of the outcomes failed, and does not at the default 0.5.
func TestAdmitSlowMoves(t *testing.T) {
	for _, tt := range []struct {
		slow float64
		want bool
	}{{0.3, true}, {0, false}} {
		clk := NewManualClock(time.Unix(0, 0))
		c := DefaultConfig()
		c.Clock, c.Deterministic, c.BaselineLatency = clk, true, 100*time.Millisecond
		c.Admit.Slow = tt.slow
		e, err := New(c)
		require.NoError(t, err)
		for range 3 { // three slices of 6 slow successes and 2 failures each
			for range 6 {
				e.RecordSuccess(200 * time.Millisecond)
			}
			e.RecordFailure(200 * time.Millisecond)
			e.RecordFailure(200 * time.Millisecond)
			clk.Advance(time.Second)
		}
		e.Admit(5)
		assert.Equal(t, tt.want, e.Snapshot().Shedding, "Admit.Slow %v", tt.slow)
	}
}

// assertRefusesOnly asserts that c validates when field is empty, and otherwise that Validate
// refuses it naming field alone.
func assertRefusesOnly(t *testing.T, c Config, field string) {
	t.Helper()
	err := c.Validate()
	if field == "" {
		assert.NoError(t, err)
		return
	}
	var ce ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []string{field}, ce.Fields())
}
