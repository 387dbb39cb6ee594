package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// sharedScenario is testScenario with a shared budget and 40% of 5xx errors from t=10s to
// t=30s, so that the clients retry.
func sharedScenario(b scenarios.Budget) scenarios.Scenario {
	scn := testScenario()
	scn.Budget = b
	scn.Faults = []scenarios.Fault{{Kind: scenarios.FaultErrors, At: 10 * time.Second, Duration: 20 * time.Second, Value: 0.4}}
	return scn
}

// stepFor steps s for d of virtual time.
func stepFor(s *Sim, d time.Duration) {
	for s.Now() < d && !s.Done() {
		s.Step()
	}
}

// Asserts that with a shared budget every cortex client's engine is a member of one fleet: a
// fresh fleet view (mode FLEET) counting every client, the same fleet failure rate in every
// engine, while each engine's own window holds only its share; per client, no fleet at all.
func TestSharedBudgetCortexFleet(t *testing.T) {
	s, err := New(sharedScenario(scenarios.BudgetShared), strategy.CortexName, 1)
	require.NoError(t, err)
	stepFor(s, 20*time.Second)
	var fleetF float64
	for i, c := range s.clients {
		e := c.holder.Engine()
		require.Equal(t, engine.FleetJoint, e.Snapshot().Fleet, "client %d", i)
		st := e.FleetStatus()
		assert.Equal(t, len(s.clients), st.Instances)
		if i == 0 {
			fleetF = st.F
			require.Greater(t, fleetF, 0.1, "the errors show in the fleet's F")
		}
		assert.InDelta(t, fleetF, st.F, 0.05, "client %d reads the fleet's F (synced at the same instants, a sync apart at most)", i)
	}

	p, err := New(sharedScenario(scenarios.BudgetPerClient), strategy.CortexName, 1)
	require.NoError(t, err)
	stepFor(p, 20*time.Second)
	assert.Nil(t, p.fleet)
	assert.Equal(t, engine.FleetOff, p.clients[0].holder.Engine().Snapshot().Fleet)
}

// Asserts that with a shared budget the budget strategy's clients draw on one AWS quota: every
// client reads the same quota, below its capacity once the fleet has retried; per client, each
// has its own.
func TestSharedBudgetAWSQuota(t *testing.T) {
	quotas := func(b scenarios.Budget) []int {
		s, err := New(sharedScenario(b), "budget", 1)
		require.NoError(t, err)
		stepFor(s, 20*time.Second)
		var q []int
		for _, c := range s.clients {
			q = append(q, c.strat.(*strategy.Budget).Quota())
		}
		return q
	}
	shared := quotas(scenarios.BudgetShared)
	for _, q := range shared {
		assert.Equal(t, shared[0], q, "one quota")
	}
	assert.Less(t, shared[0], 500)
	per := quotas(scenarios.BudgetPerClient)
	total := 0
	for _, q := range per {
		total += q
	}
	assert.Greater(t, total, 500, "four quotas of 500 hold more than one")
}

// Asserts that a shared-budget run stays a pure function of its seed, and that switching
// strategy mid-run gives the new engines a fresh fleet.
func TestSharedBudgetDeterministic(t *testing.T) {
	// Whole simulated runs on one goroutine (the simulator starts none): nothing for the race
	// detector to check; make test's second pass runs it without.
	racedetect.SkipWholeRuns(t)
	for _, name := range []string{strategy.CortexName, strategy.ArticleName, "budget"} {
		a, err := run(sharedScenario(scenarios.BudgetShared), name, 3)
		require.NoError(t, err)
		b, err := run(sharedScenario(scenarios.BudgetShared), name, 3)
		require.NoError(t, err)
		assert.Equal(t, a.Summary, b.Summary, name)
		assert.Equal(t, a.Timeline, b.Timeline, name)
	}
	s, err := New(sharedScenario(scenarios.BudgetShared), "none", 1)
	require.NoError(t, err)
	assert.Nil(t, s.fleet, "a strategy without an engine has no fleet")
	stepFor(s, 5*time.Second)
	require.NoError(t, s.Control(source.SetStrategy(strategy.CortexName)))
	require.NotNil(t, s.fleet)
	stepFor(s, 6*time.Second)
	assert.Equal(t, engine.FleetJoint, s.clients[0].holder.Engine().Snapshot().Fleet)
}

// Asserts what a shared-budget run tells the dashboard: its Fleet names the in-process fleet,
// and each snapshot's CortexView.Fleet counts every client's engine, all on the fleet's view
// (mode FLEET) once synced, the syncs so far and the fleet's F; per client, neither.
func TestSharedBudgetFleetHealth(t *testing.T) {
	src, err := NewSource(sharedScenario(scenarios.BudgetShared), strategy.CortexName, 1)
	require.NoError(t, err)
	defer src.Close()
	require.Implements(t, (*source.Fleet)(nil), src)
	fm := src.(source.Fleet).Fleet()
	require.NotNil(t, fm)
	assert.Equal(t, testScenario().Name, fm.Name)
	snaps := src.Advance(20 * time.Second)
	require.NotEmpty(t, snaps)
	last := snaps[len(snaps)-1].Cortex
	require.NotNil(t, last)
	require.NotNil(t, last.Fleet)
	h := last.Fleet
	assert.Equal(t, testScenario().Clients, h.Engines)
	assert.Equal(t, h.Engines, h.Joint, "every engine on the fleet's view")
	assert.Equal(t, h.Engines, h.Instances)
	assert.Positive(t, h.Syncs)
	assert.Greater(t, h.F, 0.1, "the errors show in the fleet's F")

	p, err := NewSource(sharedScenario(scenarios.BudgetPerClient), strategy.CortexName, 1)
	require.NoError(t, err)
	defer p.Close()
	assert.Nil(t, p.(source.Fleet).Fleet())
	ps := p.Advance(time.Second)
	require.NotEmpty(t, ps)
	assert.Nil(t, ps[len(ps)-1].Cortex.Fleet)
}
