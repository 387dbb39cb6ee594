package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/internal/cputime"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tune"
)

// tuneOptions are the flags of `cortex-tui tune`.
type tuneOptions struct {
	scenarios     []string
	scenarioFiles []string
	seeds         string
	holdout       string
	objective     string
	params        []string
	time          time.Duration
	out           string
	seed          uint64
	generations   int
	evals         int
	population    int
	step          float64
	screen        int
	engine        string // --engine: the configuration searched from and compared with
	format        string
	allowLarge    bool
}

func init() { subcommands = append(subcommands, newTuneCmd) }

func newTuneCmd(io streams) *cobra.Command {
	var o tuneOptions
	cmd := &cobra.Command{
		Use:   "tune",
		Short: "Search the CORTEX engine's parameters on the simulator and write a tuned cortex.toml",
		Long: `tune searches the parameters of the CORTEX engine for the scenarios given (built-in ones
with --scenario, your own with --scenario-file; several are tuned together) with CMA-ES, the
covariance matrix adaptation evolution strategy (gonum's optimize.CmaEsChol) over the
parameters rescaled to [0, 1] (capacities and times on a log scale). Every candidate runs every
scenario on every training seed (--seeds) in the simulator, on every CPU; it scores the mean of
the objective over the scenarios, less a penalty for every crash of the service, for every
point by which a class is served better than a class of higher priority, and, on its worst
run as the bench counts them, for a peak amplification above the bench's limit (2.0x, or
none's own peak on the same seed) and for wasted retries above 15% of the originals.

The search starts from the default engine (or --engine FILE) and ends when its generations are
done, when --evals candidates are evaluated (at the end of that generation), when it has gained
less than 0.01 point in 8 generations, or at --time (the simulations running then finish; the
generation they belong to is dropped), whichever comes first. The best candidate of each generation that beats the one kept is run on
the held-out seeds (--holdout), which the search never sees: the report puts the default beside
the tuned engine on both, per scenario and per class, so an engine that only fits the training
seeds shows. tune writes the tuned engine (--out) only when it is not worse than the default on
the held-out seeds; otherwise it says so, writes nothing and exits with status 1.

The same --seed gives the same search and the same file, whatever the machine, unless --time
ends it earlier on a slower or busier one: bound it with --evals (and --time 0) for a result
that is the same anywhere. The report states the evaluations per second and per CPU-second. A progress line on standard error shows the best so far, the
evaluations and the time left; ctrl+c stops the search and writes the best candidate already
checked on the held-out seeds.

Give the file to run, bench, live and the dashboard with --engine, compare it with the default
with run --compare-engine, or build a Go service from it with cortexhttp.ConfigFromFile.`,
		Example: `  cortex-tui tune --scenario black-friday --out cortex.toml
  cortex-tui tune --scenario black-friday,dns-crash,metastable --seeds 1-20 --holdout 21-30
  cortex-tui tune --scenario-file my.toml --params weights,budget --time 5m
  cortex-tui tune --scenario dns-crash --evals 96 --time 0   # the same result on any machine
  cortex-tui tune --scenario api-throttling --objective priority --params budget.capacity,retry
  cortex-tui bench --scenario black-friday --seeds 21-30 --engine cortex.toml --strategy cortex`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("tune takes no arguments, got %q (use --scenario or --scenario-file)", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runTune(cmd.Context(), io, o) },
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.scenarios, "scenario", nil, "built-in scenarios to tune for, comma separated or repeated")
	f.StringArrayVar(&o.scenarioFiles, "scenario-file", nil, "a scenario TOML file to tune for (repeatable)")
	f.StringVar(&o.seeds, "seeds", "1-20", "the training seeds every candidate runs: 1-20, 1,3,5 or 1-3,7")
	f.StringVar(&o.holdout, "holdout", "21-30", `the held-out seeds the result is checked on, never searched on ("none": no check)`)
	f.StringVar(&o.objective, "objective", "success", "what is maximised: "+strings.Join(tune.Objectives, ", ")+
		" (success: the success rate; goodput: completed originals per second, relative to the default's; priority: each priority's success weighted by the priority + 1)")
	f.StringSliceVar(&o.params, "params", tune.DefaultGroups, "the parameters searched: groups ("+groupList()+") or keys of them such as budget.capacity")
	f.DurationVar(&o.time, "time", 2*time.Minute, "bound on the search's time: no simulation starts past it, the generation under way is dropped (0: no bound)")
	f.StringVar(&o.out, "out", "cortex.toml", `the tuned engine file to write ("-": the standard output)`)
	f.Uint64Var(&o.seed, "seed", 1, "the search's random seed: the same seed, the same search")
	f.IntVar(&o.generations, "generations", 30, "the most generations of the search")
	f.IntVar(&o.evals, "evals", 0, "the most candidates evaluated, in whole generations: the same search on any machine, however loaded (0: no bound)")
	f.IntVar(&o.population, "population", 0, "candidates per generation (default: CMA-ES's, 4 + 3 ln(parameters))")
	f.Float64Var(&o.step, "step", tune.DefaultStep, "CMA-ES's initial step, a share of each parameter's range (0 to 1)")
	f.IntVar(&o.screen, "screen", 0, "the first training seeds a candidate runs before the rest: one more than a point below the kept candidate on them is rejected there (0: a quarter of the seeds; -1: none)")
	f.StringVar(&o.engine, "engine", "", "the engine file to start from and compare with (default: the engine's defaults)")
	f.StringVar(&o.format, "format", "table", "the report: table, json or markdown (one row per scenario: docs/tune.md's table)")
	addAllowLargeFlag(cmd, &o.allowLarge)
	return cmd
}

// groupList names the parameter groups with what each holds, for --params' help.
func groupList() string {
	var parts []string
	for _, g := range tune.Groups {
		parts = append(parts, g.Name)
	}
	return strings.Join(parts, ", ")
}

// runTune checks the flags, runs the search with a progress line, prints the report and
// writes the file when it holds on the held-out seeds.
func runTune(ctx context.Context, io streams, o tuneOptions) error {
	if o.format != "table" && o.format != "json" && o.format != "markdown" {
		return &exitError{code: 2, err: fmt.Errorf("invalid --format %q (valid: table, json, markdown)", o.format)}
	}
	if o.out == "-" && o.format != "table" {
		return &exitError{code: 2, err: fmt.Errorf("--out - and --format %s both write to the standard output: give --out a file", o.format)}
	}
	if o.out != "-" {
		if err := checkWritable(o.out); err != nil {
			return err
		}
	}
	opts, err := tuneSearchOptions(io, o)
	if err != nil {
		return err
	}
	prog := newTuneProgress(io.err, isTerminal(io.err), engine.WallClock{})
	prog.bar.width, prog.base = terminalWidth(io.err), baseName(opts)
	opts.Progress = prog.update
	res, err := tune.Run(ctx, opts)
	prog.done()
	if err != nil {
		return err
	}
	holdout := len(opts.Holdout) > 0
	comment := tuneComment(o, opts, res)
	rep := io.out
	if o.out == "-" {
		rep = io.err // the standard output is the file's
	}
	switch o.format {
	case "json":
		err = tune.WriteJSON(rep, res, opts, comment)
	case "markdown":
		err = tune.WriteMarkdown(rep, res, opts)
	default:
		fmt.Fprintf(rep, "%s\n\n", tuneHeading(opts))
		err = tune.WriteTable(rep, res, opts)
	}
	if err != nil {
		return err
	}
	switch {
	case !res.Improved:
		return fmt.Errorf("no candidate beat the %s on the training seeds (%d evaluated): nothing written", baseName(opts), res.Evals)
	case len(opts.Scenarios) > 1 && len(res.Behind(holdout)) > 0 && (res.TunedHoldout.Value >= res.DefaultHoldout.Value || !holdout):
		i := res.Behind(holdout)[0]
		t, d := res.TunedTrain.Scenarios[i], res.DefaultTrain.Scenarios[i]
		if holdout {
			t, d = res.TunedHoldout.Scenarios[i], res.DefaultHoldout.Scenarios[i]
		}
		return fmt.Errorf("the tuned engine does worse than the %s on %s (%.4f against %.4f%s): one file for these scenarios does not hold on each of them, so %s is not written (tune them apart)",
			baseName(opts), t.Scenario, t.Value(), d.Value(), map[bool]string{true: " on the held-out seeds", false: ""}[holdout], o.out)
	case !res.Holds(holdout):
		return fmt.Errorf("the tuned engine scores %.4f on the held-out seeds, below the %s's %.4f: it fits the training seeds only, so %s is not written (add training seeds or scenarios, or search fewer parameters)",
			res.TunedHoldout.Value, baseName(opts), res.DefaultHoldout.Value, o.out)
	}
	data := engineconf.Format(res.Tuned, comment)
	if o.out == "-" {
		_, err = io.out.Write(data)
		return err
	}
	if err := atomicfile.Write(o.out, data, 0o644); err != nil { // a search stopped while writing leaves the old file
		return fmt.Errorf("cannot write the tuned engine: %w", err)
	}
	if o.format == "table" {
		fmt.Fprintf(rep, "\nwrote %s: cortex-tui bench --engine %s, run --compare-engine %s, cortexhttp.ConfigFromFile(%q)\n", o.out, o.out, o.out, o.out)
	}
	if res.Stop == "interrupted" {
		return context.Cause(ctx)
	}
	return nil
}

// tuneSearchOptions resolves the flags into the search's options; a bad flag or file is a
// usage error naming it.
func tuneSearchOptions(io streams, o tuneOptions) (tune.Options, error) {
	usage := func(err error) error { return &exitError{code: 2, err: err} }
	var opts tune.Options
	var err error
	if opts.Objective, err = tune.ParseObjective(o.objective); err != nil {
		return opts, usage(fmt.Errorf("invalid --objective: %w", err))
	}
	if opts.Dims, err = tune.ParseDims(o.params); err != nil {
		return opts, usage(fmt.Errorf("invalid --params: %w", err))
	}
	if opts.Train, err = parseSeeds(o.seeds); err != nil {
		return opts, usage(err)
	}
	if h := strings.TrimSpace(o.holdout); h != "" && h != "none" {
		if opts.Holdout, err = parseSeeds(h); err != nil {
			return opts, usage(errors.New(strings.Replace(err.Error(), "--seeds", "--holdout", 1)))
		}
		for _, s := range opts.Holdout {
			for _, t := range opts.Train {
				if s == t {
					return opts, usage(fmt.Errorf("seed %d is both a training seed (--seeds) and a held-out one (--holdout): a check on seeds the search saw shows nothing", s))
				}
			}
		}
	}
	if o.time < 0 {
		return opts, usage(fmt.Errorf("invalid --time %s: give a duration >= 0 (0: no bound)", o.time))
	}
	if o.generations < 1 || o.generations > 10000 {
		return opts, usage(fmt.Errorf("invalid --generations %d: give 1 to 10000", o.generations))
	}
	if o.evals < 0 {
		return opts, usage(fmt.Errorf("invalid --evals %d: give a count >= 0 (0: no bound)", o.evals))
	}
	if o.population < 0 || o.population == 1 || o.population > 1000 {
		return opts, usage(fmt.Errorf("invalid --population %d: give 2 to 1000 (0: CMA-ES's own)", o.population))
	}
	if !(o.step > 0 && o.step <= 1) {
		return opts, usage(fmt.Errorf("invalid --step %v: give a share of each range, more than 0 and at most 1", o.step))
	}
	if o.screen < -1 {
		return opts, usage(fmt.Errorf("invalid --screen %d: give a number of seeds (0: a quarter of them; -1: none)", o.screen))
	}
	opts.Time, opts.Seed, opts.Generations, opts.Evals, opts.Population = o.time, o.seed, o.generations, o.evals, o.population
	opts.Step, opts.Screen = o.step, o.screen
	opts.CPU = cputime.Process
	if opts.Scenarios, err = tuneScenarios(o); err != nil {
		return opts, err
	}
	eng, err := readEngineFile(io, o.engine)
	if err != nil {
		return opts, err
	}
	if eng.cfg != nil {
		opts.Base, opts.BaseName = *eng.cfg, eng.name
	}
	return opts, nil
}

// baseName names the engine searched from: "default", or its file's name.
func baseName(opts tune.Options) string {
	if opts.BaseName == "" {
		return "default"
	}
	return opts.BaseName
}

// tuneScenarios loads the built-in scenarios and the files named, each within the cost budget
// unless --allow-large; none is a usage error.
func tuneScenarios(o tuneOptions) ([]scenarios.Scenario, error) {
	var out []scenarios.Scenario
	var froms []string
	for _, name := range o.scenarios {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		scn, err := scenarios.Lookup(name)
		if err != nil {
			return nil, &exitError{code: 2, err: err}
		}
		out, froms = append(out, scn), append(froms, scn.Name)
	}
	for _, path := range o.scenarioFiles {
		scn, err := scenarios.ParseFile(path)
		if err != nil {
			return nil, err
		}
		out, froms = append(out, scn), append(froms, path)
	}
	if len(out) == 0 {
		return nil, &exitError{code: 2, err: fmt.Errorf("no scenario to tune for: give --scenario NAME (cortex-tui scenarios lists them) or --scenario-file FILE")}
	}
	for i, scn := range out {
		if err := checkCost(froms[i], scn, o.allowLarge, strategy.CortexName); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkWritable fails early, before a search of minutes, when the file cannot be written.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return &exitError{code: 2, err: fmt.Errorf("--out %s: no directory %s to write it in", path, dir)}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return &exitError{code: 2, err: fmt.Errorf("--out %s is a directory: give a file's path", path)}
	}
	return nil
}

// tuneHeading is the report's first line: what was tuned, on what, for what.
func tuneHeading(opts tune.Options) string {
	var names []string
	for _, s := range opts.Scenarios {
		names = append(names, s.Name)
	}
	h := fmt.Sprintf("tune %s · objective %s · %d training seeds (%s)", strings.Join(names, ", "), opts.Objective, len(opts.Train), seedList(opts.Train))
	if len(opts.Holdout) > 0 {
		h += fmt.Sprintf(", %d held-out (%s)", len(opts.Holdout), seedList(opts.Holdout))
	}
	return h
}

// tuneComment is the tuned file's heading: how it was found and what it scored, so the file
// says where it comes from. It holds no time or machine: the same search, the same file.
func tuneComment(o tuneOptions, opts tune.Options, res tune.Result) string {
	var names []string
	for _, s := range opts.Scenarios {
		names = append(names, s.Name)
	}
	c := fmt.Sprintf("Tuned by cortex-tui tune for %s (objective %s, seed %d, parameters %s).\nTraining seeds %s: score %.4f, the default's %.4f.",
		strings.Join(names, ", "), opts.Objective, opts.Seed, strings.Join(o.params, ","), seedList(opts.Train), res.TunedTrain.Value, res.DefaultTrain.Value)
	if len(opts.Holdout) > 0 {
		c += fmt.Sprintf("\nHeld-out seeds %s: score %.4f, the default's %.4f.", seedList(opts.Holdout), res.TunedHoldout.Value, res.DefaultHoldout.Value)
	}
	return c
}

// seedList writes seeds compactly, as --seeds takes them: 1-20 or 1,3,5.
func seedList(seeds []int64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		} else {
			parts = append(parts, fmt.Sprint(seeds[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// tuneProgress shows a search's progress on standard error: on a terminal a line redrawn in
// place (the progress bar of the evaluations, the best score, the time left), elsewhere one
// line per generation. It is called one call at a time (tune.Options.Progress).
type tuneProgress struct {
	w     io.Writer
	tty   bool
	bar   *progressBar
	gen   int    // the generations completed when a line was printed last (not a terminal)
	base  string // the engine searched from: "default" or its file's name
	drawn bool
}

// newTuneProgress returns the progress of a search drawn on w.
func newTuneProgress(w io.Writer, tty bool, clock engine.Clock) *tuneProgress {
	return &tuneProgress{w: w, tty: tty, bar: newProgress(w, "tune", "evals", clock)}
}

// update shows p.
func (t *tuneProgress) update(p tune.Progress) {
	text := fmt.Sprintf("best %.4f (%s %.4f)", p.Best, t.base, p.Default)
	if p.BestHoldout != 0 || p.DefaultHoldout != 0 {
		text += fmt.Sprintf(" · held-out %.4f (%s %.4f)", p.BestHoldout, t.base, p.DefaultHoldout)
	}
	if p.Checking {
		text += " · checking a new best on the held-out seeds"
	}
	if t.tty { // the most needed first: a narrow terminal cuts the line's end
		t.bar.extra = fmt.Sprintf("%s left · ", p.Left.Round(time.Second)) + text
		t.bar.update(p.Evals, p.MaxEvals)
		t.drawn = true
		return
	}
	if p.Generation == t.gen {
		return
	}
	t.gen = p.Generation
	fmt.Fprintf(t.w, "tune: generation %d/%d · %d evaluations · %s · %s, about %s left\n",
		p.Generation, p.Generations, p.Evals, text, p.Elapsed.Round(time.Second), p.Left.Round(time.Second))
}

// terminalWidth is the width in cells of the terminal stream is, or 0.
func terminalWidth(stream any) int {
	f, ok := fileOf(stream)
	if !ok {
		return 0
	}
	w, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return w
}

// done clears the line on a terminal.
func (t *tuneProgress) done() {
	if t.tty && t.drawn {
		fmt.Fprint(t.w, "\r\033[K")
	}
}
