// Package redisstore is the fleet store on Redis (github.com/redis/go-redis/v9): every instance
// of a fleet, in any process on any machine, syncs with the same Redis. One sync is one EVALSHA
// of an atomic Lua script (sync.lua) that adds the instance's outcomes to the bucket of Redis's
// current second (TIME), reclaims the leases of silent instances, refills the fleet's token
// bucket, grants the tokens asked for, and sums the last seconds into the fleet's view. The
// rules are package fleet's, which fleet.Memory implements in Go; one test suite runs against
// both (fleet/storetest).
//
// Keys start with "cortex:{FLEET}:" (the hash tag keeps a fleet's keys in one slot), so fleets
// sharing a Redis never mix: "bucket" (free tokens, refill credit, leased tokens, last refill),
// "held" (each instance's lease), "seen" (each instance's last sync), and "w:SECOND" (that
// second's outcomes, latency bins and spending; it expires once no view can read it). The
// script builds the per-second keys itself, so it suits a single Redis or a replicated one,
// not Redis Cluster.
//
// When Redis fails (down, slow, partitioned, restarted empty) a sync returns an error, and
// fleet.Member tells the engine, which falls back to its local view; a Redis restarted empty
// starts a full bucket and an empty window, and the next sync rejoins it.
package redisstore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
)

//go:embed sync.lua
var syncSource string

// syncScript is loaded once per process; go-redis runs it with EVALSHA and loads it again
// after NOSCRIPT (a restarted Redis).
var syncScript = redis.NewScript(syncSource)

// Store is a fleet's store on Redis. Safe for concurrent use. Build it with New or Open.
type Store struct {
	client redis.Scripter
	prefix string
	opts   fleet.Options
	closer func() error
	ping   func(ctx context.Context) error // nil for a store from New
}

var _ engine.FleetStore = (*Store)(nil)

// Prefix returns the key prefix of a fleet: "cortex:{NAME}:".
func Prefix(name string) string { return "cortex:{" + name + "}:" }

// New returns the store of the fleet called name on client (a *redis.Client, or any client
// that runs scripts). The name must pass fleet.CheckName; the options are checked like
// fleet.NewMemory's. Close does not close a client given here.
func New(client redis.Scripter, name string, opts fleet.Options) (*Store, error) {
	if client == nil {
		return nil, errors.New("redisstore: the client is nil")
	}
	if err := fleet.CheckName("fleet", name); err != nil {
		return nil, err
	}
	o, err := opts.Check()
	if err != nil {
		return nil, err
	}
	return &Store{client: client, prefix: Prefix(name), opts: o}, nil
}

// Open connects to the Redis at url ("redis://[:password@]host:port[/db]", see
// redis.ParseURL) and returns the store of the fleet called name; Close closes the
// connection. It does not contact Redis: the first sync does (and fails while Redis is down).
// Each dial, read and write is bounded by timeout (at least 10 ms).
func Open(url, name string, opts fleet.Options, timeout time.Duration) (*Store, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: bad Redis URL %q: %w", url, err)
	}
	timeout = max(timeout, 10*time.Millisecond)
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = timeout, timeout, timeout
	o.MaxRetries = -1 // a failed sync is retried by the next tick, never by blocking this one
	o.ContextTimeoutEnabled = true
	c := redis.NewClient(o)
	s, err := New(c, name, opts)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	s.closer = c.Close
	s.ping = func(ctx context.Context) error { return c.Ping(ctx).Err() }
	return s, nil
}

// Ping asks Redis whether it answers (PING), for a start-up check; it changes nothing in the
// fleet. A store from New returns nil without asking.
func (s *Store) Ping(ctx context.Context) error {
	if s.ping == nil {
		return nil
	}
	if err := s.ping(ctx); err != nil {
		return fmt.Errorf("redisstore: %w", err)
	}
	return nil
}

// Close closes the connection Open made (a no-op for a store from New).
func (s *Store) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer()
}

// Sync publishes instance's report r and answers the fleet's view into *v in one atomic script
// run (see the package doc). It returns the error of Redis or of the connection, or one
// naming a bad instance name, report or reply.
func (s *Store) Sync(ctx context.Context, instance string, r *engine.FleetReport, v *engine.FleetView) error {
	if err := fleet.CheckName("instance", instance); err != nil {
		return err
	}
	if err := fleet.CheckReport(r); err != nil {
		return err
	}
	short, long := fleet.Spans(r)
	bd := s.opts.Budget
	args := make([]any, 0, 18+3*8)
	args = append(args, s.prefix, instance, short, long, s.opts.Expiry.Microseconds(),
		f(bd.Capacity), f(bd.RefillRate), f(bd.RefillPerSuccess), f(bd.SuccessBonus),
		r.Counts.Successes, r.Counts.Failures, r.Counts.Timeouts,
		f(r.Spent), f(r.Return), f(r.Want), f(r.Held), f(r.Earned), 0)
	bins := 0
	for i, c := range r.Latency.Counts {
		if c > 0 {
			args = append(args, i, c, r.Latency.Sums[i])
			bins++
		}
	}
	args[17] = bins
	res, err := syncScript.Run(ctx, s.client, nil, args...).Slice()
	if err != nil {
		return fmt.Errorf("redisstore: sync of %s: %w", instance, err)
	}
	if err := parse(res, v); err != nil {
		return fmt.Errorf("redisstore: sync of %s: %w", instance, err)
	}
	v.Capacity = bd.Capacity
	return nil
}

// f formats a token figure for the script.
func f(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// parse reads the script's reply into *v.
func parse(res []any, v *engine.FleetView) error {
	if len(res) < 11 || (len(res)-11)%3 != 0 {
		return fmt.Errorf("unexpected reply of %d values", len(res))
	}
	*v = engine.FleetView{}
	var err error
	num := func(i int) float64 {
		str, ok := res[i].(string)
		if !ok {
			err = fmt.Errorf("reply value %d is %T, not a number string", i, res[i])
			return 0
		}
		x, e := strconv.ParseFloat(str, 64)
		if e != nil {
			err = fmt.Errorf("reply value %d: %w", i, e)
		}
		return x
	}
	cnt := func(i int) uint64 {
		n, ok := res[i].(int64)
		if !ok || n < 0 {
			err = fmt.Errorf("reply value %d is %v, not a count", i, res[i])
			return 0
		}
		return uint64(n)
	}
	v.Tokens, v.Leased, v.Granted, v.Spent = num(0), num(1), num(2), num(3)
	v.Instances = int(cnt(4))
	v.Short = engine.FleetCounts{Successes: cnt(5), Failures: cnt(6), Timeouts: cnt(7)}
	v.Long = engine.FleetCounts{Successes: cnt(8), Failures: cnt(9), Timeouts: cnt(10)}
	for j := 11; j+2 < len(res); j += 3 {
		i := cnt(j)
		if i >= engine.FleetBins {
			return fmt.Errorf("reply bin %d out of range", i)
		}
		v.ShortLatency.Counts[i] = cnt(j + 1)
		v.ShortLatency.Sums[i] = cnt(j + 2)
	}
	return err
}

// quiet is a go-redis logger that drops everything.
type quiet struct{}

// Printf drops the message.
func (quiet) Printf(context.Context, string, ...any) {}

// SilenceLogs stops go-redis from printing to stderr (its pool logs each failed dial there):
// a dashboard calls it so that a Redis going down cannot scribble over its screen. Every
// failure still reaches the caller as Sync's or Ping's error. It changes a process-wide
// setting of go-redis.
func SilenceLogs() { redis.SetLogger(quiet{}) }
