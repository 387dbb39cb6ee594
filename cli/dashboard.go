package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui"
)

// keysFlag is the name of the flag that chooses another key file.
const keysFlag = "keys"

// presentHeadless refuses --present without the dashboard (a usage error, exit 2).
var presentHeadless = &exitError{code: 2, err: fmt.Errorf("--present opens the dashboard in presenter mode: headless, --plot draws the run's charts")}

// addPresentFlag adds --present to cmd (run and live), into p.
func addPresentFlag(cmd *cobra.Command, p *bool) {
	cmd.Flags().BoolVar(p, "present", false, "open the dashboard in presenter mode: one chart large (the traffic; the present key P goes on to the CPS, then the dashboard) with the caption in full, for a projector")
}

// addKeysFlag adds --keys PATH to cmd (the root command and `run`, the two that open the
// dashboard).
func addKeysFlag(cmd *cobra.Command) {
	cmd.Flags().String(keysFlag, "", "key file to use instead of the default one (see docs/keys.md)")
}

// startDashboard runs the dashboard until the user quits or the context is done (a stop
// signal); tests replace it to check what runDashboard hands over.
var startDashboard = tui.RunContext

// runDashboard opens the dashboard on scn with the strategy and seed of o. The strategy, the
// cost of the run and the key file are checked before the terminal is touched; without a
// terminal it fails with exit status 2 and points to --headless. The cost is that of the
// costliest strategy, since the dashboard switches to any of them (s, c); unless
// --allow-large, a run over the budget is refused.
func runDashboard(cmd *cobra.Command, io streams, scn scenarios.Scenario, o runOptions) error {
	name, err := checkStrategy(o.strategy)
	if err != nil {
		return err
	}
	if err := checkCost(scenarioSource(o.scenario, o.scenarioFile), scn, o.allowLarge); err != nil {
		return err
	}
	opts, err := runDashboardOptions(cmd, scn, name, o)
	if err != nil {
		return err
	}
	opts.Record = o.record
	if opts.StartAt, err = startAt(o.startAt, scn); err != nil {
		return err
	}
	in, out, err := terminal(io, headlessCommand(o))
	if err != nil {
		return err
	}
	if err := startDashboard(cmd.Context(), opts, in, out); err != nil {
		return err
	}
	return toldRecorded(io, o.record)
}

// startAt reads --start-at: a duration from 0 to before the end of the run (duration + drain);
// a usage error (exit 2) otherwise. "" is 0.
func startAt(s string, scn scenarios.Scenario) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	end := scn.Duration + scn.Drain
	switch {
	case err != nil:
		return 0, &exitError{code: 2, err: fmt.Errorf("--start-at: %q is not a duration (e.g. 55s, 1m30s)", s)}
	case d < 0 || d >= end:
		return 0, &exitError{code: 2, err: fmt.Errorf("--start-at: %s is outside the run (%s of arrivals and drain: give 0s to %s)", s,
			end, end-scn.Tick)}
	}
	return d, nil
}

// toldRecorded says, once the dashboard has ended, where run --record wrote the run as played
// and how to replay it, reading the file back (a recording that does not parse is an error).
func toldRecorded(io streams, path string) error {
	if path == "" {
		return nil
	}
	scn, err := scenarios.ParseFile(path)
	if err != nil {
		return fmt.Errorf("the recording does not read back: %w", err)
	}
	fmt.Fprintf(io.err, "recorded %s to %s: replay with cortex-tui run --scenario-file %s\n", scenarios.CountControls(len(scn.Controls)), path, path)
	return nil
}

// runDashboardOptions are the dashboard's options for run's flags o on scn with strategy name:
// the simulator running --engine's configuration, compare mode beside --compare-engine's.
func runDashboardOptions(cmd *cobra.Command, scn scenarios.Scenario, name string, o runOptions) (tui.Options, error) {
	opts, err := dashboardOptions(cmd, &scn, name, o.seed)
	if err != nil {
		return tui.Options{}, err
	}
	opts.Factory = simFactory(o.eng)
	if o.cmpEng.cfg != nil {
		opts.CompareFactory, opts.Compare = simFactory(o.cmpEng), true
	}
	opts.Guided, opts.Present = o.guided, o.present
	return opts, nil
}

// simFactory is the dashboard's source factory running e's engine configuration for cortex.
func simFactory(e engineFile) tui.SourceFactory {
	opts := e.sim()
	return func(scn scenarios.Scenario, strategy string, seed int64) (source.Source, error) {
		return sim.NewSourceWith(scn, strategy, seed, opts)
	}
}

// headlessCommand is the headless equivalent of the dashboard run o asked for.
func headlessCommand(o runOptions) string {
	cmd := "cortex-tui run --scenario " + o.scenario
	if o.scenarioFile != "" {
		cmd = "cortex-tui run --scenario-file " + o.scenarioFile
	}
	cmd += " --headless"
	if o.strategy != "" && o.strategy != "cortex" {
		cmd += " --strategy " + o.strategy
	}
	if o.seedSet {
		cmd += fmt.Sprintf(" --seed %d", o.seed)
	}
	if o.engine != "" {
		cmd += " --engine " + o.engine
	}
	return cmd
}

// openPicker opens the dashboard on the scenario picker (cortex-tui with no command).
func openPicker(cmd *cobra.Command, io streams) error {
	opts, err := dashboardOptions(cmd, nil, "cortex", 0)
	if err != nil {
		return err
	}
	in, out, err := terminal(io, "cortex-tui run --scenario NAME --headless (list the names with: cortex-tui scenarios)")
	if err != nil {
		return err
	}
	return startDashboard(cmd.Context(), opts, in, out)
}

// dashboardOptions loads the key file (--keys, or the default one) and builds the dashboard's
// options; scn nil opens the picker. A bad key file is a usage error (exit status 2).
func dashboardOptions(cmd *cobra.Command, scn *scenarios.Scenario, strategyName string, seed int64) (tui.Options, error) {
	keys, err := loadKeys(cmd)
	if err != nil {
		return tui.Options{}, err
	}
	return tui.Options{
		OnQuit:      printResults(cmd.OutOrStdout()),
		Keys:        keys,
		Factory:     sim.NewSource,
		Oracle:      oracleOf,
		Scenario:    scn,
		Strategy:    strategyName,
		Seed:        seed,
		LessonDone:  saveLessonDone,
		LessonsDone: lessonsDone(cmd),
	}, nil
}

// printResults returns the dashboard's OnQuit: it prints the summary of each run the dashboard
// showed when it ended on w, as run --headless --format table does, so that quitting never
// loses a run's numbers.
func printResults(w io.Writer) func([]report.Result) {
	return func(results []report.Result) {
		for i, r := range results {
			if i > 0 {
				fmt.Fprintln(w)
			}
			_ = report.WriteTable(w, r.Meta, r.Timeline, r.Summary)
		}
	}
}

// loadKeys returns the key bindings of the file given with --keys (which must exist) or of
// the default key file (which may not; then the defaults apply).
func loadKeys(cmd *cobra.Command) (keymap.KeyMap, error) {
	path, _ := cmd.Flags().GetString(keysFlag)
	if path != "" {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return keymap.KeyMap{}, &exitError{code: 2, err: fmt.Errorf("--keys %s: no such file", path)}
		}
	} else if p, err := keymap.DefaultPath(); err == nil {
		path = p
	}
	keys, err := keymap.Load(path)
	if err != nil {
		return keymap.KeyMap{}, &exitError{code: 2, err: fmt.Errorf("bad key file: %w", err)}
	}
	return keys, nil
}

// terminal returns stdin and stdout when both are terminals, and otherwise a usage error
// (exit status 2) that suggests the headless command instead.
func terminal(io streams, headless string) (*os.File, *os.File, error) {
	if !isTerminal(io.in) || !isTerminal(io.out) {
		return nil, nil, &exitError{code: 2, err: fmt.Errorf("the dashboard needs a terminal on stdin and stdout; without one, use --headless: %s", headless)}
	}
	in, _ := fileOf(io.in)
	out, _ := fileOf(io.out)
	return in, out, nil
}

// isTerminal reports whether stream (one of the command's streams) is a file that is a
// terminal, a Cygwin or MSYS one included.
func isTerminal(stream any) bool {
	f, ok := fileOf(stream)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// fileOf returns the *os.File behind one of the command's streams, if it is one.
func fileOf(stream any) (*os.File, bool) {
	if c, ok := stream.(*checkedWriter); ok {
		stream = c.w
	}
	f, ok := stream.(*os.File)
	return f, ok
}
