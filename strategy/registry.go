package strategy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// EngineHolder is implemented by strategies built on a CORTEX engine (the cortex strategy), so
// that the simulator and the dashboard can read its snapshot and steer it (weights, adaptive
// mode). Type-assert a Strategy to it; other strategies do not implement it.
type EngineHolder interface {
	// Engine returns the strategy's engine (never nil). The engine is safe for concurrent use.
	Engine() *engine.Engine
}

// Explainer is implemented by strategies that can say what their checks saw (the cortex
// strategies): DecideExplained decides exactly as Decide, and also fills *x (nil allowed). The
// simulator calls it instead of Decide only while a reader keeps the recent decisions.
type Explainer interface {
	DecideExplained(now Time, a Attempt, o Outcome, x *engine.Explanation) Verdict
}

// AdmitExplainer is implemented by strategies that can say what their admission of an attempt
// saw (the cortex strategies): AdmitExplained admits exactly as Admit, and also fills *x (nil
// allowed). The simulator calls it instead of Admit only while a reader keeps the recent
// decisions.
type AdmitExplainer interface {
	AdmitExplained(now Time, a Attempt, x *engine.Explanation) Admission
}

// entry is one strategy of the catalog, as its file registers it.
type entry struct {
	name      string
	rank      int // place in the catalog: CORTEX first (10, 20), baselines from the most to the least naive (30 naive ... 80 grpc), the peers (100 aws-adaptive ... 150 failsafe), none last (rankLast)
	describe  string
	footprint Footprint
	build     func(env Env) (Strategy, error)
}

// Footprint is what one client of a strategy costs a simulated run, for the simulator's cost
// model (sim.Estimate): the most retries after an original attempt and the longest delay before
// one, which bound a request's attempts and life (the invariant tests check both against the
// strategy's verdicts), and the heap and CPU time of one client, measured by sim's
// BenchmarkCostClient and BenchmarkCostTick/clients-1000 and rounded up. Measured: the two
// CORTEX strategies 90.2 KB (their engines' windows) and 80 ns a tick (the fleet view reads
// every engine's snapshot); throttle 1.3 KB, breaker 499 B, budget 227 B, grpc 179 B, backoff
// 115 B, naive and none 83 B, and 3 to 5 ns a tick; the peers: failsafe 5.7 KB (its level
// tracker and windows), envoy 829 B, aws-adaptive and gradient2 573 B, finagle and vegas 445 B,
// 5 to 10 ns a tick.
type Footprint struct {
	Retries     int           // most retries after the original attempt
	MaxDelay    time.Duration // longest delay before a retry
	ClientBytes float64       // heap of one client's strategy state, bytes
	TickNs      float64       // CPU time of one client in each tick, ns
}

// MaxDelay bounds the delay of every catalog strategy with its defaults: the engine's
// BackoffMaxDelay (30 s).
var MaxDelay = engine.DefaultConfig().BackoffMaxDelay

// FootprintOf returns the footprint registered with the named strategy (case and spaces
// ignored); ok is false for an unknown name.
func FootprintOf(name string) (f Footprint, ok bool) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, e := range catalog {
		if e.name == key {
			return e.footprint, true
		}
	}
	return Footprint{}, false
}

// catalog lists the strategies in the order Names returns them: by rank, then name. Each
// strategy's file adds itself with register, from an init function, so that a new strategy is
// one file (and its line in docs/strategies.md).
var catalog []entry

// rankLast is the rank of none, which comes last.
const rankLast = 1000

// register adds a strategy to the catalog: its name, rank, one-line description, footprint and
// the function that builds it for a client. The rank places it in the catalog (see entry). It
// panics if the name is already registered (at program start, in an init).
func register(e entry) {
	if slices.ContainsFunc(catalog, func(c entry) bool { return c.name == e.name }) {
		panic("strategy: " + e.name + " registered twice")
	}
	i, _ := slices.BinarySearchFunc(catalog, e, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.name, b.name))
	})
	catalog = slices.Insert(catalog, i, e)
}

// Names returns the catalog names in catalog order: cortex, cortex-article, naive, backoff,
// breaker, budget, throttle, grpc, then the peers (aws-adaptive, envoy, finagle, gradient2,
// vegas, failsafe), none last. The slice is a fresh copy the caller may keep or modify.
func Names() []string {
	names := make([]string, len(catalog))
	for i, e := range catalog {
		names[i] = e.name
	}
	return names
}

// New builds the named strategy for one client. The name is matched case-insensitively after
// trimming spaces. env.Rand is required (every strategy but none and naive draws from it);
// env.Clock is used by cortex only (nil means the wall clock). An unknown name, or a missing
// Rand, returns an error that says what is wrong; New never panics on bad input.
func New(name string, env Env) (Strategy, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, e := range catalog {
		if e.name != key {
			continue
		}
		if env.Rand == nil {
			return nil, fmt.Errorf("strategy %q: Env.Rand is nil (a seeded *rand.Rand is required)", key)
		}
		return e.build(env)
	}
	return nil, fmt.Errorf("unknown strategy %q (valid: %s)", name, strings.Join(Names(), ", "))
}

// Describe returns a one-line description of the named strategy for help texts and the
// dashboard, or "" for an unknown name.
func Describe(name string) string {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, e := range catalog {
		if e.name == key {
			return e.describe
		}
	}
	return ""
}
