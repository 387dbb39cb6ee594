package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts that each client's CORTEX engine gets 1/n of the default retry budget, refill rate and
// queue capacity, never less than one token or one slot, and the defaults for a single client.
func TestCortexClientConfigSplitsTheFleetBudget(t *testing.T) {
	def := engine.DefaultConfig()
	cases := []struct {
		clients  int
		capacity int
		refill   float64
		queue    int
	}{
		{clients: 1, capacity: def.TokenBucketCapacity, refill: def.TokenRefillRate, queue: def.QueueCapacity},
		{clients: 0, capacity: def.TokenBucketCapacity, refill: def.TokenRefillRate, queue: def.QueueCapacity},
		{clients: 20, capacity: 25, refill: 5, queue: 50},
		{clients: 3, capacity: 167, refill: 100.0 / 3, queue: 333},
		{clients: 5000, capacity: 1, refill: 0.02, queue: 1},
	}
	for _, tc := range cases {
		cfg := cortexClientConfig(tc.clients)
		assert.Equal(t, tc.capacity, cfg.TokenBucketCapacity, "clients=%d capacity", tc.clients)
		assert.InDelta(t, tc.refill, cfg.TokenRefillRate, 1e-9, "clients=%d refill", tc.clients)
		assert.Equal(t, tc.queue, cfg.QueueCapacity, "clients=%d queue", tc.clients)
		require.NoError(t, cfg.Validate(), "clients=%d", tc.clients)
	}
}

// Asserts that the simulator really builds its cortex clients with the split configuration.
func TestCortexClientsUseTheSplitBudget(t *testing.T) {
	scn := testScenario()
	s, err := New(scn, "cortex", 1)
	require.NoError(t, err)
	require.NotEmpty(t, s.clients)
	h, ok := s.clients[0].strat.(strategy.EngineHolder)
	require.True(t, ok)
	assert.Equal(t, cortexClientConfig(scn.Clients).TokenBucketCapacity, h.Engine().Snapshot().TokenCapacity)
}
