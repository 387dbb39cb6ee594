package cortexgrpc_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// TestConfigFromFile asserts that an interceptor built from a cortex.toml file runs its engine
// configuration, and that a bad file is refused with its problems.
func TestConfigFromFile(t *testing.T) {
	want := engine.DefaultConfig()
	want.TokenBucketCapacity = 77
	want.CircuitCooldown = 1500 * time.Millisecond
	want.Weights = engine.Weights{F: 0.5, L: 0.1, Q: 0.1, B: 0.1, C: 0.2}
	path := filepath.Join(t.TempDir(), "cortex.toml")
	require.NoError(t, os.WriteFile(path, engineconf.Format(want, ""), 0o600))
	cfg, err := cortexgrpc.ConfigFromFile(path)
	require.NoError(t, err)
	ic, err := cortexgrpc.New(cfg)
	require.NoError(t, err)
	got := ic.Strategy().(strategy.EngineHolder).Engine().Config()
	assert.Equal(t, want.TokenBucketCapacity, got.TokenBucketCapacity)
	assert.Equal(t, want.CircuitCooldown, got.CircuitCooldown)
	assert.InDelta(t, 0.5, got.Weights.F, 1e-12)

	bad := filepath.Join(t.TempDir(), "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("[breaker]\ncooldwn = \"1s\"\n"), 0o600))
	_, err = cortexgrpc.ConfigFromFile(bad)
	require.ErrorContains(t, err, "cortexgrpc: "+bad+":2: breaker.cooldwn: unknown key (did you mean \"cooldown\"?)")
}
