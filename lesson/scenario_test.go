package lesson_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
)

// outageLesson is docs/lessons.md's example: the lesson injects the outage itself at 20 s, for
// 15 s, over black-friday (whose own outage is at 60 s).
const outageLesson = `name = "my-outage"
title = "What an outage does to naive retries"
scenario = "black-friday"
strategy = "naive"

[[control]]
at = "20s"
do = "inject"
kind = "outage"
duration = "15s"

[[step]]
text = "At t=20s the service goes down (this lesson does it): watch the retries climb."
hint = "Just wait for t=20s."
goal = [{ metric = "service", op = "==", value = "DOWN" }, { metric = "amplification", op = ">=", value = 2 }]
`

// Asserts that a lesson's [[control]] acts at its virtual time: the run of lesson.Scenario
// applies the lesson's outage at 20 s (its event log says the outage was injected then), the service is UP before
// and DOWN from then until 35 s, where the scenario alone is UP; and that the step whose goal
// is that outage is completed by itself, after 20 s and before the outage ends, with no action.
func TestLessonControlsActAtTheirTimes(t *testing.T) {
	l, err := scenarios.ParseLesson("my-outage.toml", []byte(outageLesson))
	require.NoError(t, err)
	scn, err := lesson.Scenario(l)
	require.NoError(t, err)
	require.Len(t, scn.Controls, 1)
	alone, err := scenarios.Lookup(l.Scenario)
	require.NoError(t, err)
	require.Empty(t, alone.Controls, "the catalog's scenario is left as it is")

	for _, c := range []struct {
		name string
		scn  scenarios.Scenario
		down bool // between 20 s and 35 s
	}{{"with the lesson's control", scn, true}, {"the scenario alone", alone, false}} {
		s, err := sim.NewSource(c.scn, l.Strategy, c.scn.Seed)
		require.NoError(t, err)
		defer s.Close()
		var applied []time.Duration
		for at := time.Duration(0); at < 40*time.Second; at += time.Second {
			snaps := s.Advance(time.Second)
			require.NotEmpty(t, snaps)
			for _, snap := range snaps {
				for _, e := range snap.Events {
					if e.Kind == source.EventFault && e.Fault.Change == source.FaultStarted && e.Fault.Injected {
						applied = append(applied, e.T)
					}
				}
				down := snap.Service.State == source.ServiceDown
				switch {
				case snap.T <= 20*time.Second:
					assert.False(t, down, "%s: UP at %s", c.name, snap.T)
				case snap.T > 20*time.Second && snap.T <= 35*time.Second:
					assert.Equal(t, c.down, down, "%s: at %s", c.name, snap.T)
				}
			}
		}
		if c.down {
			assert.Equal(t, []time.Duration{20 * time.Second}, applied, "the control applied at its time")
		} else {
			assert.Empty(t, applied)
		}
	}

	src, err := sim.NewSource(scn, l.Strategy, scn.Seed)
	require.NoError(t, err)
	defer src.Close()
	done, err := lesson.Solve(l, src)
	require.NoError(t, err)
	require.Len(t, done, 1)
	assert.Greater(t, done[0], 20*time.Second)
	assert.LessOrEqual(t, done[0], 35*time.Second)
}

// Asserts that a step's "inject throttle" injects what the throttle key does (half the
// scenario's capacity, as a [[control]] without a rate), not the key's share of it taken as
// a rate (a throttle of 0.5 requests/s).
func TestInjectActionAsTheKey(t *testing.T) {
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	src, err := sim.NewSource(scn, "cortex", scn.Seed)
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, lesson.Apply(src, scenarios.Action{Kind: scenarios.ActInject, Name: "throttle", Text: "inject throttle"}))
	snaps := src.Advance(scn.Tick)
	require.NotEmpty(t, snaps)
	require.Len(t, snaps[0].Faults, 1)
	spec, _ := scenarios.FaultThrottle.Spec()
	assert.Equal(t, spec.InjectValue(scn.Service.Capacity()), snaps[0].Faults[0].Value)
}
