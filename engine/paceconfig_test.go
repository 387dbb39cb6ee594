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
		SlowShare: 0.05, StartFactor: 2, MaxPoll: time.Second, Release: 1.5, Urgent: 2 * time.Second}
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
		{"negative urgent", func(p *PaceConfig) { p.Urgent = -time.Second }, "Pace.Urgent"},
		{"valid", func(p *PaceConfig) { p.Release, p.SlowShare, p.Horizon = 3, 1, 10*time.Second }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.set(&c.Pace)
			err := c.Validate()
			if tt.field == "" {
				assert.NoError(t, err)
				return
			}
			var ce ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, []string{tt.field}, ce.Fields())
		})
	}
}
