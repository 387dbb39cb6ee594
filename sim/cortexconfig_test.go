package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts that the simulator builds each client's CORTEX engine with its share of the fleet's
// budget and queue (engine.Config.Split over the scenario's clients): the tuned defaults for
// cortex, the article's parameters for cortex-article.
func TestCortexClientsUseTheSplitBudget(t *testing.T) {
	scn := testScenario()
	for _, tc := range []struct {
		name string
		cfg  engine.Config
	}{
		{strategy.CortexName, engine.DefaultConfig()},
		{strategy.ArticleName, engine.ArticleConfig()},
	} {
		s, err := New(scn, tc.name, 1)
		require.NoError(t, err)
		require.NotEmpty(t, s.clients)
		want := tc.cfg.Split(scn.Clients)
		for _, c := range s.clients {
			h, ok := c.strat.(strategy.EngineHolder)
			require.True(t, ok, tc.name)
			got := h.Engine().Config()
			assert.Equal(t, want.TokenBucketCapacity, got.TokenBucketCapacity, tc.name)
			assert.InDelta(t, want.TokenRefillRate, got.TokenRefillRate, 1e-12, tc.name)
			assert.Equal(t, want.QueueCapacity, got.QueueCapacity, tc.name)
			assert.Equal(t, want.FailureHorizon, got.FailureHorizon, tc.name)
		}
	}
}
