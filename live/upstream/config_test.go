package upstream

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// badFields lists the fields a Validate error names.
func badFields(err error) []string {
	var out []string
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			var ce *ConfigError
			if errors.As(e, &ce) {
				out = append(out, ce.Field)
			}
		}
	}
	return out
}

// Asserts that the default config is valid and that Validate names exactly the bad field of
// each broken config, with a message that says what is allowed.
func TestValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	tests := []struct {
		name   string
		change func(*Config)
		fields []string
	}{
		{"bad addr", func(c *Config) { c.Addr = "localhost" }, []string{"addr"}},
		{"no workers", func(c *Config) { c.Workers = 0 }, []string{"workers"}},
		{"too many workers", func(c *Config) { c.Workers = scenarios.MaxWorkers + 1 }, []string{"workers"}},
		{"zero service time", func(c *Config) { c.ServiceTime = 0 }, []string{"service_time"}},
		{"negative sigma", func(c *Config) { c.Sigma = -0.1 }, []string{"sigma"}},
		{"NaN sigma", func(c *Config) { c.Sigma = math.NaN() }, []string{"sigma"}},
		{"negative queue", func(c *Config) { c.QueueLimit = -1 }, []string{"queue_limit"}},
		{"refusal cost above 1", func(c *Config) { c.RefusalCost = 1.5 }, []string{"refusal_cost"}},
		{"crash factor under 1", func(c *Config) { c.CrashFactor, c.RestartDelay = 0.5, time.Second }, []string{"crash_factor"}},
		{"infinite crash factor", func(c *Config) { c.CrashFactor, c.RestartDelay = math.Inf(1), time.Second }, []string{"crash_factor"}},
		{"crash without restart delay", func(c *Config) { c.CrashFactor = 2 }, []string{"restart_delay"}},
		{"negative crash_after", func(c *Config) { c.CrashAfter = -time.Second }, []string{"crash_after"}},
		{"zero warm start", func(c *Config) { c.WarmStart = 0 }, []string{"warm_start"}},
		{"negative warmup", func(c *Config) { c.Warmup = -time.Second }, []string{"warmup"}},
		{"tick too short", func(c *Config) { c.Tick = time.Microsecond }, []string{"tick"}},
		{"tick too long", func(c *Config) { c.Tick = 2 * time.Second }, []string{"tick"}},
		{"negative body limit", func(c *Config) { c.MaxBodyBytes = -1 }, []string{"max_body_bytes"}},
		{"two bad fields", func(c *Config) { c.Workers, c.ServiceTime = 0, 0 }, []string{"workers", "service_time"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.change(&c)
			err := c.Validate()
			require.Error(t, err)
			assert.Equal(t, tt.fields, badFields(err))
			for _, f := range tt.fields {
				assert.Contains(t, err.Error(), "target: "+f+": ")
			}
			_, err = New(c)
			assert.Error(t, err, "New validates")
		})
	}
}

// Asserts that FromScenario copies every field of a scenario's [service] and that every
// built-in scenario gives a valid target.
func TestFromScenario(t *testing.T) {
	svc := scenarios.Service{Workers: 7, ServiceTime: 30 * time.Millisecond, Sigma: 0.5, QueueLimit: 11,
		DropExpired: true, RefusalCost: 0.2, CrashFactor: 1.5, CrashAfter: 3 * time.Second,
		RestartDelay: 4 * time.Second, WarmStart: 0.4, Warmup: 5 * time.Second}
	c := FromScenario(svc)
	want := DefaultConfig()
	want.Workers, want.ServiceTime, want.Sigma, want.QueueLimit = 7, 30*time.Millisecond, 0.5, 11
	want.DropExpired, want.RefusalCost, want.CrashFactor, want.CrashAfter = true, 0.2, 1.5, 3*time.Second
	want.RestartDelay, want.WarmStart, want.Warmup = 4*time.Second, 0.4, 5*time.Second
	assert.Equal(t, want, c)

	for _, s := range scenarios.Catalog() {
		assert.NoError(t, FromScenario(s.Service).Validate(), s.Name)
	}
}

// Asserts that the states map to the simulator's service states and print as they do, which the
// live dashboard and the headless rows show.
func TestStateNames(t *testing.T) {
	for st, want := range map[State]source.ServiceState{StateUp: source.ServiceUp, StateDown: source.ServiceDown,
		StateCrashed: source.ServiceCrashed, StateWarming: source.ServiceWarming, StateStopped: source.ServiceUnknown} {
		assert.Equal(t, want, st.Service(), st.String())
		if st != StateStopped {
			assert.Equal(t, want.String(), st.String())
		}
	}
	assert.Equal(t, source.ServiceState(0), State(9).Service())
	assert.Equal(t, "STOPPED", StateStopped.String())
	assert.Equal(t, "State(9)", State(9).String())
}
