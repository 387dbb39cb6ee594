package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// outageScenario is a calm service (60% of its capacity, no warm-up after the fault) that
// suffers a total outage, refused connections for every attempt, from t=40s to t=70s.
func outageScenario() scenarios.Scenario {
	return scenarios.Scenario{
		Name:     "outage",
		Duration: 120 * time.Second,
		Clients:  20,
		Classes: []scenarios.Class{
			{Name: "payment", Priority: 9, Rate: 120},
			{Name: "search", Priority: 4, Rate: 120},
			{Name: "analytics", Priority: 1, Rate: 60},
		},
		Service: scenarios.Service{Workers: 50, ServiceTime: 100 * time.Millisecond, Sigma: 0.25, QueueLimit: 500, WarmStart: 1},
		Faults:  []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 40 * time.Second, Duration: 30 * time.Second}},
	}
}

// Asserts that what the dashboard shows for the cortex fleet follows the service (seeds 1 to
// 5): within 5 s of a total outage the fleet's mean CPS is CRITICAL or worse and most clients'
// circuits are OPEN; within 15 s of the service coming back the CPS is HEALTHY again and the
// circuits are CLOSED. Before the outage it is HEALTHY too.
func TestStateFollowsTheService(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	const start, end = 40 * time.Second, 70 * time.Second
	for seed := int64(1); seed <= 5; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			s, err := New(outageScenario(), "cortex", seed)
			require.NoError(t, err)
			at := map[time.Duration]*source.CortexView{}
			for !s.Done() {
				snap := s.Step()
				if snap.T%time.Second == 0 {
					at[snap.T] = snap.Cortex
				}
			}
			before := at[start-time.Second]
			require.NotNil(t, before)
			assert.Equal(t, engine.Healthy, before.State, "before the outage: CPS %.2f", before.CPS)

			down := at[start+5*time.Second]
			require.NotNil(t, down)
			assert.GreaterOrEqual(t, down.CPS, 0.50, "5 s into the outage the CPS is CRITICAL or worse")
			assert.Equal(t, engine.Open, down.Circuit, "5 s into the outage most circuits are OPEN (%d of 20)", down.Open)

			back := at[end+15*time.Second]
			require.NotNil(t, back)
			assert.Equal(t, engine.Healthy, back.State, "15 s after the outage: CPS %.2f, signals %+v", back.CPS, back.Signals)
			assert.Equal(t, engine.Closed, back.Circuit, "15 s after the outage the circuits are CLOSED")
		})
	}
}
