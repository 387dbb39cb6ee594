package strategy_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// A client's retry loop with the grpc strategy: after five failures in a row the tokens are at
// the threshold (5 of 10) and retries stop until successes bring them back above it.
func ExampleNew() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := engine.NewManualClock(start)
	epoch := strategy.NewEpoch(start) // Time 0 is the start
	s, err := strategy.New("grpc", strategy.Env{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := strategy.Attempt{Priority: 5, Retry: 0}
	for i := range 6 {
		now := epoch.Time(clk.Now())
		s.Record(now, a, strategy.ServerError, 30*time.Millisecond)
		v := s.Decide(now, a, strategy.ServerError)
		fmt.Println(i+1, v.Action, v.Reason)
	}
	s.Record(epoch.Time(clk.Now()), a, strategy.Success, 30*time.Millisecond)
	fmt.Println("after a success:", s.Decide(epoch.Time(clk.Now()), a, strategy.ServerError).Action)
	// Output:
	// 1 RETRY RETRY
	// 2 RETRY RETRY
	// 3 RETRY RETRY
	// 4 RETRY RETRY
	// 5 REJECT RETRY_THROTTLED
	// 6 REJECT RETRY_THROTTLED
	// after a success: REJECT
}

// An open breaker refuses every attempt locally, originals included: the Admission says so with
// an action and a machine-readable reason, and a client fails the request at once.
func ExampleAdmission() {
	s, err := strategy.New("breaker", strategy.Env{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		fmt.Println(err)
		return
	}
	now := strategy.Time(0)
	a := strategy.Attempt{Priority: 9, Deadline: now.Add(2 * time.Second)}
	for range 20 { // the breaker's volume threshold, all failing
		s.Record(now, a, strategy.ServerError, 10*time.Millisecond)
	}
	adm := s.Admit(now, a)
	fmt.Println(adm.Refused(), adm.Action, adm.Reason)
	adm = s.Admit(now.Add(5*time.Second), a) // the sleep window is over: one probe goes
	fmt.Println(adm.Admitted())
	// Output:
	// true CIRCUIT_OPEN CIRCUIT_OPEN
	// true
}

// Names and Describe feed help texts and the dashboard's strategy picker.
func ExampleNames() {
	for _, name := range strategy.Names()[:3] {
		fmt.Printf("%-14s %s\n", name, strategy.Describe(name))
	}
	// Output:
	// cortex         CORTEX engine: one pressure score (failures, latency, queue, budget, circuit) sheds low priorities first
	// cortex-article CORTEX with the article's exact parameters (60s window, flat refill + success bonus, 10s/15s breaker)
	// naive          retries at once, up to 3 times
}
