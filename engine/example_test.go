package engine_test

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Example reproduces the seed README's "Payment Service Under Load" walk-through on a manual
// clock, in deterministic mode so the delays are the midpoints of their ranges.
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
