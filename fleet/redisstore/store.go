// Package redisstore is the fleet store on Redis (github.com/redis/go-redis/v9): every instance
// of a fleet, in any process on any machine, syncs with the same Redis: a single server, a
// Redis Cluster or a master watched by Sentinels, over TLS or not, with an ACL user or not
// (ParseURL). One sync is one EVALSHA of an atomic Lua script (sync.lua) that adds the
// instance's outcomes to rolling sums, reclaims the leases of silent instances, refills the
// fleet's token bucket, grants the tokens asked for, and answers the fleet's view: a constant
// number of commands inside Redis (at most 20) whatever the window. The rules are package
// fleet's, which fleet.Memory implements in Go; one test suite runs against both
// (fleet/storetest).
//
// Keys are "cortex:{FLEET}:state", ":seen" and ":members", all declared to the script and all
// in the fleet's hash slot (the hash tag), so fleets sharing a Redis never mix and a Cluster
// routes each sync to one node. The script checks every value it reads (types, finite numbers,
// ranges) and repairs what is bad rather than apply it, counting each repair
// (engine.FleetView.Repaired).
//
// When Redis fails (down, slow, partitioned, restarted empty, failing over) a sync returns an
// error, and fleet.Member tells the engines, which fall back to their local view; a Redis
// restarted empty starts a full bucket and an empty window, and the next sync rejoins it.
package redisstore

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
)

//go:embed sync.lua
var syncSource string

// syncScript is loaded once per process; go-redis runs it with EVALSHA and loads it again
// after NOSCRIPT (a restarted Redis, a failover, another node of a Cluster).
var syncScript = redis.NewScript(syncSource)

// Store is a fleet's store on Redis. Safe for concurrent use. Build it with New or Open.
type Store struct {
	client redis.Scripter
	keys   []string
	opts   fleet.Options
	conn   *Conn // nil for a store from New
	closer func() error
	ping   func(ctx context.Context) error // nil for a store from New
	probe  time.Duration                   // how long Check's probes of the other protocol may take
	fps    fleet.Fingerprints
}

var _ fleet.Store = (*Store)(nil)

// Prefix returns the key prefix of a fleet: "cortex:{NAME}:".
func Prefix(name string) string { return "cortex:{" + name + "}:" }

// Keys returns the keys of the fleet called name: its state, its members' last syncs and their
// leases.
func Keys(name string) []string {
	p := Prefix(name)
	return []string{p + "state", p + "seen", p + "members"}
}

// New returns the store of the fleet called name on client (a *redis.Client, a
// *redis.ClusterClient, any client that runs scripts). The name must pass fleet.CheckName; the
// options are checked like fleet.NewMemory's. Close does not close a client given here.
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
	return &Store{client: client, keys: Keys(name), opts: o}, nil
}

// Open returns the store of the fleet called name on the Redis c describes, with a client of
// its own that Close closes. It does not contact Redis: Check and the first sync do. Each
// dial, read and write is bounded by timeout (at least 10 ms), and so is each probe Check
// makes to name a mistake (at least 1 s).
func Open(c *Conn, name string, opts fleet.Options, timeout time.Duration) (*Store, error) {
	if c == nil {
		return nil, errors.New("redisstore: no Redis (nil Conn)")
	}
	client := c.client(max(timeout, 10*time.Millisecond))
	s, err := New(client, name, opts)
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	s.conn = c
	s.probe = max(timeout, minProbe)
	s.closer = client.Close
	s.ping = func(ctx context.Context) error {
		if err := client.Ping(ctx).Err(); err != nil {
			return err
		}
		return client.Exists(ctx, s.keys[0]).Err()
	}
	return s, nil
}

// Check asks Redis whether this store can work (PING, then a read of the fleet's state key),
// for a start-up check; it changes nothing in the fleet. A Redis that does not answer (refused,
// timed out, unknown host, no sentinel answering) is an error matching ErrUnreachable: a fleet
// can start without it and join once it answers. Any other error is a mistake that waiting will
// not fix, named as such: a password missing or refused (NOAUTH, WRONGPASS), an ACL user
// without the rights, a database that does not exist, TLS to a plain server or plain to a TLS
// one, a certificate not trusted, a Cluster addressed as a single server or the reverse. A
// store from New answers nil without asking.
func (s *Store) Check(ctx context.Context) error {
	if s.ping == nil {
		return nil
	}
	err := s.ping(ctx)
	if err == nil {
		return nil
	}
	return redactErr(s.conn.explain(ctx, err, s.probe), s.conn.Password)
}

// Close closes the connection Open made (a no-op for a store from New).
func (s *Store) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer()
}

// secret returns the password to keep out of errors ("" for a store from New).
func (s *Store) secret() string {
	if s.conn == nil {
		return ""
	}
	return s.conn.Password
}

// Sync publishes instance's report r and answers the fleet's view into *v in one atomic script
// run (see the package doc). It returns the error of Redis or of the connection, a
// *fleet.RefusedError when the fleet refuses the instance, or an error naming a bad instance
// name, report or reply. No error holds the password.
func (s *Store) Sync(ctx context.Context, instance string, r *engine.FleetReport, v *engine.FleetView) error {
	if err := fleet.CheckName("instance", instance); err != nil {
		return err
	}
	if err := fleet.CheckReport(r); err != nil {
		return err
	}
	short, long := fleet.Spans(r)
	fp, desc := s.fps.Of(s.opts, short, long)
	bd := s.opts.Budget
	leave := 0
	if r.Leave {
		leave = 1
	}
	args := make([]any, 0, 23+3*8)
	args = append(args, instance, strconv.FormatUint(r.Token, 10), short, long, s.opts.Expiry.Microseconds(),
		f(bd.Capacity), f(bd.RefillRate), f(bd.RefillPerSuccess), f(bd.SuccessBonus), f(s.opts.MaxRate),
		engine.FleetBins, fp, desc, leave,
		r.Counts.Successes, r.Counts.Failures, r.Counts.Timeouts,
		f(r.Spent), f(r.Return), f(r.Want), f(r.Held), f(r.Earned), 0)
	bins := 0
	for i, c := range r.Latency.Counts {
		if c > 0 {
			args = append(args, i, c, r.Latency.Sums[i])
			bins++
		}
	}
	args[22] = bins
	res, err := syncScript.Run(ctx, s.client, s.keys, args...).Slice()
	if err != nil {
		return redactErr(fmt.Errorf("redisstore: sync of %s: %w", instance, err), s.secret())
	}
	if err := parse(res, instance, v); err != nil {
		var re *fleet.RefusedError
		if errors.As(err, &re) {
			return err
		}
		return fmt.Errorf("redisstore: sync of %s: %w", instance, err)
	}
	v.Capacity = bd.Capacity
	return nil
}

// f formats a token figure for the script.
func f(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// replyHead is the number of values before the latency triples in the script's reply.
const replyHead = 14

// parse reads the script's reply into *v, or the refusal it says.
func parse(res []any, instance string, v *engine.FleetView) error {
	if len(res) == 2 {
		reason, _ := res[0].(string)
		what, _ := res[1].(string)
		switch reason {
		case fleet.RefusedConfig:
			return &fleet.RefusedError{Reason: reason, Instance: instance, Fleet: what}
		case fleet.RefusedDuplicate:
			return &fleet.RefusedError{Reason: reason, Instance: instance}
		}
	}
	if len(res) < replyHead || (len(res)-replyHead)%3 != 0 || res[0] != "ok" {
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
	v.Tokens, v.Leased, v.Granted, v.Spent, v.Held = num(1), num(2), num(3), num(4), num(5)
	v.Instances = int(cnt(6))
	v.Repaired = cnt(7)
	v.Short = engine.FleetCounts{Successes: cnt(8), Failures: cnt(9), Timeouts: cnt(10)}
	v.Long = engine.FleetCounts{Successes: cnt(11), Failures: cnt(12), Timeouts: cnt(13)}
	for j := replyHead; j+2 < len(res); j += 3 {
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
// failure still reaches the caller as Sync's or Check's error. It changes a process-wide
// setting of go-redis, once: it is safe for concurrent use (two live runs starting at once in
// one process, as cli's parallel tests do, each wrote go-redis's logger, a data race).
func SilenceLogs() { silenceOnce.Do(func() { redis.SetLogger(quiet{}) }) }

var silenceOnce sync.Once
