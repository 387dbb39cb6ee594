package strategy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cortex-tui/cortex-tui/engine"
)

// EngineHolder is implemented by strategies built on a CORTEX engine (the cortex strategy), so
// that the simulator and the dashboard can read its snapshot and steer it (weights, adaptive
// mode). Type-assert a Strategy to it; other strategies do not implement it.
type EngineHolder interface {
	// Engine returns the strategy's engine (never nil). The engine is safe for concurrent use.
	Engine() *engine.Engine
}

// entry is one strategy of the catalog.
type entry struct {
	name     string
	rank     int
	describe string
	build    func(env Env) (Strategy, error)
}

// catalog lists the strategies in the order Names returns them: by rank, then name. Each
// strategy's file adds itself with register, from an init function, so that a new strategy is
// one file (and its line in docs/strategies.md).
var catalog []entry

// rankLast is the rank of none, which comes last.
const rankLast = 1000

// register adds the strategy name to the catalog, with its one-line description and the
// function that builds it for a client. rank places it in the catalog: CORTEX first (10, 20),
// then the baselines from the most to the least naive (30 naive ... 80 grpc), none last
// (rankLast). It panics if name is already registered (at program start, in an init).
func register(name string, rank int, describe string, build func(env Env) (Strategy, error)) {
	if slices.ContainsFunc(catalog, func(e entry) bool { return e.name == name }) {
		panic("strategy: " + name + " registered twice")
	}
	e := entry{name: name, rank: rank, describe: describe, build: build}
	i, _ := slices.BinarySearchFunc(catalog, e, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.name, b.name))
	})
	catalog = slices.Insert(catalog, i, e)
}

// Names returns the catalog names in catalog order: cortex, cortex-article, naive, backoff,
// breaker, budget, throttle, grpc, none. The slice is a fresh copy the caller may keep or modify.
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
