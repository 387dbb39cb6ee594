package cortexgrpc_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"

	"github.com/cortex-tui/cortex-tui/cortexgrpc"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// outcomeOf is the outcome the package doc's table gives a status code (ABORTED not retried):
// written out here again so that the comparison below does not trust the code it checks.
var outcomeOf = map[codes.Code]strategy.Outcome{
	codes.OK:                strategy.Success,
	codes.Unavailable:       strategy.FastFail,
	codes.ResourceExhausted: strategy.Throttled,
	codes.DeadlineExceeded:  strategy.Timeout,
	codes.Internal:          strategy.BadRequest,
	codes.NotFound:          strategy.BadRequest,
	codes.Aborted:           strategy.BadRequest,
}

// Asserts that the interceptor's decisions are the simulator's: a CORTEX strategy built as the
// simulator builds it (strategy.New, a seeded random source, a manual clock) admits and
// decides 150 calls against the real server, whose 400 scripted answers are a healthy mix of
// successes, retryable and final codes, then an overload (most answers fail, every answer takes
// 10 ms: the service queues), each attempt moving the clock on 50 ms; a second strategy, built
// the same way, is driven by hand with the outcomes the script says (not the ones the
// interceptor reported), the same priorities, retry indexes, latencies and clock, as the
// simulator would drive it. Every admission, every verdict (action, reason, delay) and the engines' final state must be equal,
// and the run must have met all of those answers: retries, final codes, refusals for budget.
func TestDecisionsMatchEngine(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const tick = 50 * time.Millisecond
	ecfg := engine.DefaultConfig()
	ecfg.Deterministic = true
	ecfg.BackoffBaseDelay = time.Millisecond
	ecfg.BackoffMaxDelay = 20 * time.Millisecond
	ecfg.TokenBucketCapacity = 8
	ecfg.CircuitMinRequests = 1 << 30           // no breaker: the overload is left to admission and the budget
	ecfg.BaselineLatency = 2 * time.Millisecond // the overload's 10 ms answers are 5 times it
	// The pacer holds attempts for a send slot, a wait the interceptor sleeps on the wall clock,
	// which this test's manual clock does not follow: off here (its holds: engine's admission
	// tests; a held call's wait: unary_test.go).
	ecfg.AdmitOriginals = false
	build := func(clock engine.Clock) strategy.Strategy {
		s, err := strategy.New(strategy.CortexName, strategy.Env{Clock: clock, Rand: rand.New(rand.NewPCG(7, 7)), Cortex: &ecfg})
		require.NoError(t, err)
		return s
	}

	// The script: 400 answers drawn once from a seeded source, a healthy mix first.
	draw := rand.New(rand.NewPCG(3, 3))
	kinds := []codes.Code{codes.OK, codes.OK, codes.OK, codes.OK, codes.Unavailable, codes.Unavailable,
		codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded, codes.Internal, codes.NotFound, codes.Aborted}
	// Then an overload: most answers fail, and every answer is slow (below).
	overload := []codes.Code{codes.OK, codes.OK, codes.Unavailable, codes.Unavailable, codes.Unavailable,
		codes.Unavailable, codes.Unavailable, codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded}
	script := make([]codes.Code, 400)
	for i := range script {
		if i < 60 {
			script[i] = kinds[draw.IntN(len(kinds))]
		} else {
			script[i] = overload[draw.IntN(len(overload))]
		}
	}
	prios := []int{1, 5, 9, 3, 7, 10}

	clock := engine.NewManualClock(t0)
	ts := startServer(t)
	ts.flaky.clock, ts.flaky.tick = clock, tick
	for i, code := range script {
		st := fail(code)
		if i >= 60 {
			st.sleep = 10 * time.Millisecond // the service queues: slow answers, which admission sheds for
		}
		ts.flaky.play(st)
	}
	cfg := cortexgrpc.DefaultConfig()
	cfg.Clock = clock
	c := newClient(t, ts, cfg, build(clock))
	for i := range 150 {
		_, _ = c.call(cortexgrpc.WithPriority(context.Background(), prios[i%len(prios)]))
	}

	refClock := engine.NewManualClock(t0)
	ref := build(refClock)
	at := func() strategy.Time { return strategy.Time(refClock.Now().Sub(t0)) } // the interceptor's epoch is t0
	sent, call := 0, -1
	reasons := map[string]int{}
	for i, a := range c.seen.list() {
		if a.Retry == 0 {
			call++
		}
		require.Equal(t, prios[call%len(prios)], a.Priority, "attempt %d: the call's priority", i)
		sa := strategy.Attempt{Priority: a.Priority, Retry: a.Retry}
		adm := ref.Admit(at(), sa)
		require.Equal(t, adm.Admitted(), a.End != cortexgrpc.EndNotAdmitted, "attempt %d: admission", i)
		if !adm.Admitted() {
			require.Equal(t, adm, a.Admission, "attempt %d: the refusal", i)
			reasons["admission:"+adm.Reason]++
			continue
		}
		refClock.Advance(tick) // the server's clock step for the attempt
		want := outcomeOf[script[sent]]
		sent++
		require.Equal(t, want, a.Outcome, "attempt %d: answered %s", i, script[sent-1])
		ref.Record(at(), sa, want, a.Latency)
		if want == strategy.Success {
			require.False(t, a.Decided)
			continue
		}
		v := ref.Decide(at(), sa, want)
		require.True(t, a.Decided, "attempt %d", i)
		require.Equal(t, v, a.Verdict, "attempt %d: the verdict", i)
		reasons[v.Reason]++
		if v.Retry {
			require.Equal(t, v.Delay, a.Delay, "attempt %d: the wait", i)
			if v.Delay > 0 { // the interceptor counts the call as pending while it waits
				ref.SetPending(1)
				ref.SetPending(0)
			}
		}
	}
	assert.Equal(t, len(ts.flaky.seen()), sent, "every attempt sent was compared")
	got := c.ic.Strategy().(strategy.EngineHolder).Engine().Snapshot()
	want := ref.(strategy.EngineHolder).Engine().Snapshot()
	assert.Equal(t, want, got, "the engines end in the same state")
	t.Logf("%d attempts for 150 calls, verdicts by reason: %v", sent, reasons)
	assert.Positive(t, reasons[engine.ReasonRetry])
	assert.Positive(t, reasons[engine.ReasonNotRetryable])
	assert.Positive(t, reasons[engine.ReasonBudgetExhausted], "the budget refused some retries")
}

// Asserts that the interceptor works with a fleet member as live mode's clients do: two
// instances, each an Interceptor on a CORTEX engine that a fleet.Member syncs in the
// background with one store, share one retry budget (10 tokens, no refill): against a service
// that fails every call they retry 10 times at most together, while the same two alone, each on
// its own 10 tokens, retry more.
func TestFleetMember(t *testing.T) {
	ecfg := engine.DefaultConfig()
	ecfg.BackoffBaseDelay = time.Millisecond
	ecfg.BackoffMaxDelay = 2 * time.Millisecond
	ecfg.TokenBucketCapacity = 10
	ecfg.TokenRefillRate = 0.001
	ecfg.TokenRefillPerSuccess = 0
	ecfg.BudgetReserve = 0
	ecfg.CircuitMinRequests = 1 << 30 // no breaker: the budget alone bounds the retries
	ts := startServer(t)

	run := func(inFleet bool) int {
		var store *fleet.Memory
		if inFleet {
			var err error
			store, err = fleet.NewMemory(fleet.Options{Budget: fleet.BudgetOf(ecfg)}, nil)
			require.NoError(t, err)
		}
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var members []*fleet.Member
		defer func() {
			stop()
			wg.Wait()
			for _, m := range members {
				assert.NoError(t, m.Leave(context.Background()), "the lease handed back")
			}
		}()
		var clients []*client
		for _, name := range []string{"a", "b"} {
			cfg := ecfg
			if inFleet {
				cfg.Fleet = engine.DefaultFleetConfig()
				cfg.Fleet.Lease, cfg.Fleet.MaxAge = 1, 10*time.Second
			}
			eng, err := engine.New(cfg)
			require.NoError(t, err)
			s, err := strategy.NewCortex(eng)
			require.NoError(t, err)
			if inFleet {
				m, err := fleet.NewMember([]*engine.Engine{eng}, store, fleet.MemberConfig{Instance: name, Timeout: -1})
				require.NoError(t, err)
				members = append(members, m)
				require.NoError(t, m.Sync(ctx)) // in the fleet before the first call, as live mode joins
				tick := time.NewTicker(5 * time.Millisecond)
				wg.Go(func() {
					defer tick.Stop()
					m.Run(ctx, tick.C)
				})
			}
			clients = append(clients, newClient(t, ts, cortexgrpc.DefaultConfig(), s))
		}
		for range 15 {
			for _, c := range clients {
				ts.flaky.play(fail(codes.Unavailable), fail(codes.Unavailable), fail(codes.Unavailable), fail(codes.Unavailable))
				_, _ = c.call(cortexgrpc.WithPriority(context.Background(), 9))
				ts.flaky.reset()
			}
		}
		retries := 0
		for _, c := range clients {
			for _, a := range c.seen.list() {
				if a.End == cortexgrpc.EndRetry {
					retries++
				}
			}
			if inFleet {
				fs := c.ic.Strategy().(strategy.EngineHolder).Engine().FleetStatus()
				assert.Equal(t, engine.FleetJoint, fs.Mode, "the engine decided on the fleet's view")
				assert.Equal(t, 2, fs.Instances)
			}
		}
		return retries
	}

	together, alone := run(true), run(false)
	t.Logf("retries: %d in the fleet, %d alone", together, alone)
	assert.Positive(t, together)
	assert.LessOrEqual(t, together, 10, "one budget of 10 tokens for both")
	assert.Greater(t, alone, 15, "two budgets of 10 allow more")
}
