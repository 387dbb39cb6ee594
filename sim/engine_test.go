package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// runWith simulates scn with strat and opts to the end, as the headless commands do.
func runWith(t *testing.T, scn scenarios.Scenario, strat string, opts Options) report.Result {
	t.Helper()
	s, err := NewWith(scn, strat, 1, opts)
	require.NoError(t, err)
	return report.Run(s)
}

// Asserts that Options.Engine is the cortex strategy's configuration for the whole fleet: each
// client's engine gets its share (Split) with the run's clock and its own seed, the defaults
// given as a file run byte for byte as no file, another configuration changes the run, the
// other strategies ignore it, and the run's Meta names it.
func TestEngineOption(t *testing.T) {
	scn := testScenario()
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 20 * time.Second, Duration: 10 * time.Second}}
	tuned := engine.DefaultConfig()
	tuned.TokenBucketCapacity = 40
	tuned.CircuitCooldown = 2 * time.Second
	tuned.Seed = 99 // each engine is seeded from the run instead

	s, err := NewWith(scn, strategy.CortexName, 1, Options{Engine: &tuned, EngineName: "tuned.toml"})
	require.NoError(t, err)
	want := tuned.Split(scn.Clients)
	for _, c := range s.clients {
		got := c.holder.Engine().Config()
		assert.Equal(t, want.TokenBucketCapacity, got.TokenBucketCapacity)
		assert.Equal(t, want.CircuitCooldown, got.CircuitCooldown)
		assert.NotEqual(t, int64(99), got.Seed)
	}
	assert.Equal(t, "tuned.toml", s.Meta().Engine)
	assert.Equal(t, "cortex (tuned.toml)", s.Meta().StrategyLabel())

	def := engine.DefaultConfig()
	plain := runWith(t, scn, strategy.CortexName, Options{})
	asFile := runWith(t, scn, strategy.CortexName, Options{Engine: &def})
	asFile.Summary.Engine, asFile.Meta.Engine = "", ""
	assert.Equal(t, plain.Summary, asFile.Summary, "the defaults given as a file run as no file")
	other := runWith(t, scn, strategy.CortexName, Options{Engine: &tuned})
	assert.NotEqual(t, plain.Summary.Retries, other.Summary.Retries, "another configuration changes the run")
	assert.Equal(t, "custom", other.Summary.Engine)

	naive := runWith(t, scn, "naive", Options{})
	naiveTuned := runWith(t, scn, "naive", Options{Engine: &tuned})
	assert.Equal(t, naive.Summary, naiveTuned.Summary, "another strategy ignores the engine")
	assert.Empty(t, naiveTuned.Meta.Engine)

	bad := engine.DefaultConfig()
	bad.Window = 0
	_, err = NewWith(scn, strategy.CortexName, 1, Options{Engine: &bad})
	require.ErrorContains(t, err, "Window must be positive")
}

// Asserts that a shared budget's fleet bucket is the engine file's capacity, not the defaults'.
func TestEngineOptionSharedBudget(t *testing.T) {
	scn := testScenario()
	scn.Budget = scenarios.BudgetShared
	tuned := engine.DefaultConfig()
	tuned.TokenBucketCapacity = 40
	s, err := NewWith(scn, strategy.CortexName, 1, Options{Engine: &tuned})
	require.NoError(t, err)
	require.NotNil(t, s.fleet)
	cfg, ok := s.fleetConfig(strategy.CortexName)
	require.True(t, ok)
	assert.Equal(t, 40, cfg.TokenBucketCapacity)
	for _, c := range s.clients {
		assert.True(t, c.holder.Engine().Config().Fleet.Enabled, "the scenario's shared budget makes every engine a member")
	}
}
