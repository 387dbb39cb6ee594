package sim

import (
	"time"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// run simulates scn with strategy strat from seed to the end and records it with package
// report, as the headless commands do.
func run(scn scenarios.Scenario, strat string, seed int64) (report.Result, error) {
	s, err := New(scn, strat, seed)
	if err != nil {
		return report.Result{}, err
	}
	return report.Run(s), nil
}

// testScenario is a small open-loop scenario: 100 req/s against 20 workers x 100 ms
// (capacity 200/s), 60 s of arrivals, no faults.
func testScenario() scenarios.Scenario {
	return scenarios.Scenario{
		Name:     "test",
		Duration: 60 * time.Second,
		Drain:    10 * time.Second,
		Clients:  4,
		Classes: []scenarios.Class{
			{Name: "payment", Priority: 9, Rate: 50},
			{Name: "analytics", Priority: 1, Rate: 50},
		},
		Service: scenarios.Service{
			Workers:     20,
			ServiceTime: 100 * time.Millisecond,
			Sigma:       0.25,
			QueueLimit:  200,
			WarmStart:   0.3,
		},
	}
}
