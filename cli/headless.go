package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// runHeadless runs scn to the end without the dashboard and prints the result in o.format:
// json (the run document), csv (the timeline) or table (a readable summary). With no format
// it prints a table on a terminal and JSON otherwise.
//
// A run the cost model expects to exceed its budget is refused (sim.Estimate) unless
// --allow-large. A stop signal (the command's context) ends it at once, printing nothing.
func runHeadless(cmd *cobra.Command, io streams, scn scenarios.Scenario, o runOptions) error {
	format, err := pickFormat(o.format, io.out, []string{"table", "json", "csv"})
	if err != nil {
		return err
	}
	name, err := checkStrategy(o.strategy)
	if err != nil {
		return err
	}
	if err := checkCost(scenarioSource(o.scenario, o.scenarioFile), scn, o.allowLarge, name); err != nil {
		return err
	}
	res, err := await(cmd.Context(), func() (report.Result, error) { return simulate(scn, name, o.seed) })
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return report.WriteJSON(io.out, res.Meta, res.Timeline, res.Summary)
	case "csv":
		return report.WriteCSV(io.out, res.Timeline)
	default:
		return report.WriteTable(io.out, res.Meta, res.Timeline, res.Summary)
	}
}

// simulate runs scn with strategy name from seed to the end in the simulator and returns the
// timeline and summary report.Run records (sim emits snapshots; the rows and the figures are
// report's).
func simulate(scn scenarios.Scenario, name string, seed int64) (report.Result, error) {
	s, err := sim.New(scn, name, seed)
	if err != nil {
		return report.Result{}, err
	}
	return report.Run(s), nil
}

// The simulator is a report.Stepper.
var _ report.Stepper = (*sim.Sim)(nil)

// pickFormat validates format against valid (a usage error, exit 2, otherwise); "" means the
// first valid format on a terminal and json elsewhere.
func pickFormat(format string, out io.Writer, valid []string) (string, error) {
	if format == "" {
		if isTerminal(out) {
			return valid[0], nil
		}
		return "json", nil
	}
	f := strings.ToLower(strings.TrimSpace(format))
	if !slices.Contains(valid, f) {
		return "", &exitError{code: 2, err: fmt.Errorf("invalid --format %q (valid: %s)", format, strings.Join(valid, ", "))}
	}
	return f, nil
}

// checkStrategy returns the catalog name of s, or a usage error listing the valid names.
func checkStrategy(s string) (string, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if !slices.Contains(strategy.Names(), name) {
		return "", &exitError{code: 2, err: fmt.Errorf("unknown strategy %q (valid: %s)", s, strings.Join(strategy.Names(), ", "))}
	}
	return name, nil
}
