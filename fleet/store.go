package fleet

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Store is where a fleet's engines meet, declared here where it is consumed (Member syncs with
// it): Sync publishes one instance's report and answers the fleet's view into *v, taking the
// tokens the report asks for from the fleet's bucket, atomically. A store is safe for
// concurrent use. Sync may block on the network: only the sync loop calls it, never a
// decision. It returns an error when the store cannot be reached or answers nonsense; *v is
// then undefined. Memory and redisstore.Store are stores; storetest.Run is the suite every
// store passes.
type Store interface {
	Sync(ctx context.Context, instance string, r *engine.FleetReport, v *engine.FleetView) error
}

// Budget is a fleet's bucket of retry tokens, shared by every instance: the store holds it, the
// engines lease from it.
type Budget struct {
	Capacity   float64 // tokens; 0 = no budget (every retry may spend)
	RefillRate float64 // tokens per second (a ceiling when RefillPerSuccess > 0)
	// RefillPerSuccess, when > 0, is the refill credit each reported success earns: the bucket
	// refills no faster than RefillRate and no more than it earned, so a fleet whose requests
	// all fail refills nothing (engine.Config.TokenRefillPerSuccess, fleet-wide).
	RefillPerSuccess float64
	// SuccessBonus is the tokens each reported success puts straight into the bucket
	// (engine.Config.TokenSuccessBonus: 0 by default, 5 in the article).
	SuccessBonus float64
}

// BudgetOf returns the fleet budget of an engine configuration meant for the whole fleet (not
// split): its bucket's capacity, refill rate and refill per success.
func BudgetOf(c engine.Config) Budget {
	return Budget{
		Capacity:         float64(c.TokenBucketCapacity),
		RefillRate:       c.TokenRefillRate,
		RefillPerSuccess: c.TokenRefillPerSuccess,
		SuccessBonus:     float64(c.TokenSuccessBonus),
	}
}

// Options configure a store.
type Options struct {
	Budget Budget
	// Expiry is how long an instance counts as a member after its last sync (FleetView.Instances)
	// and keeps its lease; past it the lease is reclaimed (default 2s).
	Expiry time.Duration
	// Config names the configuration the fleet's engines run (live: the strategy, "cortex"):
	// with the budget, the expiry and the report's spans it makes the fleet's fingerprint, and
	// a store refuses a sync whose fingerprint differs from its members' (ErrRefused). "" is a
	// name like any other.
	Config string
	// MaxRate bounds the outcomes one instance can report per second of its syncs (default
	// DefaultMaxRate): a report above it counts only that much, so one instance, however it
	// lies, moves the fleet's figures by at most what that much traffic could.
	MaxRate float64
}

// DefaultExpiry is Options.Expiry's default.
const DefaultExpiry = 2 * time.Second

// DefaultMaxRate is Options.MaxRate's default: 100,000 outcomes per second per instance.
const DefaultMaxRate = 100_000

// ErrRefused is what a store's Sync returns (wrapped in a *RefusedError) when it refuses the
// instance: its configuration is not the fleet's, or another instance holds its name. Retrying
// does not help; errors.Is(err, ErrRefused) tells it from a store that does not answer.
var ErrRefused = errors.New("refused by the fleet")

// The reasons of a RefusedError.
const (
	RefusedConfig    = "config"    // the fleet's members run another configuration
	RefusedDuplicate = "duplicate" // another instance of the same name is a member
)

// RefusedError is a sync the store refused. It matches ErrRefused (errors.Is).
type RefusedError struct {
	Reason   string // RefusedConfig or RefusedDuplicate
	Instance string // the instance refused
	Fleet    string // what the fleet runs (RefusedConfig): its configuration's description
}

// Error says why, in a sentence that names what to change.
func (e *RefusedError) Error() string {
	switch e.Reason {
	case RefusedConfig:
		return fmt.Sprintf("fleet: %s refused: the fleet's members run another configuration (%s); give this one its own fleet name", e.Instance, e.Fleet)
	case RefusedDuplicate:
		return fmt.Sprintf("fleet: %s refused: another process is a member under the same instance name; give each its own", e.Instance)
	}
	return fmt.Sprintf("fleet: %s refused (%s)", e.Instance, e.Reason)
}

// Is reports whether target is ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Fingerprints caches the fingerprint of the spans last asked for: a store computes it at every
// sync, and the spans seldom change. The zero value is ready; safe for concurrent use.
type Fingerprints struct {
	mu          sync.Mutex
	short, long int64
	fp, desc    string
}

// Of returns Fingerprint(o, short, long), computed again only when the spans change (o must be
// the same at every call).
func (c *Fingerprints) Of(o Options, short, long int64) (fp, desc string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fp == "" || c.short != short || c.long != long {
		c.fp, c.desc = Fingerprint(o, short, long)
		c.short, c.long = short, long
	}
	return c.fp, c.desc
}

// Fingerprint returns the fingerprint of a fleet's configuration for reports with spans
// short and long seconds (Spans): a hash of the budget, the expiry, the spans and
// Options.Config, and a description of them for an error message.
func Fingerprint(o Options, short, long int64) (fp, desc string) {
	b := o.Budget
	desc = fmt.Sprintf("%q: capacity %g, refill %g/s, %g per success, bonus %g, spans %ds/%ds, expiry %s",
		o.Config, b.Capacity, b.RefillRate, b.RefillPerSuccess, b.SuccessBonus, short, long, o.Expiry)
	h := fnv.New64a()
	_, _ = h.Write([]byte(desc))
	return fmt.Sprintf("%016x", h.Sum64()), desc
}

// maxSpan bounds the seconds a view sums (an hour), so that a wild Window cannot make a sync
// read thousands of buckets.
const maxSpan = 3600

// Check returns the options with their defaults filled in, or an error naming each bad field.
func (o Options) Check() (Options, error) {
	var errs []string
	check := func(name string, v float64) {
		if !(v >= 0) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Sprintf("%s must be a finite number >= 0 (got %v)", name, v))
		}
	}
	check("Budget.Capacity", o.Budget.Capacity)
	check("Budget.RefillRate", o.Budget.RefillRate)
	check("Budget.RefillPerSuccess", o.Budget.RefillPerSuccess)
	check("Budget.SuccessBonus", o.Budget.SuccessBonus)
	check("MaxRate", o.MaxRate)
	if o.MaxRate == 0 {
		o.MaxRate = DefaultMaxRate
	}
	if o.Expiry < 0 {
		errs = append(errs, fmt.Sprintf("Expiry must be >= 0 (got %s)", o.Expiry))
	}
	if o.Expiry == 0 {
		o.Expiry = DefaultExpiry
	}
	if len(errs) > 0 {
		return o, errors.New("fleet: " + strings.Join(errs, "; "))
	}
	return o, nil
}

// CheckName reports whether name is usable as a fleet or instance name: 1 to 64 characters,
// letters, digits, '-', '_' and '.'.
func CheckName(kind, name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("fleet: %s name must be 1 to 64 characters (got %q)", kind, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("fleet: %s name %q may hold only letters, digits, '-', '_' and '.'", kind, name)
		}
	}
	return nil
}

// Spans returns the seconds a view sums for report r: ceil(Horizon) and ceil(Window), at least
// 1 and at most maxSpan.
func Spans(r *engine.FleetReport) (short, long int64) {
	sec := func(d time.Duration) int64 {
		return min(maxSpan, max(1, int64((d+time.Second-1)/time.Second)))
	}
	long = sec(r.Window)
	short = min(long, sec(r.Horizon))
	return short, long
}

// CheckReport rejects a report no engine would send (negative or non-finite token figures).
func CheckReport(r *engine.FleetReport) error {
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"Spent", r.Spent}, {"Return", r.Return}, {"Want", r.Want}, {"Held", r.Held}, {"Earned", r.Earned}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("fleet: report %s must be a finite number >= 0 (got %v)", f.name, f.v)
		}
	}
	return nil
}

// bucket is the fleet's token bucket, the same arithmetic as the Redis script's.
type bucket struct {
	tokens, earned, out float64
	last                int64 // ns
	init                bool
}

// refill brings the bucket to now.
func (b *bucket) refill(bd Budget, now int64) {
	if !b.init {
		*b = bucket{tokens: bd.Capacity, last: now, init: true}
		return
	}
	if now > b.last {
		add := bd.RefillRate * float64(now-b.last) / 1e9
		if bd.RefillPerSuccess > 0 {
			add = min(add, b.earned)
			b.earned -= add
		}
		b.tokens = max(b.tokens, min(bd.Capacity-b.out, b.tokens+add))
		b.last = now
	}
}

// exchange records an instance's lease (old: its lease as the bucket knew it; held, ret: what
// it holds and hands back, already bounded by old), credits what it returns and earned, and
// grants what it wants, at most twice its share of the capacity among members, or a tenth of
// the free tokens when that is more (nothing when it leaves: its lease goes back whole); it
// returns the grant and the instance's lease after the sync.
func (b *bucket) exchange(bd Budget, old, held, ret float64, r *engine.FleetReport, successes uint64, earned float64, members int) (g, lease float64) {
	c := bd.Capacity
	b.out = min(c, max(0, b.out-old+held))
	b.tokens = min(b.tokens, c-b.out)
	b.tokens = max(b.tokens, min(c-b.out, b.tokens+ret+bd.SuccessBonus*float64(successes)))
	if bd.RefillPerSuccess > 0 && b.tokens+b.out < c {
		b.earned = min(max(1, bd.RefillRate), b.earned+earned)
	}
	g = max(0, min(r.Want, c, b.tokens, max(2*c/float64(max(1, members)), b.tokens/10)))
	if c == 0 || r.Leave {
		g = 0
	}
	b.tokens -= g
	b.out += g
	lease = held + g
	if r.Leave {
		b.out = max(0, b.out-held)
		b.tokens = min(c-b.out, b.tokens+held)
		lease = 0
	}
	return g, lease
}
