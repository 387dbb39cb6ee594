package engine_test

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Example reproduces the seed README's "Payment Service Under Load" walk-through on a manual
// clock, in deterministic mode so the delays are the midpoints of their ranges. It runs on
// ArticleConfig, the article's parameters, so that its output is the article's; the tuned
// DefaultConfig tells the same story faster (Example_defaultConfig).
//
// The README records all 300 outcomes at the same instant. Here they are spread over virtual
// time as a real service would produce them: 100 successes at 40 ms over 10 s (10 per second),
// then 200 timeouts of 5 s over the next 5 s (40 per second). What the failures raise:
//   - F, the failure rate over the 60 s window, climbs to 200/300 = 0.67;
//   - L saturates at 1: the P99 (5 s) is far above the 40 ms baseline, which was learned from
//     the healthy successes and does not learn from the incident;
//   - B stays near 0 (one token spent, refilled), Q is 0, the circuit is still CLOSED: F has
//     been at or above 0.60 for less than the 10 s the circuit needs to trip.
//
// So CPS = 0.30*0.67 + 0.20*1 = 0.40: DEGRADED, floor 4. Analytics (priority 1) is shed, payment
// (9) still retries, with a backoff stretched by (1 + 10*CPS). Had the 200 failures been spread
// over 20 s instead, F would have held above 0.60 for 10 s and the circuit would have opened:
// the last lines show that, when the timeouts go on for 10 s more, even payment fails fast.
func Example() {
	clock := engine.NewManualClock(time.Date(2025, 10, 20, 7, 0, 0, 0, time.UTC))
	cfg := engine.ArticleConfig()
	cfg.Deterministic = true
	cfg.Seed = 1
	cfg.Clock = clock
	cortex, err := engine.New(cfg)
	if err != nil {
		panic(err)
	}

	// Normal traffic: all retries allowed.
	for range 100 {
		clock.Advance(100 * time.Millisecond)
		cortex.RecordSuccess(40 * time.Millisecond)
	}
	fmt.Println(cortex.ShouldRetry(9, 0, true))

	// The service starts timing out.
	for range 200 {
		clock.Advance(25 * time.Millisecond)
		cortex.RecordFailure(5 * time.Second)
	}
	s := cortex.Snapshot()
	fmt.Printf("F=%.2f L=%.2f circuit=%s baseline=%v\n", s.Signals.F, s.Signals.L, s.Circuit, s.Baseline)
	shed := cortex.ShouldRetry(1, 0, true)
	fmt.Println(shed, shed.Reason)
	fmt.Println(cortex.ShouldRetry(9, 0, true))

	// The timeouts go on: F stays above 0.60 for 10 s and the circuit opens.
	for range 400 {
		clock.Advance(25 * time.Millisecond)
		cortex.RecordFailure(5 * time.Second)
	}
	open := cortex.ShouldRetry(9, 0, true)
	fmt.Println(open, open.Reason)

	// Output:
	// RetryDecision[RETRY, delay=250ms, CPS=0.0000, state=HEALTHY, priority=9/0]
	// F=0.67 L=1.00 circuit=CLOSED baseline=40ms
	// RetryDecision[REJECT, delay=0ms, CPS=0.4000, state=DEGRADED, priority=1/4] SHED_LOW_PRIORITY
	// RetryDecision[RETRY, delay=1250ms, CPS=0.4000, state=DEGRADED, priority=9/4]
	// RetryDecision[CIRCUIT_OPEN, delay=0ms, CPS=0.6571, state=CRITICAL, priority=9/6] CIRCUIT_OPEN
}

// ExampleNew is the README's first decision: a fresh engine lets a payment retry (priority 9,
// first retry) go after a short delay. In deterministic mode the delay is the midpoint of
// Random(0, 500ms * 2^0 * (1 + 10*CPS)).
func ExampleNew() {
	cfg := engine.DefaultConfig()
	cfg.Deterministic = true
	cfg.Clock = engine.NewManualClock(time.Unix(0, 0))
	cortex, err := engine.New(cfg)
	if err != nil {
		panic(err)
	}
	d := cortex.ShouldRetry(9, 0, true)
	if d.ShouldRetry() {
		fmt.Println("retry after", d.Delay)
	}
	fmt.Println(d)

	cfg.Window = 0
	cfg.EmergencyThreshold = 1.5
	_, err = engine.New(cfg)
	fmt.Println(err)

	// Output:
	// retry after 250ms
	// RetryDecision[RETRY, delay=250ms, CPS=0.0000, state=HEALTHY, priority=9/0]
	// engine: invalid config: Window must be positive, got 0s; EmergencyThreshold must be within (0, 1], got 1.5
}

// ExampleEngine_SetWeights shows the run-time weight control: weights are renormalised to sum 1,
// and a bad set is refused with the fields named.
func ExampleEngine_SetWeights() {
	cfg := engine.DefaultConfig()
	cfg.Clock = engine.NewManualClock(time.Unix(0, 0))
	cortex, _ := engine.New(cfg)

	_ = cortex.SetWeights(engine.Weights{F: 2, L: 2, Q: 1, B: 0, C: 0})
	fmt.Println(cortex.Snapshot().Weights)
	fmt.Println(cortex.SetWeights(engine.Weights{F: -1}))

	// Output:
	// F=0.40 L=0.40 Q=0.20 B=0.00 C=0.00
	// engine: invalid config: Weights.F must be a finite number >= 0, got -1
}

// Example_defaultConfig replays the walk-through of Example on the tuned DefaultConfig, the
// timeouts recorded as what they are (RecordTimeout) and the retries asked for with Decide, which
// knows they follow a timeout. Where the article's engine reads F over 60 s, the tuned one reads
// the higher of F over the last FailureHorizon (5 s) and over 60 s: one second into the
// timeouts F is already past half, and after five it is 1. The circuit stays CLOSED: a timeout
// does not say the service refuses (TripOnTimeouts is off), so CPS = 0.30*F + 0.20*L + 0.15*B
// = 0.50, CRITICAL, floor 5: analytics is shed, payment still retries, for one token since the
// successes were not slow (S = 0); with no success since, the budget does not refill. When the
// service starts refusing instead (fast 503s, RecordFailure), every answer in the short span
// says no (the timeouts count on neither side), so the circuit opens after
// CircuitSustainedDuration (1 s); the short span still holds the timeouts, so L stays at 1 and
// C = 1 adds to it.
func Example_defaultConfig() {
	start := time.Date(2025, 10, 20, 7, 0, 0, 0, time.UTC)
	clock := engine.NewManualClock(start)
	cfg := engine.DefaultConfig()
	cfg.Deterministic = true
	cfg.Seed = 1
	cfg.Clock = clock
	cortex, err := engine.New(cfg)
	if err != nil {
		panic(err)
	}

	// Normal traffic: all retries allowed.
	for range 100 {
		clock.Advance(100 * time.Millisecond)
		cortex.RecordSuccess(40 * time.Millisecond)
	}
	fmt.Println(cortex.ShouldRetry(9, 0, true))

	// The service starts timing out: 40 timeouts of 5 s per second, for 5 s.
	for i := range 200 {
		clock.Advance(25 * time.Millisecond)
		cortex.RecordTimeout(5 * time.Second)
		if i == 39 {
			fmt.Printf("after 1s: F=%.2f\n", cortex.Snapshot().Signals.F)
		}
	}
	s := cortex.Snapshot()
	fmt.Printf("after 5s: F=%.2f L=%.2f circuit=%s tokens=%.0f\n", s.Signals.F, s.Signals.L, s.Circuit, s.Tokens)
	shed := cortex.Decide(engine.Failure{Priority: 1, Timeout: true})
	fmt.Println(shed, shed.Reason)
	fmt.Println(cortex.Decide(engine.Failure{Priority: 9, Timeout: true}))
	fmt.Printf("tokens=%.0f\n", cortex.Snapshot().Tokens)

	// The service starts refusing: 40 fast 503s per second, until the circuit opens.
	refusing := clock.Now()
	for cortex.Snapshot().Circuit == engine.Closed {
		clock.Advance(25 * time.Millisecond)
		cortex.RecordFailure(time.Millisecond)
	}
	s = cortex.Snapshot()
	fmt.Printf("circuit %s after %v of refusals (%s)\n", s.Circuit, s.LastTransition.At.Sub(refusing), s.LastTransition.Reason)
	open := cortex.Decide(engine.Failure{Priority: 9})
	fmt.Println(open, open.Reason)

	// A caller that asks AdmitRequest before it sends a retry (Hold) gets payment's retry even
	// while the circuit is open, held until the circuit probes the service (HoldForProbe).
	retry := cortex.Decide(engine.Failure{Priority: 9, Remaining: 25 * time.Second, Hold: true})
	fmt.Println(retry, retry.Reason)
	held := cortex.AdmitRequest(engine.Request{Priority: 9, Retry: 1, Remaining: 25 * time.Second, Hold: true})
	fmt.Println(held.Reason, held.Delay.Round(100*time.Millisecond))

	// Output:
	// RetryDecision[RETRY, delay=250ms, CPS=0.0000, state=HEALTHY, priority=9/0]
	// after 1s: F=0.56
	// after 5s: F=1.00 L=1.00 circuit=CLOSED tokens=499
	// RetryDecision[REJECT, delay=0ms, CPS=0.5003, state=CRITICAL, priority=1/5] SHED_LOW_PRIORITY
	// RetryDecision[RETRY, delay=1500ms, CPS=0.5003, state=CRITICAL, priority=9/5]
	// tokens=498
	// circuit OPEN after 1.025s of refusals (FAILURE_RATE)
	// RetryDecision[CIRCUIT_OPEN, delay=0ms, CPS=0.7006, state=CRITICAL, priority=9/7] CIRCUIT_OPEN
	// RetryDecision[RETRY, delay=2001ms, CPS=0.7006, state=CRITICAL, priority=9/7] RETRY
	// HELD 5.6s
}
