package live

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	cfleet "github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
	"github.com/cortex-tui/cortex-tui/internal/redistest"
	"github.com/cortex-tui/cortex-tui/live/upstream"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// testBudget is the fleet's bucket in TestThreeInstancesShareOneBudget: small, with a flat
// refill, so that three instances' retries want more than it holds within a few seconds.
var testBudget = cfleet.Budget{Capacity: 40, RefillRate: 10}

// stormy is a scenario whose answers fail half the time from the start: every instance wants
// to retry, at a priority no reserve holds back.
func stormy() scenarios.Scenario {
	s := small()
	s.Name = "stormy"
	s.Duration, s.Drain = 3*time.Second, 500*time.Millisecond
	s.Classes = []scenarios.Class{{Name: "checkout", Priority: 10, Rate: 60}}
	s.Faults = []scenarios.Fault{{Kind: scenarios.FaultErrors, Value: 0.5}}
	return s
}

// instances runs three live runs of stormy, as three instances of a service, against one
// embedded target, each through its own fault proxy; with srv set their engines join the
// fleet "shop" on it. It returns their snapshots and how long they ran.
func instances(t *testing.T, tgURL *url.URL, srv *redistest.Server, g *grants) ([][]source.Snapshot, time.Duration, []*Run) {
	t.Helper()
	runs := make([]*Run, 3)
	for i := range runs {
		cfg := Config{Scenario: stormy(), Strategy: "cortex", Seed: int64(i + 1), Stack: ExternalStack(tgURL, DefaultDrainLimit)}
		if srv != nil {
			cfg.Join = &Join{
				Open: func(string, cfleet.Budget) (cfleet.Store, error) {
					return g.counted(openRedis(srv, "shop", cfleet.Options{Budget: testBudget}))
				},
				Name: "shop", Store: srv.URL(), Instance: string(rune('a' + i)),
				// A sync a second, each view fresh for 2.5 s, each sync bounded by patience: on a
				// loaded machine a sync may come late or take long, but only a hang drops an
				// engine to its local view, whose own budget the fleet's bound does not count.
				Interval: fleetInterval, Timeout: patience,
			}
		}
		r, err := New(cfg)
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close() })
		runs[i] = r
	}
	start := time.Now()
	for _, r := range runs {
		r.Start(context.Background())
	}
	snaps := make([][]source.Snapshot, len(runs))
	deadline := time.Now().Add(wait)
	for done := 0; done < len(runs) && time.Now().Before(deadline); {
		done = 0
		for i, r := range runs {
			snaps[i] = append(snaps[i], r.Advance(0)...)
			if r.Done() {
				done++
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, r := range runs {
		snaps[i] = append(snaps[i], r.Advance(0)...)
		require.True(t, r.Done(), "run %d did not end", i)
	}
	return snaps, time.Since(start), runs
}

// patience bounds the tests' dials, reads and writes to Redis and their syncs: far more than
// a loopback Redis takes on a loaded machine, so that only a hang misses it.
const patience = 5 * time.Second

// fleetInterval is the sync interval of the runs of instances.
const fleetInterval = time.Second

// onFleetBudget returns the retries of ss made while every engine of the run read the fleet's
// view, and so spent the fleet's tokens, and the others (made on the engines' own budgets): a
// tick counts as the fleet's when every engine read the fleet's view at its start and at its
// end, no sync failed during it, and the view at its start was young enough to stay fresh
// through it (a view only grows older until the next sync, which makes it fresh again). The
// first tick starts on the view of the sync the run joined with: it is the fleet's when that
// is still the only sync at its end and fresh then.
func onFleetBudget(ss []source.Snapshot, maxAge time.Duration) (fleet, local int) {
	var prev *source.FleetHealth
	for i, s := range ss {
		fh := s.Cortex.Fleet
		if i == 0 && fh != nil && fh.Syncs == 1 && fh.Failures == 0 {
			prev = &source.FleetHealth{Joint: fh.Engines, Engines: fh.Engines, Age: fh.Age - s.Dt}
		}
		if prev != nil && fh != nil && prev.Joint == prev.Engines && fh.Joint == fh.Engines &&
			fh.Failures == prev.Failures && prev.Age+s.Dt < maxAge {
			fleet += s.Counts.Retries
		} else {
			local += s.Counts.Retries
		}
		prev = fh
	}
	return fleet, local
}

// openRedis opens the store of fleet name on srv.
func openRedis(srv *redistest.Server, name string, opts cfleet.Options) (cfleet.Store, error) {
	c, err := redisstore.ParseURL(srv.URL(), nil)
	if err != nil {
		return nil, err
	}
	return redisstore.Open(c, name, opts, patience)
}

// grants counts the tokens a fleet's stores granted, net of those handed back.
type grants struct {
	mu  sync.Mutex
	net float64
}

// counted returns store with every sync's grant and return counted in g.
func (g *grants) counted(store cfleet.Store, err error) (cfleet.Store, error) {
	if err != nil {
		return nil, err
	}
	return countingStore{Store: store, g: g}, nil
}

// countingStore is a fleet store whose grants are counted.
type countingStore struct {
	cfleet.Store
	g *grants
}

func (s countingStore) Sync(ctx context.Context, inst string, r *engine.FleetReport, v *engine.FleetView) error {
	err := s.Store.Sync(ctx, inst, r, v)
	if err == nil {
		s.g.mu.Lock()
		s.g.net += v.Granted - r.Return - max(0, r.Held+v.Granted-v.Held)
		s.g.mu.Unlock()
	}
	return err
}

// Close closes the store under it.
func (s countingStore) Close() error {
	if c, ok := s.Store.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Asserts the fleet on a real Redis: three runs (three instances of a service, each with its
// own engines) against one embedded target join one fleet: each counts every instance's
// engines as members and sees the same fleet failure rate as the others within a sync interval,
// and together they retry no more than the fleet's one budget allows (capacity plus the refill
// over the run); the same three runs without the fleet, each on its own share of the
// strategy's budget, retry more than that.
func TestThreeInstancesShareOneBudget(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	tg, err := upstream.New(ScaledTarget(stormy().Service, 1, 1))
	require.NoError(t, err)
	require.NoError(t, tg.Start(context.Background()))
	t.Cleanup(func() { _ = tg.Close() })
	u, err := url.Parse(tg.URL())
	require.NoError(t, err)
	clients := stormy().Clients

	// In the fleet.
	var g grants
	snaps, took, runs := instances(t, u, srv, &g)
	maxAge := (&Join{Interval: fleetInterval}).engineConfig().MaxAge
	retries, local := 0, 0
	sawAll := 0
	for i, ss := range snaps {
		require.NotEmpty(t, ss)
		f, l := onFleetBudget(ss, maxAge)
		retries += f
		local += l
		fm := runs[i].Fleet()
		require.NotNil(t, fm)
		assert.Equal(t, "shop", fm.Name)
		for _, s := range ss {
			if fh := s.Cortex.Fleet; fh != nil && fh.Instances == 3 {
				sawAll++
				break
			}
		}
		last := ss[len(ss)-1].Cortex
		require.NotNil(t, last)
		require.NotNil(t, last.Fleet, "a run in a fleet reports its health")
		assert.Equal(t, clients, last.Fleet.Engines)
		assert.Positive(t, last.Fleet.Syncs)
		assert.Zero(t, last.Fleet.Failures, "Redis answered every sync")
	}
	assert.Equal(t, 3, sawAll, "every run counted the three instances as members, one per process")

	bound := testBudget.Capacity + testBudget.RefillRate*took.Seconds()
	g.mu.Lock()
	granted := g.net
	g.mu.Unlock()
	t.Logf("fleet: %d retries by three instances on the fleet's view in %s (%d more while a run's view was older than %s or lost: on the engines' own budgets), %.1f tokens granted net of those handed back; bound %.1f",
		retries, took.Round(time.Millisecond), local, maxAge, granted, bound)
	assert.Positive(t, granted, "the engines leased tokens")
	assert.LessOrEqual(t, granted, bound, "the fleet never hands out more than its capacity plus refill")
	assert.LessOrEqual(t, float64(retries), bound, "every retry on the fleet's view spends at least a token of the one fleet budget")

	// Alone: each run's engines on their own shares.
	alone, took2, _ := instances(t, u, nil, nil)
	retries2, refused2 := 0, 0
	for _, ss := range alone {
		for _, s := range ss {
			require.Nil(t, s.Cortex.Fleet, "no fleet, no fleet health")
		}
		c := sum(ss)
		retries2 += c.Retries
		refused2 += c.BudgetRejected
	}
	t.Logf("alone: %d retries by three instances in %s, %d refused by their budgets", retries2, took2.Round(time.Millisecond), refused2)
	// A machine so loaded that the attempts time out asks the budgets for fewer retries than
	// the fleet's bound: then no budget can tell them apart.
	if float64(retries2+refused2) <= bound {
		t.Logf("alone: %d retries asked of the budgets, not more than the bound: the three budgets are not compared with the fleet's", retries2+refused2)
		return
	}
	assert.Greater(t, float64(retries2), bound, "asked for more than the fleet's bound, three budgets allow more than its one")
}

// Asserts that all instances see the same fleet failure rate within a sync interval: the
// engines of two runs in one fleet, read at the same moment, agree on F to within what one
// interval of traffic can change.
func TestInstancesSeeTheSameF(t *testing.T) {
	noLeaks(t)
	srv := redistest.Start(t)
	tg, err := upstream.New(ScaledTarget(stormy().Service, 1, 1))
	require.NoError(t, err)
	require.NoError(t, tg.Start(context.Background()))
	t.Cleanup(func() { _ = tg.Close() })
	u, err := url.Parse(tg.URL())
	require.NoError(t, err)
	var runs []*Run
	for i := range 2 {
		cfg := Config{Scenario: stormy(), Strategy: "cortex", Seed: int64(i + 1), Stack: ExternalStack(u, DefaultDrainLimit), Duration: -1,
			Join: &Join{Open: func(_ string, b cfleet.Budget) (cfleet.Store, error) {
				return openRedis(srv, "same", cfleet.Options{Budget: b})
			}, Name: "same", Instance: string(rune('a' + i)), Timeout: patience}}
		r, err := New(cfg)
		require.NoError(t, err)
		t.Cleanup(func() { _ = r.Close() })
		r.Start(context.Background())
		runs = append(runs, r)
	}
	require.Eventually(t, func() bool {
		for _, r := range runs {
			r.mu.Lock()
			h := r.members.health()
			r.mu.Unlock()
			if h.Joint != h.Engines || h.F < 0.2 {
				return false
			}
		}
		return true
	}, wait, 50*time.Millisecond, "both runs in the fleet, seeing the errors")
	// Once the fleet's short span (the engine's FailureHorizon, 5 s) is full of outcomes, two
	// views at most two sync intervals old each differ by the outcomes of at most two
	// intervals, under a tenth of those F weighs: they move it by well under 0.1, whatever the
	// machine's speed. A view made late by a failed or late sync is older than the claim, and
	// is not read.
	time.Sleep(engine.DefaultConfig().FailureHorizon)
	deadline := time.Now().Add(wait)
	for n := 0; n < 5; {
		require.True(t, time.Now().Before(deadline), "both views within two sync intervals of now only %d times in %s", n, wait)
		var fs []float64
		fresh := true
		for _, r := range runs {
			r.mu.Lock()
			h := r.members.health()
			r.mu.Unlock()
			fs = append(fs, h.F)
			fresh = fresh && h.Joint == h.Engines && h.Age <= 2*cfleet.DefaultInterval
		}
		if !fresh {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		assert.InDelta(t, fs[0], fs[1], 0.1, "one view of the failure rate")
		n++
		time.Sleep(cfleet.DefaultInterval)
	}
}

// closingStore is an in-process store that counts how often it is closed.
type closingStore struct {
	*cfleet.Memory
	closed *int
}

func (s closingStore) Close() error { *s.closed++; return nil }

// Asserts the membership's life: the engines join as one member named INSTANCE (in the fleet
// from the start: the first sync runs before New returns), a strategy without an
// engine leaves the fleet (no members, no fleet health, the store closed), switching back
// joins again, Restart joins fresh engines, a bad Join is refused with an error naming it, and
// Close stops every sync loop (goleak) and closes the last store.
func TestJoinLifecycle(t *testing.T) {
	noLeaks(t)
	opened, closed := 0, 0
	var budgets []cfleet.Budget
	join := &Join{Name: "shop", Store: "memory", Instance: "a", Open: func(_ string, b cfleet.Budget) (cfleet.Store, error) {
		opened++
		budgets = append(budgets, b)
		m, err := cfleet.NewMemory(cfleet.Options{Budget: b}, nil)
		return closingStore{Memory: m, closed: &closed}, err
	}}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	r, err := New(Config{Scenario: small(), Strategy: "cortex", Stack: handlerStack(t, ok, newFakeFaults()), Join: join})
	require.NoError(t, err)
	members := func() *members { r.mu.Lock(); defer r.mu.Unlock(); return r.members }

	g := members()
	require.NotNil(t, g)
	require.Len(t, g.m.Engines(), small().Clients)
	assert.Equal(t, "a", g.m.Status().Instance)
	h := g.health()
	assert.Equal(t, small().Clients, h.Joint, "every engine starts in the fleet")
	assert.Equal(t, small().Clients, h.Engines)
	assert.Equal(t, 1, h.Instances, "one member for the process")
	require.Len(t, budgets, 1)
	assert.Equal(t, 500.0, budgets[0].Capacity, "the whole fleet's bucket of cortex, not a client's share")
	assert.Equal(t, &source.FleetMeta{Name: "shop", Store: "memory", Instance: "a"}, r.Fleet())

	require.NoError(t, r.Control(source.SetStrategy("naive")))
	assert.Nil(t, members(), "naive has no engine to join")
	assert.Equal(t, 1, closed)
	require.NoError(t, r.Control(source.SetStrategy("cortex")))
	require.NotNil(t, members())
	assert.Equal(t, 2, opened)

	require.NoError(t, r.Control(source.Restart()))
	require.NotNil(t, members())
	assert.NotSame(t, g, members())
	assert.Equal(t, 3, opened)
	assert.Equal(t, 2, closed)

	require.NoError(t, r.Close())
	assert.Equal(t, 3, closed, "Close closes the last store")

	bad := *join
	bad.Instance = "a b"
	_, err = New(Config{Scenario: small(), Strategy: "cortex", Stack: handlerStack(t, ok, newFakeFaults()), Join: &bad})
	assert.ErrorContains(t, err, "instance name")
	bad = *join
	bad.Open = nil
	_, err = New(Config{Scenario: small(), Strategy: "cortex", Stack: handlerStack(t, ok, newFakeFaults()), Join: &bad})
	assert.ErrorContains(t, err, "Join.Open")
}

// scriptCalls returns how many scripts Redis has run (EVALSHA and EVAL, INFO commandstats).
func scriptCalls(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	var n int64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if ok && (name == "cmdstat_evalsha" || name == "cmdstat_eval") {
			x, err := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
			require.NoError(t, err)
			n += x
		}
	}
	return n
}

// Asserts that a process is one member whatever its clients: a run of 50 clients sends Redis
// one sync per interval (five a second at the default 200 ms), not one per client, and the
// fleet counts one instance.
func TestOneSyncPerProcess(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	scn := small()
	scn.Clients = 50
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	before := scriptCalls(t, raw)
	r := newRun(t, Config{Scenario: scn, Strategy: "cortex", Stack: handlerStack(t, ok, newFakeFaults()), Duration: -1,
		Join: &Join{Open: func(_ string, b cfleet.Budget) (cfleet.Store, error) {
			return openRedis(srv, "one", cfleet.Options{Budget: b})
		}, Name: "one", Instance: "a"}})
	r.Start(context.Background())
	start := time.Now()
	time.Sleep(2 * time.Second)
	r.mu.Lock()
	h := r.members.health()
	r.mu.Unlock()
	calls := scriptCalls(t, raw) - before
	perSecond := float64(calls) / time.Since(start).Seconds()
	t.Logf("50 clients: %d syncs in %s, %.1f a second; %d members", calls, time.Since(start).Round(time.Millisecond), perSecond, h.Instances)
	assert.Equal(t, 1, h.Instances, "one member for the process")
	assert.Equal(t, 50, h.Engines)
	assert.LessOrEqual(t, perSecond, 10.0, "at most 10 Redis commands a second for the process")
	assert.GreaterOrEqual(t, perSecond, 2.0, "it syncs")
}
