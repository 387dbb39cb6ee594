package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// effect is what a run shows of a fault between 15 s and 35 s: the outcomes of the attempts,
// and the service's state and capacity at 30 s.
type effect struct {
	successes, timeouts, fastFails, serverErrors, throttled, badRequests int
	state                                                                source.ServiceState
	capacity                                                             float64
}

// effectOf runs testScenario with strategy none and the fault f (if any) from 10 s to 40 s.
func effectOf(t *testing.T, f *scenarios.Fault) effect {
	t.Helper()
	scn := testScenario()
	if f != nil {
		scn.Faults = []scenarios.Fault{*f}
	}
	s, err := New(scn, "none", 1)
	require.NoError(t, err)
	snaps := stepAll(t, s)
	var e effect
	for _, sn := range snaps[150:350] {
		c := sn.Counts
		e.successes += c.Successes
		e.timeouts += c.Timeouts
		e.fastFails += c.FastFails
		e.serverErrors += c.ServerErrors
		e.throttled += c.Throttled
		e.badRequests += c.BadRequests
	}
	e.state, e.capacity = snaps[300].Service.State, snaps[300].Service.Capacity
	return e
}

// Asserts that every kind of the table of fault kinds acts in the simulator, each in its own
// way: injected with the dashboard's value, it changes what the run shows (the attempts'
// outcomes, the service's state or capacity), and no two kinds show the same. A kind added to
// the table without its behaviour in service.go fails here.
func TestEveryFaultKindActs(t *testing.T) {
	capacity := testScenario().Service.Capacity()
	base := effectOf(t, nil)
	seen := map[effect]scenarios.FaultKind{}
	for _, spec := range scenarios.FaultSpecs() {
		t.Run(string(spec.Kind), func(t *testing.T) {
			f := scenarios.Fault{Kind: spec.Kind, At: 10 * time.Second, Duration: 30 * time.Second, Value: spec.InjectValue(capacity)}
			e := effectOf(t, &f)
			assert.NotEqual(t, base, e, "%s (%s) has no effect in the simulator: give it its behaviour in sim/service.go", spec.Kind, spec.Effect)
			if other, ok := seen[e]; ok {
				assert.Fail(t, "two kinds act alike", "%s acts exactly like %s", spec.Kind, other)
			}
			seen[e] = spec.Kind
		})
	}
}
