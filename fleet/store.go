package fleet

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

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
}

// DefaultExpiry is Options.Expiry's default.
const DefaultExpiry = 2 * time.Second

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

// exchange records an instance's lease (old: its lease as the bucket knew it), credits what it
// returns and earned, and grants what it wants; it returns the grant.
func (b *bucket) exchange(bd Budget, old float64, r *engine.FleetReport) float64 {
	b.out = max(0, b.out-old+r.Held)
	b.tokens = max(b.tokens, min(bd.Capacity-b.out, b.tokens+r.Return+bd.SuccessBonus*float64(r.Counts.Successes)))
	if bd.RefillPerSuccess > 0 && b.tokens+b.out < bd.Capacity {
		b.earned = min(max(1, bd.RefillRate), b.earned+r.Earned)
	}
	g := max(0, min(r.Want, b.tokens))
	if bd.Capacity == 0 {
		g = 0
	}
	b.tokens -= g
	b.out += g
	return g
}
