package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/cortex-tui/cortex-tui/fleet"
	"github.com/cortex-tui/cortex-tui/fleet/redisstore"
	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/live"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui"
)

// liveOptions are the flags of `cortex-tui live`.
type liveOptions struct {
	scenario     string
	scenarioFile string
	strategy     string
	seed         int64
	seedSet      bool
	duration     time.Duration
	scale        float64
	maxRPS       float64
	maxInFlight  int
	target       string
	headless     bool
	present      bool // --present: open in presenter mode
	format       string
	compareSim   bool
	fleet        string
	instance     string
	fleetName    string
	budget       string
	engine       string // --engine: the cortex strategy's engine file
}

func init() { subcommands = append(subcommands, newLiveCmd) }

func newLiveCmd(io streams) *cobra.Command {
	var o liveOptions
	cmd := &cobra.Command{
		Use:   "live",
		Short: "Play a scenario as real HTTP traffic, in the dashboard or headless",
		Long: `live plays a scenario in real time as real HTTP requests: a fleet of clients, each with its own
retry strategy inside a cortexhttp transport, sends the scenario's classes and load profile
(open loop: arrivals never wait for answers) to an embedded target configured from the
scenario's [service], on 127.0.0.1, whose server runs a fault injector that plays the fault
timeline and the dashboard's fault keys. --target URL sends the traffic to your own service
instead, through a fault proxy: only that host is contacted. --scale shrinks rates and
capacity together; --max-rps caps the arrival rate of originals (retries come on top of it). --fleet redis://HOST:PORT makes this
process one instance of a fleet: its CORTEX engines sync with Redis every 200 ms and share the
fleet's failure view and one retry budget with every other instance of the same --fleet-name;
while Redis does not answer they decide alone (LOCAL) and rejoin when it does.`,
		Example: `  cortex-tui live --scenario black-friday
  cortex-tui live --scenario black-friday --strategy naive --headless --duration 30s --format table
  cortex-tui live --scenario-file my.toml --target http://127.0.0.1:8080/api --max-rps 200
  cortex-tui live --scenario shared-budget --scale 0.33 --target http://127.0.0.1:8080 --fleet redis://127.0.0.1:6379 --instance a`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, err: fmt.Errorf("live takes no arguments, got %q (use --scenario NAME or --scenario-file PATH)", args)}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.seedSet = cmd.Flags().Changed("seed")
			return runLive(cmd, io, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "built-in scenario name (see \"cortex-tui scenarios\") or a scenario file")
	f.StringVar(&o.scenarioFile, "scenario-file", "", "path of a scenario TOML file")
	f.StringVar(&o.strategy, "strategy", "", "retry strategy (default: the scenario's own, else cortex): "+strings.Join(strategy.Names(), ", "))
	f.Int64Var(&o.seed, "seed", 0, "random seed (default: the scenario's own)")
	f.DurationVar(&o.duration, "duration", 0, "length of the run in wall time; the requests alive at its end are waited for, up to 1s more (default: the scenario's duration plus its drain)")
	f.Float64Var(&o.scale, "scale", 1, "shrink the scenario's rates and the embedded target's capacity together by this factor, in (0, 1]")
	f.Float64Var(&o.maxRPS, "max-rps", live.DefaultMaxRPS, "cap on the arrival rate of originals, requests/s (the scale is lowered to keep the scenario's peak under it)")
	f.IntVar(&o.maxInFlight, "max-inflight", 0, fmt.Sprintf("most requests alive at once; an arrival beyond it is refused locally and counted (0: the scenario's peak rate x its deadline x %.3g, %d..%d)", live.InFlightMargin, live.DefaultMaxInFlight, live.MaxInFlightCeiling))
	f.StringVar(&o.target, "target", "", "send the traffic to this http(s) URL, your own service, instead of the embedded target")
	addPresentFlag(cmd, &o.present)
	f.BoolVar(&o.headless, "headless", false, "run without the dashboard and print the result: the summary (--format table), the per-second rows (csv) or both (json)")
	f.StringVar(&o.format, "format", "", "headless output: "+formatHelp(headlessFormats))
	f.StringVar(&o.fleet, "fleet", "", "join a fleet on this Redis: redis[s]://[USER[:PASSWORD]@]HOST:PORT[/DB][?addr=HOST:PORT&cluster=1&master=NAME&ca=FILE] (password also from $"+redisstore.PasswordEnv+")")
	f.StringVar(&o.budget, "budget", "", budgetHelp+"; shared without --fleet: one in-process budget for the run's clients (default: the scenario's own)")
	f.StringVar(&o.instance, "instance", "", "this process's name in the fleet (default: host name and process id)")
	f.StringVar(&o.fleetName, "fleet-name", "", "the fleet's name, its Redis keys' prefix (default: the scenario's name)")
	addEngineFlag(cmd, &o.engine)
	f.BoolVar(&o.compareSim, "compare-sim", false, "run the scenario live and in the simulator (same seed) and print their summaries side by side (--format table, json or markdown: one table row)")
	addKeysFlag(cmd)
	return cmd
}

// livePlan is a checked live command: the scenario, the strategy and the run's configuration
// without its stack, which each source builds anew.
type livePlan struct {
	scn      scenarios.Scenario
	askScale float64 // --scale as given: a scenario picked in the dashboard is scaled from it
	strategy string
	seed     int64
	scale    float64
	target   *url.URL
	fleet    *fleetPlan // nil without --fleet
	eng      engineFile // --engine
	cfg      live.Config
}

// planLive checks the flags and the scenario; every problem is a usage error (exit 2).
func planLive(io streams, o liveOptions) (livePlan, error) {
	usage := func(format string, a ...any) error { return &exitError{code: 2, err: fmt.Errorf(format, a...)} }
	name, file := o.scenario, o.scenarioFile
	scn, err := loadScenario(name, file)
	if err != nil {
		return livePlan{}, err
	}
	if err := live.CheckScenario(scn); err != nil {
		return livePlan{}, &exitError{code: 2, err: err}
	}
	if o.strategy == "" {
		o.strategy = cmp.Or(scn.Strategy, strategy.CortexName) // a recorded demo starts as it began
	}
	strat, err := checkStrategy(o.strategy)
	if err != nil {
		return livePlan{}, err
	}
	switch {
	case !(o.scale > 0 && o.scale <= 1):
		return livePlan{}, usage("--scale must be in (0, 1], got %v", o.scale)
	case !(o.maxRPS > 0) || math.IsInf(o.maxRPS, 0):
		return livePlan{}, usage("--max-rps must be a number > 0, got %v", o.maxRPS)
	case o.maxInFlight < 0 || o.maxInFlight > 1_000_000:
		return livePlan{}, usage("--max-inflight must be in 1..1000000 (0: derived from the scenario), got %d", o.maxInFlight)
	case o.duration < 0:
		return livePlan{}, usage("--duration must be >= 0, got %s", o.duration)
	}
	fp, err := planFleet(o, scn)
	if err != nil {
		return livePlan{}, err
	}
	eng, err := readEngineFile(io, o.engine)
	if err != nil {
		return livePlan{}, err
	}
	p := livePlan{scn: scn, strategy: strat, seed: scn.Seed, askScale: o.scale, fleet: fp, eng: eng}
	if o.seedSet {
		p.seed = o.seed
	}
	if o.target != "" {
		u, err := live.ParseTarget(o.target)
		if err != nil {
			return livePlan{}, &exitError{code: 2, err: err}
		}
		p.target = u
	}
	p.scale = live.ScaleFor(scn, o.scale, o.maxRPS)
	if p.scale < o.scale {
		fmt.Fprintf(io.err, "cortex-tui: %s peaks at %.0f requests/s; scaled by %.3g (rates and capacity together) to stay under --max-rps %g\n",
			scn.Name, scn.PeakRate(), p.scale, o.maxRPS)
	}
	p.cfg = live.Config{Scenario: scn, Strategy: strat, Seed: p.seed, Scale: p.scale, MaxRPS: o.maxRPS,
		MaxInFlight: o.maxInFlight, Duration: o.duration, Engine: eng.cfg, EngineName: eng.name}
	return p, nil
}

// stack returns the stack builder of a source of p running scn (the embedded target, scaled,
// or the user's service).
func (p livePlan) stack(scn scenarios.Scenario, seed int64) live.StackBuilder {
	if p.target != nil {
		return live.ExternalStack(p.target, live.DefaultDrainLimit)
	}
	return live.EmbeddedStack(live.ScaledTarget(scn.Service, p.scale, seed))
}

// liveSources builds and starts live sources and remembers them, so that every one is closed
// when the command ends whatever the dashboard did.
type liveSources struct {
	ctx  context.Context
	plan livePlan
	mu   sync.Mutex
	runs []*live.Run
}

// build is the dashboard's source factory: a live run of scn (from the picker, compare mode or
// the first run) with strategy name and seed, started at once.
func (s *liveSources) build(scn scenarios.Scenario, name string, seed int64) (source.Source, error) {
	if err := live.CheckScenario(scn); err != nil {
		return nil, err
	}
	cfg := s.plan.cfg
	cfg.Scenario, cfg.Strategy, cfg.Seed = scn, name, seed
	if scn.Name != s.plan.scn.Name {
		cfg.Scale = live.ScaleFor(scn, s.plan.askScale, cfg.MaxRPS)
	}
	cfg.Stack = s.plan.stack(scn, seed)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plan.fleet != nil {
		cfg.Join = s.plan.fleet.join(scn.Name, len(s.runs), cfg.Clock)
	}
	r, err := live.New(cfg)
	if err != nil {
		if errors.Is(err, fleet.ErrRefused) {
			return nil, &exitError{code: 2, err: err}
		}
		return nil, err
	}
	r.Start(s.ctx)
	s.runs = append(s.runs, r)
	return r, nil
}

// closeAll closes every run built.
func (s *liveSources) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		_ = r.Close()
	}
}

// runLive runs the live command.
func runLive(cmd *cobra.Command, io streams, o liveOptions) error {
	if o.present && (o.headless || o.compareSim) {
		return presentHeadless
	}
	var format report.Format[report.Result]
	var simFormat report.Format[simVsLive]
	var err error
	switch {
	case o.compareSim:
		if strings.EqualFold(strings.TrimSpace(o.format), "csv") {
			return &exitError{code: 2, err: fmt.Errorf("--compare-sim prints a table, json or markdown, not csv")}
		}
		simFormat, err = pickFormat(o.format, io.out, compareSimFormats)
	case o.headless:
		format, err = pickFormat(o.format, io.out, headlessFormats)
	}
	if err != nil {
		return err
	}
	p, err := planLive(io, o)
	if err != nil {
		return err
	}
	silenceNetLogs()
	if p.target != nil {
		if err := live.CheckTarget(cmd.Context(), p.target); err != nil {
			code := 1 // the target is down or its TLS is broken
			if errors.Is(err, live.ErrTargetURL) {
				code = 2 // the URL is wrong
			}
			return &exitError{code: code, err: err}
		}
	}
	if p.fleet != nil {
		warning, err := p.fleet.check(cmd.Context(), p.scn.Name, p.strategy)
		if err != nil {
			return err
		}
		if warning != "" {
			fmt.Fprintf(io.err, "cortex-tui: %s\n", warning)
		}
	}
	if o.compareSim {
		return compareSim(cmd.Context(), io, p, simFormat)
	}
	srcs := &liveSources{ctx: cmd.Context(), plan: p}
	defer srcs.closeAll()
	if o.headless {
		if cmd.Flags().Changed(keysFlag) {
			if _, err := loadKeys(cmd); err != nil {
				return err
			}
		}
		res, err := recordLive(cmd.Context(), srcs, p, io.err)
		if res.Meta.Scenario != "" { // a stop signal prints what was recorded so far
			if werr := format.Write(io.out, res); werr != nil && err == nil {
				err = werr
			}
		}
		return err
	}
	keys, err := loadKeys(cmd)
	if err != nil {
		return err
	}
	in, out, err := terminal(io, liveHeadlessCommand(o, p))
	if err != nil {
		return err
	}
	scn := p.scn
	opts := tui.Options{Keys: keys, Factory: srcs.build, Scenario: &scn, Strategy: p.strategy, Seed: p.seed, OnQuit: printResults(io.out), Present: o.present}
	return startDashboard(cmd.Context(), opts, in, out)
}

// liveHeadlessCommand is the headless equivalent of the dashboard run o asked for (p is its
// plan: the target's password is shown as "xxxxx").
func liveHeadlessCommand(o liveOptions, p livePlan) string {
	cmd := "cortex-tui live --scenario " + o.scenario
	if o.scenarioFile != "" {
		cmd = "cortex-tui live --scenario-file " + o.scenarioFile
	}
	cmd += " --headless"
	if o.strategy != "" && o.strategy != strategy.CortexName {
		cmd += " --strategy " + o.strategy
	}
	if p.target != nil {
		cmd += " --target " + shellQuote(p.target.Redacted())
	}
	if o.budget != "" {
		cmd += " --budget " + o.budget
	}
	if o.fleet != "" {
		shown := "URL"
		if c, err := redisstore.ParseURL(o.fleet, nil); err == nil {
			shown = c.String() // never the password
		}
		cmd += " --fleet " + shown
		if o.instance != "" {
			cmd += " --instance " + o.instance
		}
		if o.fleetName != "" {
			cmd += " --fleet-name " + o.fleetName
		}
	}
	return cmd
}

// silenceNetLogs stops the standard logger, through which net/http's transports log some of a
// target's misbehaviour (an answer on an idle connection): on stderr it would scribble over the
// dashboard, and the attempts it fails are counted anyway.
func silenceNetLogs() { log.SetOutput(io.Discard) }

// shellQuote quotes s for a POSIX shell when it holds a character the shell would act on.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n&?;|<>*$'\"()`\\#!~[]{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// liveSecondRecorded, when set (by tests), is called each time a headless live run has recorded
// a whole second of its timeline: a test that stops the run waits for it instead of a time.
var liveSecondRecorded func()

// recordLive runs one live source to its end (or ctx's) and records its snapshots as run
// --headless does: the same rows and summary; what the target does wrong (each EventTarget,
// once per cause) goes to told as it happens. On a stop signal it returns what was recorded,
// with the signal's cause.
func recordLive(ctx context.Context, srcs *liveSources, p livePlan, told io.Writer) (report.Result, error) {
	src, err := srcs.build(p.scn, p.strategy, p.seed)
	if err != nil {
		return report.Result{}, err
	}
	rec := report.NewRecorder(src.Meta())
	result := rec.Result
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, s := range src.Advance(0) {
				rec.Add(s)
				tell(told, s)
			}
			_ = src.Close()
			res := result()
			warnInFlightCap(told, p, res.Summary)
			return res, context.Cause(ctx)
		case <-tick.C:
		}
		for _, s := range src.Advance(0) {
			if _, closed := rec.Add(s); closed && liveSecondRecorded != nil {
				liveSecondRecorded()
			}
			tell(told, s)
			if s.Done {
				res := result()
				warnInFlightCap(told, p, res.Summary)
				return res, src.Close()
			}
		}
	}
}

// warnInFlightCap writes one line to w when the run of p summed up in s refused arrivals at its
// bound on requests alive at once: they are not the strategy's sheds, and the figures are not
// those of the scenario's load.
func warnInFlightCap(w io.Writer, p livePlan, s report.Summary) {
	if s.InFlightCapRefused == 0 {
		return
	}
	limit := cmp.Or(p.cfg.MaxInFlight, live.InFlightFor(p.scn, p.scale, p.cfg.MaxRPS))
	fmt.Fprintf(w, "cortex-tui: warning: %d of %d arrivals were refused at the in-flight cap (--max-inflight %d: requests alive at once), not by the strategy; raise --max-inflight to play the whole load\n",
		s.InFlightCapRefused, s.Originals, limit)
}

// tell writes what snapshot s says the target does wrong (its EventTarget texts), one line each.
func tell(w io.Writer, s source.Snapshot) {
	for _, e := range s.Events {
		if e.Kind == source.EventTarget {
			fmt.Fprintln(w, "cortex-tui:", safetext.Line(e.Text))
		}
	}
}
