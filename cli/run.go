package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// runOptions are the flags of `cortex-tui run`.
type runOptions struct {
	scenario     string
	scenarioFile string
	strategy     string
	seed         int64
	seedSet      bool
	headless     bool
	format       string
	allowLarge   bool
	guided       bool
	budget       string // --budget: overrides the scenario's [fleet] budget when set
}

func init() { subcommands = append(subcommands, newRunCmd) }

func newRunCmd(io streams) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a scenario in the dashboard, or headless with --headless",
		Example: `  cortex-tui run --scenario black-friday
  cortex-tui run --scenario dns-crash --headless --strategy naive --format json
  cortex-tui run --scenario-file my.toml --headless --format csv`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("run takes no arguments, got %q (use --scenario NAME or --scenario-file PATH)", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.seedSet = cmd.Flags().Changed("seed")
			scn, err := loadScenario(o.scenario, o.scenarioFile)
			if err != nil {
				return err
			}
			if o.budget != "" {
				if scn.Budget, err = parseBudget(o.budget); err != nil {
					return err
				}
			}
			if !o.seedSet {
				o.seed = scn.Seed
			}
			if o.headless {
				if cmd.Flags().Changed(keysFlag) { // unused headless, but a bad --keys is still an error
					if _, err := loadKeys(cmd); err != nil {
						return err
					}
				}
				return runHeadless(cmd, io, scn, o)
			}
			return runDashboard(cmd, io, scn, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "built-in scenario name (see \"cortex-tui scenarios\")")
	f.StringVar(&o.scenarioFile, "scenario-file", "", "path of a scenario TOML file")
	f.StringVar(&o.strategy, "strategy", strategy.CortexName, "retry strategy: "+strings.Join(strategy.Names(), ", "))
	f.Int64Var(&o.seed, "seed", 0, "random seed (default: the scenario's own)")
	f.BoolVar(&o.headless, "headless", false, "run without the dashboard and print the result")
	f.StringVar(&o.format, "format", "", "headless output: "+formatHelp(headlessFormats))
	f.BoolVar(&o.guided, "guided", false, "pause the dashboard at each caption until space is pressed (for a demo)")
	f.StringVar(&o.budget, "budget", "", budgetHelp+" (default: the scenario's own)")
	addAllowLargeFlag(cmd, &o.allowLarge)
	addKeysFlag(cmd)
	return cmd
}

// budgetHelp describes --budget.
const budgetHelp = `the fleet's retry budget: "per-client" (each client its own) or "shared" (one for the fleet)`

// parseBudget returns the budget named s ("per-client" or "shared"), or a usage error naming
// the valid ones.
func parseBudget(s string) (scenarios.Budget, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, b := range scenarios.Budgets {
		if s == b.String() {
			return b, nil
		}
	}
	return 0, &exitError{code: 2, err: fmt.Errorf("--budget: unknown budget %q (valid: per-client, shared)", s)}
}

// loadScenario returns the built-in scenario name or the file path; exactly one must be given.
func loadScenario(name, file string) (scenarios.Scenario, error) {
	switch {
	case name != "" && file != "":
		return scenarios.Scenario{}, &exitError{code: 2, err: fmt.Errorf("give --scenario or --scenario-file, not both")}
	case file != "":
		return scenarios.ParseFile(file)
	case name != "":
		scn, err := scenarios.Lookup(name)
		if err != nil {
			return scn, &exitError{code: 2, err: err}
		}
		return scn, nil
	default:
		return scenarios.Scenario{}, &exitError{code: 2, err: fmt.Errorf("no scenario: give --scenario NAME (see `cortex-tui scenarios`) or --scenario-file PATH")}
	}
}
