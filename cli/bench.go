package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// benchOptions are the flags of `cortex-tui bench`.
type benchOptions struct {
	scenarios     []string
	scenarioFiles []string
	strategies    []string
	seed          int64
	seedSet       bool
	seeds         string // --seeds as written
	seedsSet      bool
	format        string
	allowLarge    bool
	budgets       []string // --budget: bench every scenario once per budget, named NAME (budget)
	refusalCosts  []string // --refusal-cost: bench every scenario once per cost, named NAME (refusal_cost X)
	instances     []string // --instances: bench every scenario once per fleet size, named NAME (N instances)
	engine        string   // --engine: the cortex strategy's engine file
}

func init() { subcommands = append(subcommands, newBenchCmd) }

func newBenchCmd(io streams) *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run every scenario with every strategy headless and print the comparison",
		Long: `bench runs each scenario (default: every built-in one) with each strategy (default: all)
to the end, in parallel on every CPU, and prints one row per run in a stable order: success
rate within the deadline, goodput (originals completed per second of the arrival phase), peak
and overall amplification, retries, wasted retries, recovery time and crashes. Every number is
measured by the simulator; the same seed gives the same table.

--seeds runs every scenario x strategy once per seed (a range, a list or both: 1-10, 1,3,5,
1-3,7; at most 1000 seeds), and the table and markdown then print one row per scenario x
strategy: each figure is the mean over the seeds with its min-max in brackets, like
"75.3% (74.1-76.0)"; recovery is the mean over the seeds that recovered, then "never n/N" for
those that did not; crashes are the total over the seeds and the number of seeds that crashed,
like "12 in 4/10"; success by priority is the mean. With one seed they print one row per run,
as without --seeds. --format matrix prints one row per scenario and one column per strategy:
the mean success rate over the seeds, with the total crashes in brackets when there were any.

The JSON is {"runs": [...], "cells": [...]}: "runs" has one object per scenario x strategy x
seed (scenarios, then strategies, then seeds, in the order given), "cells" one per scenario x
strategy with its "seeds" and, for each figure, its "mean", "min" and "max" over them
("recovery_seconds" over the "recovered" seeds, null if none; "never" counts the others;
"crashes_total" and "crashed_seeds" sum the crashes).`,
		Example: `  cortex-tui bench
  cortex-tui bench --scenario black-friday,dns-crash --strategy naive,cortex
  cortex-tui bench --format markdown > table.md
  cortex-tui bench --seeds 1-10 --format matrix
  cortex-tui bench --seeds 1-10 --scenario black-friday,metastable
  cortex-tui bench --scenario-file my.toml --format json
  cortex-tui bench --scenario-file my.toml --engine cortex.toml --strategy cortex,none
  cortex-tui bench --seeds 1-10 --scenario shared-budget --budget per-client,shared
  cortex-tui bench --seeds 1-10 --refusal-cost 0.5,1 --format matrix
  cortex-tui bench --scenario shared-budget --strategy cortex --budget per-client,shared --instances 50,1000`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("bench takes no arguments, got %q (use --scenario and --strategy lists)", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.seedSet = cmd.Flags().Changed("seed")
			o.seedsSet = cmd.Flags().Changed("seeds")
			return runBench(cmd.Context(), io, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.scenarios, "scenario", nil, "built-in scenarios, comma separated (default: all)")
	f.StringSliceVar(&o.scenarioFiles, "scenario-file", nil, "paths of scenario TOML files to bench, comma-separated or the flag repeated (instead of, or with, --scenario)")
	f.StringSliceVar(&o.strategies, "strategy", nil, "strategies, comma separated (default: all: "+strings.Join(strategy.Names(), ", ")+")")
	f.Int64Var(&o.seed, "seed", 0, "random seed for every run (default: each scenario's own)")
	f.StringVar(&o.seeds, "seeds", "", "seeds to run every scenario x strategy with, printing the mean (min-max) over them: 1-10, 1,3,5 or 1-3,7")
	f.StringVar(&o.format, "format", "", "output: "+formatHelp(benchFormats))
	f.StringSliceVar(&o.budgets, "budget", nil, budgetHelp+"; a list benches each scenario once per budget, its rows named \"NAME (budget)\" (default: each scenario's own)")
	f.StringSliceVar(&o.refusalCosts, "refusal-cost", nil, refusalCostHelp+"; a list benches each scenario once per cost, its rows named \"NAME (refusal_cost X)\" (default: each scenario's own)")
	f.StringSliceVar(&o.instances, "instances", nil, fmt.Sprintf("fleet sizes, comma separated: each scenario once per size, its [fleet] clients (the instances: 1 to %d) set to it and its rows named \"NAME (N instances)\"; with --budget shared they share one budget through one in-process fleet store", scenarios.MaxClients))
	addEngineFlag(cmd, &o.engine)
	addAllowLargeFlag(cmd, &o.allowLarge)
	return cmd
}

// benchResult is what bench prints: the summary of every run in job order, and whether there
// were several seeds (the table and markdown then print one cell per scenario x strategy).
type benchResult struct {
	runs      []report.Summary
	cells     bool
	knowledge []report.KnowledgeRow // --format knowledge only
}

// benchFormats are the outputs of bench, the default on a terminal first.
var benchFormats = []report.Format[benchResult]{
	{Name: "table", Write: func(w io.Writer, b benchResult) error {
		if b.cells {
			return report.WriteCellsTable(w, report.Aggregate(b.runs))
		}
		return report.WriteBenchTable(w, b.runs)
	}},
	{Name: "markdown", Write: func(w io.Writer, b benchResult) error {
		if b.cells {
			return report.WriteCellsMarkdown(w, report.Aggregate(b.runs))
		}
		return report.WriteBenchMarkdown(w, b.runs)
	}},
	{Name: "matrix", Note: "one row per scenario, one column per strategy: " + report.MatrixLegend, Write: func(w io.Writer, b benchResult) error {
		return report.WriteCellsMatrix(w, report.Aggregate(b.runs))
	}},
	{Name: "targets", Note: "cortex against the targets, one row per scenario: against the best other strategy, none and the oracle, its top class against its bound, priority order, crashes, peak amplification and wasted retries over the seeds, and the targets not met", Write: func(w io.Writer, b benchResult) error {
		return report.WriteTargetsMarkdown(w, report.Targets(b.runs, strategy.CortexName))
	}},
	{Name: "json", Write: func(w io.Writer, b benchResult) error { return report.WriteBenchJSON(w, b.runs) }},
	{Name: "knowledge", Note: "cortex against the oracle and the oracle with each piece of omniscience a client cannot have removed (docs/simulator.md), one row per open-loop scenario, means over the seeds", Write: func(w io.Writer, b benchResult) error {
		return report.WriteKnowledgeMarkdown(w, strategy.CortexName, b.knowledge)
	}},
}

// knowledgeVariants are the bounds of report.KnowledgeColumns, in order.
var knowledgeVariants = []sim.Knowledge{0, sim.NoCapacityNow, sim.NoFaultEnd, sim.NoCoordination, sim.ClientKnowable}

// knowledgeRows is, for each scenario with an oracle (open loop, no controls), the mean over
// seeds of each bound of knowledgeVariants and of cortex's success rate in runs.
func knowledgeRows(scns []scenarios.Scenario, seeds []int64, runs []report.Summary) ([]report.KnowledgeRow, error) {
	var rows []report.KnowledgeRow
	for _, scn := range scns {
		own := seeds
		if own == nil {
			own = []int64{scn.Seed}
		}
		r := report.KnowledgeRow{Scenario: scn.Name, Bounds: make([]float64, len(knowledgeVariants))}
		skip := false
		for _, seed := range own {
			for v, k := range knowledgeVariants {
				b, err := sim.OracleWithout(scn, seed, k)
				switch {
				case errors.Is(err, sim.ErrClosedLoop), errors.Is(err, sim.ErrControlled):
					skip = true
				case err != nil:
					return nil, err
				}
				r.Bounds[v] += b.Rate() / float64(len(own))
			}
		}
		if skip {
			continue
		}
		n := 0
		for _, s := range runs {
			if s.Scenario == scn.Name && s.Strategy == strategy.CortexName {
				r.Strategy += s.SuccessRate
				n++
			}
		}
		if n > 0 {
			r.Strategy /= float64(n)
		}
		r.Seeds = len(own)
		rows = append(rows, r)
	}
	return rows, nil
}

// benchJob is one scenario x strategy x seed run.
type benchJob struct {
	scn      scenarios.Scenario
	scnIndex int // which of bench's scenarios: the runs of one scenario and seed share its oracle
	strategy string
	seed     int64
}

// runBench resolves the lists, runs every job on GOMAXPROCS workers and prints the results
// in job order (scenarios in the order given, then strategies in the order given, then seeds in
// the order given); with more than one seed, the table and markdown print the cells. Unless
// --allow-large, no run starts if one scenario's estimate with the costliest of the strategies
// exceeds the budget (each run is checked on its own: bench runs GOMAXPROCS of them at once). A stop
// signal (ctx) ends it at once, printing nothing: no new run starts, those running are left.
func runBench(ctx context.Context, io streams, o benchOptions) error {
	format, err := pickFormat(o.format, io.out, benchFormats)
	if err != nil {
		return err
	}
	var seeds []int64 // nil: each scenario's own seed, or --seed
	if o.seedsSet {
		if o.seedSet {
			return &exitError{code: 2, err: fmt.Errorf("--seed and --seeds together: give one seed with --seed or several with --seeds")}
		}
		if seeds, err = parseSeeds(o.seeds); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	scns, froms, err := benchScenarios(o)
	if err != nil {
		return err
	}
	if scns, froms, err = withVariants(scns, froms, o.budgets, o.refusalCosts, o.instances); err != nil {
		return err
	}
	names := strategy.Names()
	if len(o.strategies) > 0 {
		names = names[:0]
		for _, s := range o.strategies {
			n, err := checkStrategy(s)
			if err != nil {
				return err
			}
			names = append(names, n)
		}
	}
	if (format.Name == "targets" || format.Name == "knowledge") && !slices.Contains(names, strategy.CortexName) {
		return &exitError{code: 2, err: fmt.Errorf("--format targets holds cortex to the targets: add cortex to --strategy")}
	}
	for i, scn := range scns { // each run must fit in the budget; none starts otherwise
		if err := checkCost(froms[i], scn, o.allowLarge, names...); err != nil {
			return err
		}
	}
	var jobs []benchJob
	for i, scn := range scns {
		own := []int64{scn.Seed}
		switch {
		case seeds != nil:
			own = seeds
		case o.seedSet:
			own = []int64{o.seed}
		}
		for _, n := range names {
			for _, seed := range own {
				jobs = append(jobs, benchJob{scn: scn, scnIndex: i, strategy: n, seed: seed})
			}
		}
	}
	eng, err := readEngineFile(io, o.engine)
	if err != nil {
		return err
	}
	runs, err := await(ctx, func() ([]report.Summary, error) { return runJobs(ctx, jobs, eng.sim(), progress(io)) })
	if err != nil {
		return err
	}
	if eng.cfg != nil && format.Name != "json" && slices.Contains(names, strategy.CortexName) { // the JSON says it run by run ("engine")
		fmt.Fprintf(io.out, "cortex runs the engine configuration of %s\n\n", o.engine)
	}
	res := benchResult{runs: runs, cells: len(seeds) > 1}
	if format.Name == "knowledge" {
		if res.knowledge, err = knowledgeRows(scns, seeds, runs); err != nil {
			return err
		}
	}
	return format.Write(io.out, res)
}

// benchScenarios returns the scenarios to bench, the named built-ins then the files', and
// where each comes from (its name, or the file's path) for messages.
func benchScenarios(o benchOptions) ([]scenarios.Scenario, []string, error) {
	var out []scenarios.Scenario
	var froms []string
	for _, name := range o.scenarios {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		scn, err := scenarios.Lookup(name)
		if err != nil {
			return nil, nil, &exitError{code: 2, err: err}
		}
		out, froms = append(out, scn), append(froms, scn.Name)
	}
	for _, path := range o.scenarioFiles {
		scn, err := scenarios.ParseFile(path)
		if err != nil {
			return nil, nil, err
		}
		out, froms = append(out, scn), append(froms, path)
	}
	if len(o.scenarios) == 0 && len(o.scenarioFiles) == 0 {
		out = scenarios.Catalog()
		if len(out) == 0 {
			return nil, nil, fmt.Errorf("no built-in scenarios to bench")
		}
		for _, scn := range out {
			froms = append(froms, scn.Name)
		}
	}
	return out, froms, nil
}

// withVariants returns each scenario once per combination of the budgets, the refusal costs and
// the fleet sizes of the lists (bench --budget, --refusal-cost, --instances), each named after
// what was changed, like "NAME (shared)", "NAME (refusal_cost 0.5)" or "NAME (shared, 1000
// instances)", so that the rows of every format tell them apart and say what was overridden.
// Empty lists return the scenarios as they are.
func withVariants(scns []scenarios.Scenario, froms []string, budgetList, costList, sizeList []string) ([]scenarios.Scenario, []string, error) {
	type variant struct {
		label string
		apply func(*scenarios.Scenario)
	}
	var axes [][]variant
	if len(budgetList) > 0 {
		var vs []variant
		for _, s := range budgetList {
			b, err := parseBudget(s)
			if err != nil {
				return nil, nil, err
			}
			vs = append(vs, variant{b.String(), func(scn *scenarios.Scenario) { scn.Budget = b }})
		}
		axes = append(axes, vs)
	}
	if len(costList) > 0 {
		var vs []variant
		for _, s := range costList {
			c, err := parseRefusalCost(s)
			if err != nil {
				return nil, nil, err
			}
			vs = append(vs, variant{refusalCostLabel(c), func(scn *scenarios.Scenario) { scn.Service.RefusalCost = c }})
		}
		axes = append(axes, vs)
	}
	if len(sizeList) > 0 {
		var vs []variant
		for _, s := range sizeList {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > scenarios.MaxClients {
				return nil, nil, &exitError{code: 2, err: fmt.Errorf("--instances: %q is not a fleet size from 1 to %d", s, scenarios.MaxClients)}
			}
			vs = append(vs, variant{fmt.Sprintf("%d instances", n), func(scn *scenarios.Scenario) { scn.Clients = n }})
		}
		axes = append(axes, vs)
	}
	if len(axes) == 0 {
		return scns, froms, nil
	}
	combos := [][]variant{nil}
	for _, axis := range axes {
		var next [][]variant
		for _, c := range combos {
			for _, v := range axis {
				next = append(next, append(append([]variant(nil), c...), v))
			}
		}
		combos = next
	}
	var out []scenarios.Scenario
	var outFroms []string
	for i, scn := range scns {
		for _, combo := range combos {
			c := scn
			labels := make([]string, len(combo))
			for j, v := range combo {
				v.apply(&c)
				labels[j] = v.label
			}
			c.Name = fmt.Sprintf("%s (%s)", scn.Name, strings.Join(labels, ", "))
			out, outFroms = append(out, c), append(outFroms, froms[i])
		}
	}
	return out, outFroms, nil
}

// progress is bench's progress bar on stderr when it is a terminal (nothing otherwise: a log
// needs no bar): a newProgress bar redrawn as runs end.
func progress(io streams) func(done, total int) {
	if !isTerminal(io.err) {
		return func(int, int) {}
	}
	return newProgress(io.err, "bench", "runs", engine.WallClock{}).update
}

// runJobs runs jobs on GOMAXPROCS goroutines (errgroup.SetLimit) and returns their summaries
// in job order, each with the oracle's bound of its scenario and seed (computed once for all
// the strategies run on them). The first failing run (in job order) is returned as the error.
// Once ctx is done it starts no other job and returns ctx's cause when those running have ended.
func runJobs(ctx context.Context, jobs []benchJob, opts sim.Options, onDone func(done, total int)) ([]report.Summary, error) {
	var oracles oracleCache
	out := make([]report.Summary, len(jobs))
	errs := make([]error, len(jobs))
	var mu sync.Mutex
	done := 0
	onDone(0, len(jobs))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // stopped while this job waited for a goroutine
			}
			res, err := simulate(j.scn, j.strategy, j.seed, opts)
			if err == nil {
				res.Summary.Oracle, err = oracles.get(j.scnIndex, j.scn, j.seed)
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s with %s, seed %d: %w", j.scn.Name, j.strategy, j.seed, err)
			}
			out[i] = res.Summary
			mu.Lock()
			done++
			onDone(done, len(jobs))
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait() // the jobs report their errors in errs, to return the first in job order
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// oracleCache computes the oracle of each scenario x seed of a bench once, whichever of its
// runs asks first; the others wait for it. The zero value is ready; safe for concurrent use.
type oracleCache struct {
	mu sync.Mutex
	m  map[[2]int64]*oracleEntry
}

// oracleEntry is one scenario x seed's oracle, computed once.
type oracleEntry struct {
	once sync.Once
	o    *report.Oracle
	err  error
}

// get returns the oracle of scenario number index (scn) with seed.
func (c *oracleCache) get(index int, scn scenarios.Scenario, seed int64) (*report.Oracle, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[[2]int64]*oracleEntry{}
	}
	key := [2]int64{int64(index), seed}
	e := c.m[key]
	if e == nil {
		e = &oracleEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.o, e.err = oracleOf(scn, seed) })
	return e.o, e.err
}
