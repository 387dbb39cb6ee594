package cli

import (
	"fmt"
	"os"
	"strconv"
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
	present      bool   // --present: open in presenter mode
	budget       string // --budget: overrides the scenario's [fleet] budget when set
	refusalCost  string // --refusal-cost: overrides the scenario's service.refusal_cost when set
	engine       string // --engine: the cortex strategy's engine file
	compare      string // --compare-engine: a second engine file, beside the first in compare mode
	eng, cmpEng  engineFile
	record       string // --record: where the run as played is written as a scenario file
	plot         string // --plot: the picture of the run's charts (.svg or .png), headless
	plotWith     string // --plot-with: strategies drawn beside the run's own on the picture
	startAt      string // --start-at: virtual time to fast-forward to before the first frame
}

func init() { subcommands = append(subcommands, newRunCmd) }

func newRunCmd(io streams) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a scenario in the dashboard, or headless with --headless",
		Example: `  cortex-tui run --scenario black-friday
  cortex-tui run --scenario dns-crash --headless --strategy naive --format json
  cortex-tui run --scenario-file my.toml --headless --format csv
  cortex-tui run --scenario black-friday --engine cortex.toml --headless
  cortex-tui run --scenario-file my.toml --compare-engine cortex.toml

  cortex-tui run --scenario black-friday --record demo.toml   # then: run --scenario-file demo.toml
  cortex-tui run --scenario black-friday --headless --plot bf.svg --plot-with naive`,
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
			if o.refusalCost != "" {
				c, err := parseRefusalCost(o.refusalCost)
				if err != nil {
					return err
				}
				scn.Service.RefusalCost = c
				scn.Name += " (" + refusalCostLabel(c) + ")"
			}
			if !o.seedSet {
				o.seed = scn.Seed
			}
			if o.eng, err = readEngineFile(io, o.engine); err != nil {
				return err
			}
			if o.cmpEng, err = readEngineFile(io, o.compare); err != nil {
				return err
			}
			if !cmd.Flags().Changed("strategy") && scn.Strategy != "" {
				o.strategy = scn.Strategy // a recorded demo starts as it began
			}
			if o.present && o.headless {
				return presentHeadless
			}
			if o.startAt != "" && o.headless {
				return &exitError{code: 2, err: fmt.Errorf("--start-at opens the dashboard part way through: headless, the whole run is printed")}
			}
			if o.headless {
				if o.compare != "" {
					return &exitError{code: 2, err: fmt.Errorf("--compare-engine opens the dashboard's compare mode; headless, bench both files: cortex-tui bench --engine FILE")}
				}
				if cmd.Flags().Changed(keysFlag) { // unused headless, but a bad --keys is still an error
					if _, err := loadKeys(cmd); err != nil {
						return err
					}
				}
				return runHeadless(cmd, io, scn, o)
			}
			if o.plot != "" || o.plotWith != "" {
				return &exitError{code: 2, err: fmt.Errorf("--plot draws a headless run: add --headless (in the dashboard, the picture key writes the screen)")}
			}
			return runDashboard(cmd, io, scn, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "built-in scenario name (see \"cortex-tui scenarios\") or a scenario file")
	f.StringVar(&o.scenarioFile, "scenario-file", "", "path of a scenario TOML file")
	f.StringVar(&o.strategy, "strategy", strategy.CortexName, "retry strategy (default: the scenario's own, else cortex): "+strings.Join(strategy.Names(), ", "))
	f.Int64Var(&o.seed, "seed", 0, "random seed (default: the scenario's own)")
	f.BoolVar(&o.headless, "headless", false, "run without the dashboard and print the result: the summary (--format table), the per-second rows (csv) or both (json)")
	f.StringVar(&o.format, "format", "", "headless output: "+formatHelp(headlessFormats))
	f.BoolVar(&o.guided, "guided", false, "pause the dashboard at each caption until space is pressed (for a demo)")
	addPresentFlag(cmd, &o.present)
	f.StringVar(&o.budget, "budget", "", budgetHelp+" (default: the scenario's own)")
	f.StringVar(&o.refusalCost, "refusal-cost", "", refusalCostHelp+"; the run's scenario is then named \"NAME (refusal_cost X)\" (default: the scenario's own)")
	addEngineFlag(cmd, &o.engine)
	f.StringVar(&o.compare, "compare-engine", "", "open the dashboard in compare mode: cortex (with --engine, or the defaults) on the left, cortex with this cortex.toml file on the right, on the same arrivals and seed")
	f.StringVar(&o.record, "record", "", "write the run as played, every control applied at its time (the dashboard's keys), as a scenario file that replays it (run --scenario-file FILE); the dashboard's record key (R) writes it too")
	f.StringVar(&o.startAt, "start-at", "", "open the dashboard this far into the run (e.g. 55s), fast-forwarded deterministically before the first frame")
	f.StringVar(&o.plot, "plot", "", "headless: also draw the run's charts into this file, .svg or .png (traffic against capacity, CPS with its bands, success per priority)")
	f.StringVar(&o.plotWith, "plot-with", "", "headless, with --plot: strategies to run on the same scenario and seed and draw beside the run's own, comma-separated (e.g. naive,backoff)")
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

// refusalCostHelp describes --refusal-cost.
const refusalCostHelp = "the load of a refused attempt (503, 429, 4xx) in service times, 0 to 1, in place of each scenario's service.refusal_cost"

// parseRefusalCost returns the refusal cost written s, checked as service.refusal_cost is
// (scenarios.CheckRefusalCost), or a usage error naming the flag.
func parseRefusalCost(s string) (float64, error) {
	c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, &exitError{code: 2, err: fmt.Errorf("--refusal-cost: %q is not a number (give a fraction of one service time, 0 to 1)", s)}
	}
	if msg := scenarios.CheckRefusalCost(c); msg != "" {
		return 0, &exitError{code: 2, err: fmt.Errorf("--refusal-cost: %s", msg)}
	}
	return c, nil
}

// refusalCostLabel is how a scenario's name says its refusal cost was overridden: the key and
// the value, like "refusal_cost 0.5".
func refusalCostLabel(c float64) string {
	return "refusal_cost " + strconv.FormatFloat(c, 'g', -1, 64)
}

// loadScenario returns the built-in scenario name or the file path; exactly one must be given.
// A name that is no built-in but an existing file ending in .toml or holding a path separator
// is read as a file (--scenario my.toml works as --scenario-file my.toml, in every command).
func loadScenario(name, file string) (scenarios.Scenario, error) {
	if file == "" && looksLikeFile(name) {
		name, file = "", name
	}
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

// looksLikeFile reports whether a --scenario value names a file rather than a built-in.
func looksLikeFile(s string) bool {
	if !strings.HasSuffix(s, ".toml") && !strings.ContainsRune(s, os.PathSeparator) {
		return false
	}
	_, err := os.Stat(s)
	return err == nil
}
