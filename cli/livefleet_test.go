package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
	"github.com/cortex-tui/cortex-tui/internal/redistest"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// secret is the password of the Redis TestLiveFleetMistakes starts: no message may hold it.
const secret = "hunter2-s3cret"

// Asserts that a --fleet URL or credentials that cannot work exit 2 at once with the reason
// named (password missing or wrong, database out of range, TLS to a plain server), never
// holding the password; that the password may come from $CORTEX_FLEET_PASSWORD; and that only
// a Redis that does not answer starts the run LOCAL.
func TestLiveFleetMistakes(t *testing.T) {
	srv := redistest.StartWith(t, redistest.Options{Args: []string{"--requirepass", secret}, Password: secret})
	path := writeScenario(t, liveScenario)
	addr := srv.Addr()
	for _, c := range []struct {
		name, url, env string
		code           int
		want           string
	}{
		{"no password", "redis://" + addr, "", 2, "asks for a password (NOAUTH)"},
		{"wrong password", "redis://:not-" + secret + "@" + addr, "", 2, "refused the user or the password (WRONGPASS)"},
		{"wrong user", "redis://bob:" + secret + "@" + addr, "", 2, "WRONGPASS"},
		{"database out of range", "redis://:" + secret + "@" + addr + "/99", "", 2, "has no database 99"},
		{"TLS to a plain server", "rediss://:" + secret + "@" + addr, "", 2, "speaks plain Redis, not TLS"},
		{"password from the environment", "redis://" + addr + "/1", secret, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(redisstore.PasswordEnv, c.env)
			start := time.Now()
			code, _, errOut := execute("live", "--scenario-file", path, "--headless", "--duration", "1s", "--format", "json",
				"--fleet", c.url, "--instance", "a")
			assert.Equal(t, c.code, code, errOut)
			assert.Contains(t, errOut, c.want)
			assert.NotContains(t, errOut, secret, "the password is never shown")
			if c.code == 2 {
				assert.Less(t, time.Since(start), 5*time.Second, "a mistake is said at the start, not after the run")
			}
		})
	}
}

// fleetOpts are the options of the fleet a live run of strategy name joins (the cli's).
func fleetOpts(t *testing.T, name string) (fleet.Options, engine.Config) {
	t.Helper()
	cfg, ok := strategy.FleetConfig(name)
	require.True(t, ok)
	return fleet.Options{Budget: fleet.BudgetOf(cfg), Config: name}, cfg
}

// member syncs instance into the fleet tiny-live of srv as a run of strategy name would, with
// token, and returns its store.
func member(t *testing.T, srv *redistest.Server, name, instance string, token uint64) {
	t.Helper()
	c, err := redisstore.ParseURL(srv.URL(), nil)
	require.NoError(t, err)
	opts, cfg := fleetOpts(t, name)
	st, err := redisstore.Open(c, "tiny-live", opts, time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	r := engine.FleetReport{Window: cfg.Window, Horizon: cfg.FailureHorizon, Token: token}
	var v engine.FleetView
	require.NoError(t, st.Sync(context.Background(), instance, &r, &v))
}

// Asserts that a run is refused at the start (exit 2, the reason named) when the fleet's members
// run another configuration (cortex-article in a fleet of cortex) or another process syncs
// under its instance name; and that the same runs start once those members have gone.
func TestLiveFleetRefusals(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	path := writeScenario(t, liveScenario)
	run := func(args ...string) (int, string) {
		code, _, errOut := execute(append([]string{"live", "--scenario-file", path, "--headless", "--duration", "1s",
			"--format", "json", "--fleet", srv.URL()}, args...)...)
		return code, errOut
	}
	member(t, srv, "cortex", "x", 7)
	code, errOut := run("--instance", "a", "--strategy", "cortex-article")
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "the fleet's members run another configuration")
	assert.Contains(t, errOut, `"cortex"`)

	member(t, srv, "cortex", "a", 8)
	code, errOut = run("--instance", "a")
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "another process is a member under the same instance name")

	code, errOut = run("--instance", "b")
	assert.Equal(t, 0, code, errOut, "another name in the same fleet joins")
}

// Asserts a clean end: once a run in a fleet has ended, its instance is no longer a member and
// its lease is back in the bucket (nothing leased), not left to expire.
func TestLiveFleetLeaves(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	path := writeScenario(t, liveScenario)
	code, _, errOut := execute("live", "--scenario-file", path, "--headless", "--duration", "1s", "--format", "json",
		"--fleet", srv.URL(), "--instance", "a")
	require.Equal(t, 0, code, errOut)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	ctx := context.Background()
	keys := redisstore.Keys("tiny-live")
	n, err := c.ZCard(ctx, keys[1]).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "no member left")
	out, err := c.HGet(ctx, keys[0], "out").Result()
	require.NoError(t, err)
	assert.Equal(t, "0", strings.TrimSpace(out), "no token leased")
	tokens, err := c.HGet(ctx, keys[0], "tokens").Float64()
	require.NoError(t, err)
	assert.Positive(t, tokens)
}

// Asserts that --budget shared without --fleet runs: the run's clients share one in-process
// budget, and the output is the run's rows as usual.
func TestLiveBudgetShared(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, liveScenario)
	code, out, errOut := execute("live", "--scenario-file", path, "--headless", "--duration", "1s", "--format", "json", "--budget", "shared")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"summary"`)
}
