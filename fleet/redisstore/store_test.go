package redisstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
	"github.com/cortex-tui/cortex-tui/fleet/storetest"
	"github.com/cortex-tui/cortex-tui/internal/redistest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

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
	st, err := redisstore.Open(c, name, opts, time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestRedisSuite runs the store suite against a real redis-server: killed and restarted
// empty for the outage case, put to sleep (DEBUG SLEEP) for the stall case.
func TestRedisSuite(t *testing.T) {
	srv := startRedis(t)
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T, name string, opts fleet.Options) engine.FleetStore {
			return srv.open(t, name, opts)
		},
		Now:     time.Now,
		Wait:    time.Sleep,
		Kill:    func(*testing.T) { srv.Stop() },
		Restart: func(t *testing.T) { srv.Restart(t) },
		Stall: func(t *testing.T) func() {
			c := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1, ReadTimeout: 5 * time.Second})
			var wg sync.WaitGroup
			wg.Go(func() {
				defer c.Close()
				assert.NoError(t, c.Do(context.Background(), "DEBUG", "SLEEP", "1.5").Err())
			})
			// DEBUG SLEEP blocks the whole server: the stall is on once a PING from another
			// client gets no answer within 100 ms.
			p := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1, ReadTimeout: 100 * time.Millisecond})
			defer p.Close()
			for range 100 {
				if p.Ping(context.Background()).Err() != nil {
					break
				}
			}
			return wg.Wait
		},
	})
}

// Asserts the key names: a fleet's keys start with its prefix, and only its keys.
func TestKeysArePrefixed(t *testing.T) {
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
	srv := startRedis(t)
	st := srv.open(t, "f", fleet.Options{})
	require.NoError(t, st.Check(context.Background()))
	srv.Stop()
	assert.ErrorIs(t, st.Check(context.Background()), redisstore.ErrUnreachable)
}
