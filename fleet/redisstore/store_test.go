package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
	"github.com/cortex-tui/cortex-tui/fleet/storetest"
	"github.com/cortex-tui/cortex-tui/internal/redistest"
	"github.com/cortex-tui/cortex-tui/internal/waittest"
)

// TestMain checks that no goroutine outlives the tests. Every test that starts servers of its
// own runs in parallel with the others (t.Parallel): they mostly wait for Redis, for leases to
// expire and for failovers (85 s of wall time one after another under -race, 3 s of CPU).
// TestGarbageCannotSteer and TestLyingInstance are not parallel, so they run alone, before the
// parallel ones: they bound how long their honest members take to be FLEET again. Waiting costs
// no core, so all of them run at once unless -parallel says otherwise (its default, GOMAXPROCS,
// let two run at a time on two cores: 52 s): internal/waittest.
func TestMain(m *testing.M) { waittest.Main(m, 0) }

// redisServer is a redis-server this test started (internal/redistest).
type redisServer struct{ *redistest.Server }

// startRedis starts a redis-server on a free loopback port and stops it when the test ends.
func startRedis(t testing.TB) redisServer { return redisServer{redistest.Start(t)} }

func (s redisServer) addr() string { return s.Addr() }
func (s redisServer) url() string  { return s.URL() }

// open returns the store of fleet name on s, closed when the test ends.
func (s redisServer) open(t testing.TB, name string, opts fleet.Options) *redisstore.Store {
	t.Helper()
	c, err := redisstore.ParseURL(s.url(), nil)
	require.NoError(t, err)
	st, err := redisstore.Open(c, name, opts, patience)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestRedisSuite runs the store suite against a real redis-server: killed and restarted
// empty for the outage case, paused (CLIENT PAUSE) for the stall case.
func TestRedisSuite(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T, name string, opts fleet.Options) fleet.Store {
			return srv.open(t, name, opts)
		},
		Clock:   engine.WallClock{},
		Wait:    time.Sleep,
		Kill:    func(*testing.T) { srv.Stop() },
		Restart: func(t *testing.T) { srv.Restart(t) },
		Stall:   func(t *testing.T) func() { return srv.Stall(t, 1500*time.Millisecond) },
	})
}

// Asserts the key names: a fleet's keys start with its prefix, and only its keys.
func TestKeysArePrefixed(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	st := srv.open(t, "shop", fleet.Options{Budget: fleet.Budget{Capacity: 5}})
	r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Counts: engine.FleetCounts{Successes: 1}, Want: 1}
	var v engine.FleetView
	require.NoError(t, st.Sync(context.Background(), "a", &r, &v))
	c := redis.NewClient(&redis.Options{Addr: srv.addr()})
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	require.NoError(t, err)
	require.NotEmpty(t, keys)
	for _, k := range keys {
		assert.Regexp(t, `^cortex:\{shop\}:(state|seen|members)$`, k)
	}
	ttl, err := c.TTL(context.Background(), keys[0]).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, time.Duration(0), "every key expires")
}

// Asserts that bad input is refused with an error naming it, before any command is sent.
func TestBadInput(t *testing.T) {
	t.Parallel()
	c, err := redisstore.ParseURL("redis://127.0.0.1:1", nil)
	require.NoError(t, err)
	_, err = redisstore.Open(c, "bad name", fleet.Options{}, time.Second)
	assert.ErrorContains(t, err, "fleet name")
	_, err = redisstore.Open(c, "f", fleet.Options{Budget: fleet.Budget{Capacity: -1}}, time.Second)
	assert.ErrorContains(t, err, "Budget.Capacity")
	st, err := redisstore.Open(c, "f", fleet.Options{}, time.Second)
	require.NoError(t, err)
	defer st.Close()
	var v engine.FleetView
	assert.ErrorContains(t, st.Sync(context.Background(), "a b", &engine.FleetReport{}, &v), "instance name")
	assert.ErrorContains(t, st.Sync(context.Background(), "a", &engine.FleetReport{Want: -1}, &v), "Want")
	assert.Error(t, st.Sync(context.Background(), "a", &engine.FleetReport{}, &v), "nothing listens on port 1")
	err = st.Check(context.Background())
	assert.ErrorIs(t, err, redisstore.ErrUnreachable, "nothing listens on port 1: unreachable, not a mistake")
}

// Asserts that Check answers nil from a running Redis and an unreachable error once it is
// stopped.
func TestCheck(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	st := srv.open(t, "f", fleet.Options{})
	require.NoError(t, st.Check(context.Background()))
	srv.Stop()
	assert.ErrorIs(t, st.Check(context.Background()), redisstore.ErrUnreachable)
}

// commands returns the calls Redis has counted for every command but INFO (INFO commandstats):
// a script's own commands included.
func commands(t testing.TB, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	var all int64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok || name == "cmdstat_info" {
			continue
		}
		n, err := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
		require.NoError(t, err)
		all += n
	}
	return all
}

// Asserts that a sync runs at most 20 commands inside Redis whatever happens in it: the seconds
// advancing, a silent member's lease reclaimed, the running sums recomputed after a bad write,
// and the leases reconciled (every 8 s); and about a dozen in the common case.
func TestCommandsPerSync(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	st := srv.open(t, "cmds", fleet.Options{Budget: fleet.Budget{Capacity: 100, RefillRate: 10}, Expiry: 300 * time.Millisecond})
	raw := redis.NewClient(&redis.Options{Addr: srv.addr()})
	defer raw.Close()
	ctx := context.Background()
	sync := func(inst string) int64 {
		r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Token: 1, Want: 2,
			Counts: engine.FleetCounts{Successes: 9, Failures: 1}}
		r.Latency.Counts[20], r.Latency.Sums[20] = 10, 10*2_000_000
		var v engine.FleetView
		before := commands(t, raw)
		require.NoError(t, st.Sync(ctx, inst, &r, &v))
		return commands(t, raw) - before - 1 // the script's own commands, the EVALSHA left out
	}
	var counts []int64
	for i := range 10 {
		counts = append(counts, sync(fmt.Sprintf("quiet-%d", i))) // members that then go silent
	}
	tm, err := raw.Time(ctx).Result()
	require.NoError(t, err)
	// Run until Redis's clock has crossed a multiple of 8 s (the reconcile) and two more seconds.
	until := tm.Truncate(8 * time.Second).Add(8*time.Second + 2*time.Second)
	for n := 0; ; n++ {
		if n == 30 {
			raw.HSet(ctx, redisstore.Keys("cmds")[0], "sum", "garbage")
		}
		counts = append(counts, sync("busy"))
		if now, _ := raw.Time(ctx).Result(); now.After(until) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	slices.Sort(counts)
	t.Logf("commands inside Redis per sync over %d syncs: median %d, max %d", len(counts), counts[len(counts)/2], counts[len(counts)-1])
	assert.LessOrEqual(t, counts[len(counts)-1], int64(20), "at most 20 commands in one sync")
	assert.LessOrEqual(t, counts[len(counts)/2], int64(12))
}
