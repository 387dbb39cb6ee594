package live

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that the bound on requests alive at once derived from a scenario is its peak rate
// (at the run's scale, capped by max_rps) times its deadline, plus the margin, within
// DefaultMaxInFlight..MaxInFlightCeiling.
func TestInFlightFor(t *testing.T) {
	scenario := func(name string) scenarios.Scenario {
		s, err := scenarios.Lookup(name)
		require.NoError(t, err)
		return s
	}
	heavy := scenario("black-friday")
	heavy.Classes = append([]scenarios.Class(nil), heavy.Classes...)
	for i := range heavy.Classes {
		heavy.Classes[i].Rate *= 10 // 5,250 requests/s x 30 s
	}
	cases := []struct {
		name   string
		scn    scenarios.Scenario
		scale  float64
		maxRPS float64
		want   int
	}{
		{"black-friday: 525/s x 30 s x 1.25", scenario("black-friday"), 1, DefaultMaxRPS, 19688},
		{"black-friday at scale 0 (1)", scenario("black-friday"), 0, 0, 19688},
		{"black-friday at scale 0.5", scenario("black-friday"), 0.5, DefaultMaxRPS, 9844},
		{"black-friday capped at 100/s: the floor", scenario("black-friday"), 1, 100, DefaultMaxInFlight},
		{"upi-salary-day: 640.8/s x 30 s x 1.25", scenario("upi-salary-day"), 1, DefaultMaxRPS, 24030},
		{"spotty-network: 120/s x 20 s x 1.25 under the floor", scenario("spotty-network"), 1, DefaultMaxRPS, DefaultMaxInFlight},
		{"ten times black-friday: the ceiling", heavy, 1, 0, MaxInFlightCeiling},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, InFlightFor(c.scn, c.scale, c.maxRPS))
		})
	}
}

// Asserts that a Config's MaxInFlight, when set, wins over the derived bound, and that 0 takes
// the scenario's (InFlightFor at the run's scale and max_rps).
func TestConfigMaxInFlightDefault(t *testing.T) {
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	cases := []struct {
		name string
		cfg  Config
		want int
	}{
		{"derived", Config{Scenario: scn}, 19688},
		{"derived at scale 0.5", Config{Scenario: scn, Scale: 0.5}, 9844},
		{"explicit wins", Config{Scenario: scn, MaxInFlight: 7}, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.cfg.withDefaults().MaxInFlight)
		})
	}
}
