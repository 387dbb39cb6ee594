package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

// allowLargeFlag names the flag that lets a run over the cost budget go ahead.
const allowLargeFlag = "allow-large"

// addAllowLargeFlag adds --allow-large to cmd (run, bench and validate), bound to allow.
func addAllowLargeFlag(cmd *cobra.Command, allow *bool) {
	b := sim.DefaultBudget
	cmd.Flags().BoolVar(allow, allowLargeFlag, false, fmt.Sprintf(
		"accept a scenario the cost model expects to take more than %s of CPU or %s a run (see docs/simulator.md)",
		sim.FormatCPU(b.CPU), sim.FormatBytes(b.Memory)))
}

// checkCost returns nil when a run of scn with the costliest of strategies (every one when
// none is named) fits in the budget, or when allow is set; otherwise an error that starts
// with where the scenario comes from (a file's path, a built-in's name) and gives the
// estimate, the budget, the fields to change and the flag that overrides it.
func checkCost(from string, scn scenarios.Scenario, allow bool, strategies ...string) error {
	if allow {
		return nil
	}
	if err := sim.Estimate(scn, strategies...).Check(sim.DefaultBudget); err != nil {
		return overBudget(from, err)
	}
	return nil
}

// overBudget is the refusal of a run over the budget (err, from Cost.Check) of the scenario
// from: "my.toml: this run would ...; lower class[*].rate or duration, or pass --allow-large".
func overBudget(from string, err error) error {
	return fmt.Errorf("%s: %w, or pass --%s", from, err, allowLargeFlag)
}

// scenarioSource names where a run's scenario comes from, for messages: the file's path, or
// the built-in scenario's name.
func scenarioSource(name, file string) string {
	if file != "" {
		return file
	}
	return name
}
