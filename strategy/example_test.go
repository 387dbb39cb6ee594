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
	clk := engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := strategy.New("grpc", strategy.Env{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 6 {
		now := clk.Now()
		s.Record(now, strategy.ServerError, 30*time.Millisecond, 0)
		v := s.Decide(now, 5, 0, strategy.ServerError)
		fmt.Println(i+1, v.Action, v.Reason)
	}
	s.Record(clk.Now(), strategy.Success, 30*time.Millisecond, 0)
	fmt.Println("after a success:", s.Decide(clk.Now(), 5, 0, strategy.ServerError).Action)
	// Output:
	// 1 RETRY RETRY
	// 2 RETRY RETRY
	// 3 RETRY RETRY
	// 4 RETRY RETRY
	// 5 REJECT RETRY_THROTTLED
	// 6 REJECT RETRY_THROTTLED
	// after a success: REJECT
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
