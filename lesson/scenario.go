package lesson

import (
	"cmp"
	"slices"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Scenario returns the scenario l runs: its built-in scenario with the lesson's controls
// ([[control]]) added to the scenario's own timeline of controls, in time order (the
// scenario's first at the same time), so that the run plays them at their virtual times as
// it plays a recorded demo's: a step that says "the outage hits at 60s" can make it hit. An
// unknown scenario is scenarios.Lookup's error.
func Scenario(l scenarios.Lesson) (scenarios.Scenario, error) {
	scn, err := scenarios.Lookup(l.Scenario)
	if err != nil || len(l.Controls) == 0 {
		return scn, err
	}
	scn.Controls = append(slices.Clone(scn.Controls), l.Controls...)
	slices.SortStableFunc(scn.Controls, func(a, b scenarios.ScheduledControl) int { return cmp.Compare(a.At, b.At) })
	return scn, nil
}
