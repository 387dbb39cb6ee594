package redisstore_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
)

// honest is a fleet of two honest instances syncing every 50 ms on real time, each engine
// recording outcomes as it goes: the instances whose decisions garbage and lies must not steer.
type honest struct {
	t       *testing.T
	members []*fleet.Member
	stop    context.CancelFunc
	wg      sync.WaitGroup

	mu       sync.Mutex
	failures int           // failed syncs since the last mark
	outside  []string      // snapshots with F or L outside the envelope of the engine's own
	local    []time.Time   // when an engine was seen LOCAL since the last mark
	marked   time.Time     // the last mark
	worst    time.Duration // the longest time from a mark to every engine FLEET with no failure after
}

// startHonest starts two honest members of fleet name on st (failing a tenth of their
// attempts), checks every engine's signals after every sync, and stops them at the test's end.
func startHonest(t *testing.T, st *redisstore.Store) *honest {
	h := &honest{t: t, marked: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	for i := range 2 {
		cfg := engine.DefaultConfig()
		cfg.Seed = int64(i + 1)
		cfg.BaselineLatency = 20 * time.Millisecond
		cfg.Fleet = engine.DefaultFleetConfig()
		e, err := engine.New(cfg)
		require.NoError(t, err)
		m, err := fleet.NewMember([]*engine.Engine{e}, st, fleet.MemberConfig{Instance: fmt.Sprintf("honest-%d", i), Timeout: patience})
		require.NoError(t, err)
		h.members = append(h.members, m)
		h.wg.Go(func() {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for n := 0; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				for j := range 5 {
					if (n+j)%10 == 0 {
						e.RecordFailure(30 * time.Millisecond)
					} else {
						e.RecordSuccess(20 * time.Millisecond)
					}
				}
				e.ShouldRetry(n%11, 0, true)
				err := m.Sync(ctx)
				h.observe(e, err)
			}
		})
	}
	t.Cleanup(h.close)
	return h
}

// observe checks an engine after a sync.
func (h *honest) observe(e *engine.Engine, err error) {
	s, fs := e.Snapshot(), e.FleetStatus()
	env := engine.DefaultEnvelope + 1e-9
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.failures++
	}
	if s.Fleet != engine.FleetJoint {
		h.local = append(h.local, time.Now())
		return
	}
	if math.Abs(s.Signals.F-fs.Local.F) > env || math.Abs(s.Signals.L-fs.Local.L) > env ||
		math.IsNaN(s.Signals.B) || s.Signals.B < 0 || s.Signals.B > 1 {
		h.outside = append(h.outside, fmt.Sprintf("F %.3f (own %.3f), L %.3f (own %.3f), B %.3f", s.Signals.F, fs.Local.F, s.Signals.L, fs.Local.L, s.Signals.B))
	}
}

// mark starts a new count of failures.
func (h *honest) mark() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failures, h.local, h.marked = 0, nil, time.Now()
}

// settled waits (up to 2 s) until both engines are FLEET after a mark, and returns how long it
// took and the failed syncs since the mark.
func (h *honest) settled() (time.Duration, int) {
	deadline := h.marked.Add(2 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		all := true
		for _, m := range h.members {
			if m.Engine().Snapshot().Fleet != engine.FleetJoint || !m.Status().Healthy {
				all = false
			}
		}
		if all && time.Since(h.marked) > 200*time.Millisecond {
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var took time.Duration // until the last LOCAL seen since the mark
	if len(h.local) > 0 {
		took = h.local[len(h.local)-1].Sub(h.marked)
	}
	h.worst = max(h.worst, took)
	return took, h.failures
}

// close stops the members and leaves the fleet.
func (h *honest) close() {
	h.stop()
	h.wg.Wait()
	for _, m := range h.members {
		_ = m.Leave(context.Background())
	}
}

// msgpack encodes numbers as a MessagePack array of float64s, as a second of the script's window
// is stored (fewer than 16 of them).
func msgpack(xs ...float64) string {
	b := []byte{0x90 | byte(len(xs))}
	for _, x := range xs {
		b = append(b, 0xcb)
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(x))
	}
	return string(b)
}

// Asserts that the store cannot be steered by what is written into its keys: for each kind
// of garbage written mid-run (the values of issue 21: free tokens of -1e308, +Inf or 1e308, a
// refill time of 1e300, a credit of "abc", a second's failures of 9e18, a key of the wrong type,
// a ghost member in the future, broken running sums, a second in the future, a lease that is
// not a number), the next sync repairs it (counted in FleetView.Repaired), no sync fails, both
// honest engines stay FLEET (again within 2 s at worst), their F and L never leave the envelope
// of their own, B stays in [0, 1], and the tokens in circulation never exceed the capacity.
func TestGarbageCannotSteer(t *testing.T) {
	srv := startRedis(t)
	const capacity = 500.0
	st := srv.open(t, "garbage", fleet.Options{Budget: fleet.Budget{Capacity: capacity, RefillRate: 100, RefillPerSuccess: 1}})
	raw := redis.NewClient(&redis.Options{Addr: srv.addr()})
	t.Cleanup(func() { _ = raw.Close() })
	ctx := context.Background()
	keys := redisstore.Keys("garbage")
	state, seen, members := keys[0], keys[1], keys[2]
	h := startHonest(t, st)
	time.Sleep(300 * time.Millisecond) // both members in the fleet, the window filling
	cur := func() string { v, err := raw.HGet(ctx, state, "cur").Result(); require.NoError(t, err); return v }
	// replace deletes key and writes it anew in one transaction: a sync between the two would
	// make the key again, of the right type, and the write (an LPUSH onto it) would fail.
	replace := func(key string, write func(redis.Pipeliner)) {
		_, err := raw.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Del(ctx, key); write(p); return nil })
		require.NoError(t, err)
	}
	view := func() engine.FleetView {
		var v engine.FleetView
		r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Token: 9}
		require.NoError(t, st.Sync(ctx, "probe", &r, &v))
		return v
	}
	for _, c := range []struct {
		name  string
		write func()
		next  bool // read at the next second only
	}{
		{"tokens -1e308", func() { raw.HSet(ctx, state, "tokens", "-1e308") }, false},
		{"tokens +Inf", func() { raw.HSet(ctx, state, "tokens", "inf") }, false},
		{"tokens 1e308", func() { raw.HSet(ctx, state, "tokens", "1e308") }, false},
		{"tokens NaN", func() { raw.HSet(ctx, state, "tokens", "nan") }, false},
		{"last 1e300", func() { raw.HSet(ctx, state, "last", "1e300") }, false},
		{"earned abc", func() { raw.HSet(ctx, state, "earned", "abc") }, false},
		{"out -5", func() { raw.HSet(ctx, state, "out", "-5") }, false},
		{"sum broken", func() { raw.HSet(ctx, state, "sum", "garbage|1:2") }, false},
		{"lsum short", func() { raw.HSet(ctx, state, "lsum", "1 2") }, false},
		{"cur in the future", func() { raw.HSet(ctx, state, "cur", "9e18") }, false},
		{"a second's failures 9e18", func() {
			// Into the current second and the next: a sync reads the second it is in, so the
			// garbage is read whether or not a sync comes before the second turns (written
			// into the current second alone, it was read only when it left the short span, 5 s
			// later, if the second turned between reading cur and the write).
			n, _ := strconv.ParseInt(cur(), 10, 64)
			for _, x := range []int64{n, n + 1} {
				raw.HSet(ctx, state, "r"+strconv.FormatInt(x%60, 10), msgpack(float64(x), 0, 9e18, 0, 0))
			}
		}, false},
		{"a second of text", func() { // the next seconds the short span drops
			n, _ := strconv.ParseInt(cur(), 10, 64)
			for d := int64(2); d <= 4; d++ {
				raw.HSet(ctx, state, "r"+strconv.FormatInt((n-d)%60, 10), strconv.FormatInt(n-d, 10)+" 1 2 3 4")
			}
		}, true},
		{"seconds not numbers", func() { // the next seconds the short span drops
			n, _ := strconv.ParseInt(cur(), 10, 64)
			for d := int64(2); d <= 4; d++ {
				raw.HSet(ctx, state, "r"+strconv.FormatInt((n-d)%60, 10), "x y z")
			}
		}, true},
		{"state of the wrong type", func() { replace(state, func(p redis.Pipeliner) { p.Set(ctx, state, "oops", 0) }) }, false},
		{"seen of the wrong type", func() { replace(seen, func(p redis.Pipeliner) { p.LPush(ctx, seen, "x") }) }, false},
		{"members of the wrong type", func() { replace(members, func(p redis.Pipeliner) { p.Set(ctx, members, "1", 0) }) }, false},
		{"a ghost member in the future", func() {
			raw.ZAdd(ctx, seen, redis.Z{Score: 1e18, Member: "ghost"})
			raw.HSet(ctx, members, "ghost", "400 1")
		}, false},
		{"a lease not a number", func() { raw.HSet(ctx, members, "honest-0", "abc def") }, false},
		{"the repair count", func() { raw.HSet(ctx, state, "bad", "-zzz") }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := view().Repaired
			h.mark()
			c.write()
			if c.next {
				time.Sleep(1100 * time.Millisecond)
			}
			took, failures := h.settled()
			v := view()
			assert.Zero(t, failures, "no sync failed")
			assert.LessOrEqual(t, took, 2*time.Second, "FLEET again within 2 s")
			if c.name != "the repair count" && c.name != "state of the wrong type" {
				assert.Greater(t, v.Repaired, before, "the repair is counted")
			}
			assert.Positive(t, v.Repaired, "the count survives")
			for _, x := range []float64{v.Tokens, v.Leased, v.Granted, v.Held} {
				assert.False(t, math.IsNaN(x) || math.IsInf(x, 0) || x < 0, "value %v", x)
			}
			assert.LessOrEqual(t, v.Tokens+v.Leased, capacity+1e-6, "never more tokens than the capacity")
			assert.LessOrEqual(t, v.Short.Failures, uint64(1e7), "no second's garbage counted")
		})
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Empty(t, h.outside, "decisions outside the envelope of the engines' own signals")
	t.Logf("worst time to FLEET again after a bad write: %s", h.worst)
}

// Asserts bounded influence against an instance that lies at every sync (a billion failures
// and timeouts, slow ones, a lease of a million tokens held and handed back, all the capacity
// wanted): the honest engines' F and L never leave the envelope of their own, they stay FLEET,
// the fleet never has more tokens in circulation than its capacity, and the liar never holds
// more than it was granted.
func TestLyingInstance(t *testing.T) {
	srv := startRedis(t)
	const capacity = 200.0
	st := srv.open(t, "lies", fleet.Options{Budget: fleet.Budget{Capacity: capacity, RefillRate: 50}, MaxRate: 1000})
	h := startHonest(t, st)
	time.Sleep(300 * time.Millisecond)
	ctx := context.Background()
	h.mark()
	var v engine.FleetView
	maxHeld, maxCirc := 0.0, 0.0
	for range 30 { // 1.5 s of lies
		r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Token: 666,
			Counts: engine.FleetCounts{Failures: 1e9, Timeouts: 1e9}, Held: 1e6, Return: 1e6, Spent: 1e6, Want: capacity, Earned: 1e9}
		r.Latency.Counts[70], r.Latency.Sums[70] = 1e9, math.MaxUint64
		require.NoError(t, st.Sync(ctx, "liar", &r, &v))
		maxHeld = max(maxHeld, v.Held)
		maxCirc = max(maxCirc, v.Tokens+v.Leased)
		time.Sleep(50 * time.Millisecond)
	}
	_, failures := h.settled()
	assert.Zero(t, failures)
	assert.LessOrEqual(t, maxCirc, capacity+1e-6, "never more tokens in circulation than the capacity")
	assert.LessOrEqual(t, maxHeld, capacity+1e-6, "the liar holds at most what it was granted")
	fleetF := h.members[0].Engine().FleetStatus().F
	t.Logf("fleet F while the liar reports: %.3f (its failures counted at most 1,000 a second)", fleetF)
	r := engine.FleetReport{Window: time.Minute, Horizon: 5 * time.Second, Token: 666, Leave: true}
	require.NoError(t, st.Sync(ctx, "liar", &r, &v))
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Empty(t, h.outside, "decisions outside the envelope of the engines' own signals")
	assert.Empty(t, h.local, "the honest engines stayed FLEET")
}
