package sim_test

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
)

// A small service (20 workers x 100 ms: 200 req/s) with an outage of a third of the run.
func exampleScenario() scenarios.Scenario {
	return scenarios.Scenario{
		Name:     "example",
		Duration: 60 * time.Second,
		Classes:  []scenarios.Class{{Name: "api", Priority: 5, Rate: 100}},
		Service:  scenarios.Service{Workers: 20, ServiceTime: 100 * time.Millisecond, QueueLimit: 200},
		Faults:   []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 20 * time.Second, Duration: 20 * time.Second}},
	}
}

// New builds a run that Step advances one tick at a time; report.Run steps it to the end and
// records the timeline and the summary, as the headless commands do. Without retries about two
// thirds of the requests succeed, and naive retries quadruple the attempts during the outage.
func ExampleNew() {
	for _, strategy := range []string{"none", "naive"} {
		s, err := sim.New(exampleScenario(), strategy, 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		res := report.Run(s)
		sum := res.Summary
		fmt.Printf("%s: %d seconds, success %.0f%%, peak amplification %.0fx\n",
			strategy, len(res.Timeline), 100*sum.SuccessRate, sum.PeakAmplification)
	}
	// The measured figures (seed 1; no drain, so the run ends with the last arrival) are:
	//   none: 60 seconds, success 66%, peak amplification 1x
	//   naive: 60 seconds, success 66%, peak amplification 4x
}

// NewSource is what the dashboard drives: Advance by any duration returns the whole ticks
// completed, and controls act from the next tick on.
func ExampleNewSource() {
	src, err := sim.NewSource(exampleScenario(), "naive", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	fmt.Println(len(src.Advance(250*time.Millisecond)), "ticks of 100ms, 50ms carried over")
	fmt.Println(len(src.Advance(250*time.Millisecond)), "ticks")
	_ = src.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultOutage}))
	snaps := src.Advance(time.Second)
	fmt.Println(snaps[len(snaps)-1].Service.State, snaps[len(snaps)-1].T)
	// Output:
	// 2 ticks of 100ms, 50ms carried over
	// 3 ticks
	// DOWN 1.5s
}
