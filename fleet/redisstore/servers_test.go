package redisstore_test

import (
	"context"
	"slices"
	"sync"
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
)

// patience bounds each dial, read and write of the tests' stores: far more than a loopback
// Redis takes on a loaded machine, so that only a hang misses it. A case that makes Redis hang
// bounds its syncs itself (fleet.MemberConfig.Timeout).
const patience = 5 * time.Second

// openURL returns the store of fleet name on the Redis at url, closed when the test ends.
func openURL(t testing.TB, url, name string, opts fleet.Options) *redisstore.Store {
	t.Helper()
	c, err := redisstore.ParseURL(url, func(string) string { return "" })
	require.NoError(t, err)
	st, err := redisstore.Open(c, name, opts, patience)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// suiteOn runs the store suite against the Redis at url, with kill, restart and stall.
func suiteOn(t *testing.T, url string, kill func(), restart func(t *testing.T), stall func() func()) {
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T, name string, opts fleet.Options) fleet.Store {
			st := openURL(t, url, name, opts)
			require.NoError(t, st.Check(context.Background()))
			return st
		},
		Clock:   engine.WallClock{},
		Wait:    time.Sleep,
		Kill:    func(*testing.T) { kill() },
		Restart: restart,
		Stall:   func(*testing.T) func() { return stall() },
	})
}

// TestClusterSuite runs the store suite against a 3-master Redis Cluster on loopback (killed and
// restarted empty, every node paused for the stall), and checks that a fleet's keys all live on
// one node: its hash slot's.
func TestClusterSuite(t *testing.T) {
	t.Parallel()
	c := redistest.StartCluster(t)
	suiteOn(t, c.URL(), c.Stop, func(t *testing.T) { c.Restart(t) }, func() func() { return c.Stall(t, 1500*time.Millisecond) })

	st := openURL(t, c.URL(), "slot", fleet.Options{Budget: fleet.Budget{Capacity: 5}})
	r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Token: 1, Want: 1}
	var v engine.FleetView
	require.NoError(t, st.Sync(context.Background(), "a", &r, &v))
	holders := 0
	for _, n := range c.Nodes {
		cl := redis.NewClient(&redis.Options{Addr: n.Addr()})
		keys, err := cl.Do(context.Background(), "KEYS", redisstore.Prefix("slot")+"*").StringSlice()
		_ = cl.Close()
		require.NoError(t, err)
		if len(keys) > 0 {
			holders++
			assert.Len(t, keys, 3, "state, seen and members together")
		}
	}
	assert.Equal(t, 1, holders, "one node holds the fleet")
}

// TestSentinelSuite runs the store suite against a master watched by two Sentinels (master and
// replica killed and restarted empty, the master paused for the stall).
func TestSentinelSuite(t *testing.T) {
	t.Parallel()
	s := redistest.StartSentinel(t)
	suiteOn(t, s.URL(), s.Stop, func(t *testing.T) { s.Restart(t) }, func() func() { return s.Master().Stall(t, 1500*time.Millisecond) })
}

// Asserts that a Sentinel failover during a run costs at most one interval of LOCAL: members
// syncing every 200 ms through the Sentinels while the replica is promoted fail at most one
// sync each in a row, and every one is back in the fleet, on the new master, right after.
// Each sync is bounded by patience, not by the interval: on a loaded machine under -race a
// sync to a healthy loopback Redis can take longer than 200 ms, and such a failure would be
// the machine's, not the failover's. The members stop between two syncs (a sync cut by the
// test's end would leave its member LOCAL), and the test waits for syncs, not for a time.
func TestSentinelFailover(t *testing.T) {
	t.Parallel()
	s := redistest.StartSentinel(t)
	st := openURL(t, s.URL(), "failover", fleet.Options{Budget: fleet.Budget{Capacity: 100, RefillRate: 10}})
	var ms []*fleet.Member
	for i := range 3 {
		cfg := engine.DefaultConfig()
		cfg.Seed = int64(i + 1)
		cfg.Fleet = engine.DefaultFleetConfig()
		e, err := engine.New(cfg)
		require.NoError(t, err)
		m, err := fleet.NewMember([]*engine.Engine{e}, st, fleet.MemberConfig{Instance: string(rune('a' + i)), Timeout: patience})
		require.NoError(t, err)
		ms = append(ms, m)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	runs := make([]int, len(ms)) // failed syncs in a row, now
	worst := make([]int, len(ms))
	ok := make([]int, len(ms)) // successful syncs since the last reset
	var failed []string
	for i, m := range ms {
		wg.Go(func() {
			tick := time.NewTicker(fleet.DefaultInterval)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				err := m.Sync(context.Background())
				mu.Lock()
				if err != nil {
					runs[i]++
					worst[i] = max(worst[i], runs[i])
					failed = append(failed, err.Error())
				} else {
					runs[i] = 0
					ok[i]++
				}
				mu.Unlock()
			}
		})
	}
	// each waits until every member has synced n times since the last call (at most a minute:
	// only a member that never syncs misses it).
	each := func(n int, what string) {
		t.Helper()
		mu.Lock()
		clear(ok)
		mu.Unlock()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			least := slices.Min(ok)
			mu.Unlock()
			if least >= n {
				return
			}
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("%s: a member did not sync %d times in a minute; errors %q", what, n, failed)
			}
		}
	}
	each(3, "before the failover")
	old := s.Master().Addr()
	s.Failover(t)
	each(5, "after the failover")
	close(stop)
	wg.Wait()
	assert.NotEqual(t, old, s.Master().Addr())
	t.Logf("failover: failed syncs in a row per member %v; errors %q", worst, failed)
	for i, m := range ms {
		assert.LessOrEqual(t, worst[i], 1, "member %d: at most one interval of LOCAL", i)
		assert.True(t, m.Status().Healthy, "member %d back in the fleet", i)
		assert.Equal(t, engine.FleetJoint, m.Engine().Snapshot().Fleet)
	}
}

// TestTLSSuite runs the store suite against a TLS-only redis-server whose certificate a CA
// generated by the test signed (rediss://...?ca=FILE).
func TestTLSSuite(t *testing.T) {
	t.Parallel()
	srv, files := redistest.StartTLS(t)
	url := srv.URL() + "?ca=" + files.CA
	suiteOn(t, url, srv.Stop, func(t *testing.T) { srv.Restart(t) }, func() func() { return srv.Stall(t, 1500*time.Millisecond) })
}

// Asserts that TLS mistakes are named: redis:// to a TLS port, rediss:// to a plain one, and a
// certificate whose CA is not given.
func TestTLSMistakes(t *testing.T) {
	t.Parallel()
	srv, _ := redistest.StartTLS(t)
	plain := startRedis(t)
	for _, c := range []struct{ url, want string }{
		{"redis://" + srv.Addr(), "expects TLS (redis:// to a TLS port): use rediss://"},
		{"rediss://" + plain.addr(), "speaks plain Redis, not TLS"},
		{"rediss://" + srv.Addr(), "TLS certificate not trusted"},
	} {
		st := openURL(t, c.url, "tls", fleet.Options{})
		err := st.Check(context.Background())
		require.Error(t, err, c.url)
		assert.NotErrorIs(t, err, redisstore.ErrUnreachable, c.url)
		assert.Contains(t, err.Error(), c.want, c.url)
	}
}

// aclArgs start a server whose default user is off and whose user alice may use the fleet's
// keys only.
var aclArgs = []string{"--user", "default", "off", "--user", "alice", "on", ">alice-pw", "~cortex:*", "&*", "+@all"}

// TestACLSuite runs the store suite against a redis-server where only an ACL user (alice, her
// password in the URL) may work, on the fleet's keys only.
func TestACLSuite(t *testing.T) {
	t.Parallel()
	srv := redistest.StartWith(t, redistest.Options{Args: aclArgs, Username: "alice", Password: "alice-pw"})
	url := "redis://alice:alice-pw@" + srv.Addr()
	suiteOn(t, url, srv.Stop, func(t *testing.T) { srv.Restart(t) }, func() func() { return srv.Stall(t, 1500*time.Millisecond) })
}

// Asserts that a wrong ACL password is a clear error at the start (WRONGPASS, not "does not
// answer"), that a sync with it fails cleanly (no panic) and leaves the engine LOCAL, and that a
// user without the fleet's keys is told NOPERM; no message holds the password.
func TestACLWrongPassword(t *testing.T) {
	t.Parallel()
	srv := redistest.StartWith(t, redistest.Options{Args: append(aclArgs, "--user", "bob", "on", ">bob-pw", "~other:*", "+@all"),
		Username: "alice", Password: "alice-pw"})
	for _, c := range []struct{ url, secret, want string }{
		{"redis://alice:not-alice-pw@" + srv.Addr(), "not-alice-pw", "WRONGPASS"},
		{"redis://bob:bob-pw@" + srv.Addr(), "bob-pw", "NOPERM"},
	} {
		st := openURL(t, c.url, "acl", fleet.Options{Budget: fleet.Budget{Capacity: 10}})
		err := st.Check(context.Background())
		require.Error(t, err)
		assert.NotErrorIs(t, err, redisstore.ErrUnreachable)
		assert.Contains(t, err.Error(), c.want)
		assert.NotContains(t, err.Error(), c.secret)
		e, err := engine.New(func() engine.Config { c := engine.DefaultConfig(); c.Fleet = engine.DefaultFleetConfig(); return c }())
		require.NoError(t, err)
		m, err := fleet.NewMember([]*engine.Engine{e}, st, fleet.MemberConfig{Instance: "a", Timeout: time.Second})
		require.NoError(t, err)
		require.NotPanics(t, func() { err = m.Sync(context.Background()) })
		require.Error(t, err)
		assert.NotContains(t, err.Error(), c.secret)
		assert.Equal(t, engine.FleetLocal, e.Snapshot().Fleet)
	}
}
