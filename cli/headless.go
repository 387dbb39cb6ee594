package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// headlessFormats are the outputs of run --headless: report's table of a run's formats.
var headlessFormats = report.ResultFormats

// runHeadless runs scn to the end without the dashboard and prints the result in o.format, one
// of headlessFormats: table (a readable summary), json (the run document) or csv (the
// timeline). With no format it prints a table on a terminal and JSON otherwise.
//
// A run the cost model expects to exceed its budget is refused (sim.Estimate) unless
// --allow-large. A stop signal (the command's context) ends it at once, printing nothing.
func runHeadless(cmd *cobra.Command, io streams, scn scenarios.Scenario, o runOptions) error {
	format, err := pickFormat(o.format, io.out, headlessFormats)
	if err != nil {
		return err
	}
	name, err := checkStrategy(o.strategy)
	if err != nil {
		return err
	}
	plot, err := planPlot(o, name)
	if err != nil {
		return err
	}
	if err := checkCost(scenarioSource(o.scenario, o.scenarioFile), scn, o.allowLarge, append([]string{name}, plot.with...)...); err != nil {
		return err
	}
	var others []report.Result
	res, err := await(cmd.Context(), func() (report.Result, error) {
		res, err := simulate(scn, name, o.seed, o.eng.sim())
		if err == nil {
			res.Summary.Oracle, err = oracleOf(scn, o.seed)
		}
		if err == nil {
			others, err = plot.others(scn, o.seed, o)
		}
		return res, err
	})
	if err != nil {
		return err
	}
	if err := plot.write(append([]report.Result{res}, others...)); err != nil {
		return err
	}
	if o.record != "" {
		played := scn // headless, the run plays the scenario's own controls only
		played.Seed, played.Strategy = o.seed, name
		if o.eng.cfg != nil { // the engine it ran, embedded: the replay needs no other file
			played.Engine, played.EngineName = o.eng.cfg, o.eng.name
		}
		data, err := played.MarshalTOML()
		if err == nil {
			err = atomicfile.Write(o.record, data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("--record %s: %w", o.record, err)
		}
	}
	return format.Write(io.out, res)
}

// oracleOf returns the oracle's bound on a run of scn from seed (sim.Oracle) as report prints
// it, nil for a closed loop or a scenario with controls, which have none.
func oracleOf(scn scenarios.Scenario, seed int64) (*report.Oracle, error) {
	b, err := sim.Oracle(scn, seed)
	switch {
	case errors.Is(err, sim.ErrClosedLoop), errors.Is(err, sim.ErrControlled):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return report.NewOracle(b.Rate(), b.PriorityRates()), nil
}

// simulate runs scn with strategy name from seed to the end in the simulator and returns the
// timeline and summary report.Run records (sim emits snapshots; the rows and the figures are
// report's).
func simulate(scn scenarios.Scenario, name string, seed int64, opts sim.Options) (report.Result, error) {
	s, err := sim.NewWith(scn, name, seed, opts)
	if err != nil {
		return report.Result{}, err
	}
	return report.Run(s), nil
}

// The simulator is a report.Stepper.
var _ report.Stepper = (*sim.Sim)(nil)

// checkStrategy returns the catalog name of s, or a usage error listing the valid names.
func checkStrategy(s string) (string, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if !slices.Contains(strategy.Names(), name) {
		return "", &exitError{code: 2, err: fmt.Errorf("unknown strategy %q (valid: %s)", s, strings.Join(strategy.Names(), ", "))}
	}
	return name, nil
}
