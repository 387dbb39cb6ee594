package strategy

import (
	"fmt"
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
	describe string
	build    func(env Env) (Strategy, error)
}

// catalog lists the strategies in the order Names returns them: CORTEX first, then the
// baselines from the most to the least naive, and none last.
var catalog = []entry{
	{CortexName, "CORTEX engine: one pressure score (failures, latency, queue, budget, circuit) sheds low priorities first", newCortexFromEnv},
	{ArticleName, "CORTEX with the article's exact parameters (60s window, flat refill + success bonus, 10s/15s breaker)", newArticleFromEnv},
	{"naive", "retries at once, up to 3 times", func(Env) (Strategy, error) { return NewNaive(), nil }},
	{"backoff", "exponential backoff with full jitter (base 100ms, cap 20s), up to 3 retries (AWS)", func(env Env) (Strategy, error) { return NewBackoff(env.Rand, DefaultBackoffConfig()) }},
	{"breaker", "Hystrix circuit breaker (10s window, 20 requests, 50% errors, 5s sleep, one probe) + backoff", func(env Env) (Strategy, error) { return NewBreaker(env.Rand, DefaultBreakerConfig()) }},
	{"budget", "AWS SDK standard retry quota (500, cost 5, 10 after a timeout, refund on success) + backoff", func(env Env) (Strategy, error) { return NewBudget(env.Rand, DefaultBudgetConfig()) }},
	{"throttle", "Google SRE adaptive throttling: refuse locally with p = (requests - 2*accepts)/(requests + 1)", func(env Env) (Strategy, error) { return NewThrottle(env.Rand, DefaultThrottleConfig()) }},
	{"grpc", "gRPC retry throttling: 10 tokens, -1 per failure, +0.1 per success, no retry at or below 5", func(env Env) (Strategy, error) { return NewGRPC(env.Rand, DefaultGRPCConfig()) }},
	{"none", "never retries", func(Env) (Strategy, error) { return NewNone(), nil }},
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
