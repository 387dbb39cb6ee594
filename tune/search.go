package tune

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

// Options configure a search. Scenarios, Train and Dims are required.
type Options struct {
	Scenarios []scenarios.Scenario // tuned together: the objective is the mean over them
	Train     []int64              // the seeds every candidate runs every scenario with
	Holdout   []int64              // the seeds the result is checked on, never searched on
	Objective Objective
	Dims      []Dim         // the parameters moved
	Base      engine.Config // where the search starts and what it is compared with (zero: engine.DefaultConfig)
	BaseName  string        // Base's name in the report (zero: "default")
	Seed      uint64        // the optimizer's random source: the same seed, the same search
	// Generations is the most generations of candidates (each Population candidates); 0 means
	// 30. The search stops earlier when it converges (Patience generations with no gain of
	// MinGain), when Evals are done or when Time runs out.
	Generations int
	// Evals, when > 0, bounds the candidates evaluated: the search stops at the end of the
	// generation that brings them to Evals or more (whole generations: ceil(Evals/Population)
	// of them at most). Unlike Time it does not depend on the machine's speed or load: the
	// same Seed and Evals, the same search anywhere.
	Evals int
	// Population is the number of candidates of a generation; 0 means CMA-ES's own, 4 + 3 ln(dims).
	Population int
	// Step is CMA-ES's initial step, a share of each parameter's range (the unit cube's side):
	// the standard deviation of each parameter in the first generation's draws; 0 means
	// DefaultStep.
	Step float64
	// Screen is the number of training seeds (the first ones) a candidate runs before the rest:
	// a candidate whose score on them is below the kept candidate's on the same seeds by more
	// than ScreenMargin is rejected there, its score estimated from them (the kept one's score
	// less the difference), and its other seeds are not run. 0 means a quarter of the training
	// seeds (5 of 20; none below 8 seeds); a negative Screen, or one of all the seeds, screens
	// nothing. The kept candidate changes only between generations, so the search stays a pure
	// function of the options.
	Screen int
	// Time, when > 0, bounds the search's wall time: no simulation of a candidate starts past
	// it (those running end; their unfinished generation is dropped), so the search ends
	// within a simulation's time of it (and a held-out check under way).
	Time time.Duration
	// Workers is the number of simulations run at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called after each candidate's evaluation, when a check on the
	// held-out seeds starts and at each generation's end, one call at a time.
	Progress func(Progress)
	// Clock is the wall clock of Time and Progress (nil: engine.WallClock).
	Clock engine.Clock
	// CPU, when set, returns the CPU time the process has used so far (cputime.Process):
	// Result.CPU is what the search used, for a rate per CPU-second that the machine's load
	// does not change as it does a wall-clock rate.
	CPU func() time.Duration

	// simulationStarted, when set, is called as each simulation starts (after Time's check),
	// on the worker that runs it: the tests move their clock with it.
	simulationStarted func()
	// evaluated, when set, is called with each candidate once it is evaluated (s.mu held): the
	// tests read the draws with it.
	evaluated func(Candidate)
}

// Convergence: a search that gains less than MinGain in Patience generations has converged.
const (
	MinGain  = 1e-4 // 0.01 point of the objective
	Patience = 8
)

// DefaultStep is CMA-ES's initial step when Options.Step is 0, a share of each parameter's
// range: the standard deviation of each parameter in the first generation's draws. The default
// engine is a sharp optimum in a few keys, and a draw moves every key at once: of 112 candidates
// drawn for black-friday, spotty-network and slow-ledger tuned together, 97 fell more than a
// point behind on the first seeds with 0.25 and 77 with 0.1, and the file found was +0.8, +2.6
// and +3.4 points held-out with 0.25, +4.0, +3.1 and +3.1 with 0.1.
const DefaultStep = 0.1

// ScreenMargin is how far below the kept candidate, in the objective's units, a candidate's score
// on the screening seeds (Options.Screen) must be for it to be rejected there: one point, where
// a candidate that beats the kept one on all the seeds is rarely a point behind it on the same
// first seeds (the scores of a configuration on the built-in scenarios move by a tenth of a point
// from one seed set to another).
const ScreenMargin = 0.01

// Progress is the state of a search after a candidate's evaluation.
type Progress struct {
	Evals, MaxEvals int // candidates evaluated, and the most the generations allow
	Generation      int // generations completed
	Generations     int // the most generations (Options.Generations)
	// Best and Default are the kept candidate's score and the default's on the training seeds,
	// BestHoldout and DefaultHoldout on the held-out seeds (zero without them).
	Best, Default               float64
	BestHoldout, DefaultHoldout float64
	Checking                    bool          // the held-out seeds are being run for a new best
	Elapsed                     time.Duration // since the search started (the default's evaluation included)
	Left                        time.Duration // estimated time left, by the evaluations left or Time, whichever ends first
}

// Candidate is one configuration the search evaluated, in the order they were started.
type Candidate struct {
	ID         int
	Generation int
	Config     engine.Config
	X          []float64 // its position in the unit cube
	Score      Score     // on the training seeds (on the screening seeds alone when Rejected)
	// Screen is its score's value on the screening seeds (Options.Screen); Rejected says it
	// ran only those, being more than ScreenMargin below the kept candidate on them.
	Screen   float64
	Rejected bool
}

// Result is what a search found and how: the best configuration and the default, on the
// training and the held-out seeds, and the search's course.
type Result struct {
	Base, Tuned                  engine.Config // the configuration searched from (Options.Base), and the best found
	Improved                     bool          // the best candidate beat the default on the training seeds (else Tuned is Base)
	DefaultTrain, TunedTrain     Score
	DefaultHoldout, TunedHoldout Score // zero without Holdout
	// Oracle is each scenario's oracle bound on the success rate (sim.Oracle: the most any
	// strategy could complete), mean over the held-out seeds; NaN for a closed loop, which has
	// none; nil without Holdout.
	Oracle []float64
	// Knowable is each scenario's client-knowable bound (sim.OracleWithout with
	// sim.ClientKnowable: the oracle without what a client-side engine cannot know, the
	// capacity of the moment, when a fault ends, the other clients' demand), as Oracle is.
	Knowable                      []float64
	Evals, Generations            int
	Checks                        int // held-out checks of a new best
	Rejected                      int // candidates rejected on the screening seeds (Options.Screen)
	Screen                        int // the screening seeds (0: none)
	Simulations                   int
	History                       []float64 // the best score after each generation, on the training seeds
	Stop                          string    // why the search stopped: "converged", "generations", "evaluations", "time", "interrupted"
	Elapsed                       time.Duration
	CPU                           time.Duration // the process's CPU time during the search (0 without Options.CPU)
	Population, Dimensions, Seeds int
}

// Run searches opts.Dims for the configuration that scores best on opts.Train, with gonum's
// CMA-ES (optimize.CmaEsChol) over the parameters rescaled to the unit cube, starting from
// opts.Base. Every candidate runs every scenario on every training seed in the simulator,
// opts.Workers simulations at once. At each generation's end its best candidate, when it beats
// the one kept, is scored on opts.Holdout and kept; the result is the candidate kept last (the
// Base when none beat it), with the Base's and its scores on both seed sets. The search is a
// pure function of opts (the same Seed, the same candidates and result, whatever the workers)
// except where Time or ctx stops it; when ctx is done it stops at once (Stop "interrupted"),
// keeping the candidate kept last. The error is a simulation's, or ctx's before the Base's
// scores are known.
func Run(ctx context.Context, opts Options) (Result, error) {
	if len(opts.Scenarios) == 0 || len(opts.Train) == 0 || len(opts.Dims) == 0 {
		return Result{}, errors.New("tune: no scenario, training seed or parameter")
	}
	if opts.Base.Window == 0 {
		opts.Base = engine.DefaultConfig()
	}
	if opts.Generations <= 0 {
		opts.Generations = 30
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Clock == nil {
		opts.Clock = engine.WallClock{}
	}
	var cpu0 time.Duration
	if opts.CPU != nil {
		cpu0 = opts.CPU()
	}
	s := &search{opts: opts, start: opts.Clock.Now(), pool: newPool(ctx, opts.Workers, opts.simulationStarted)}
	defer s.pool.close()
	s.screen = opts.Screen
	if s.screen == 0 && len(opts.Train) >= 8 {
		s.screen = (len(opts.Train) + 3) / 4
	}
	if s.screen < 0 || s.screen >= len(opts.Train) {
		s.screen = 0
	}
	s.pop = opts.Population
	if s.pop <= 0 {
		s.pop = 4 + int(3*math.Log(float64(len(opts.Dims))))
	}
	s.maxGens, s.maxGensStop = opts.Generations, "generations"
	if opts.Evals > 0 {
		if g := (opts.Evals + s.pop - 1) / s.pop; g < s.maxGens {
			s.maxGens, s.maxGensStop = g, "evaluations"
		}
	}
	res := Result{Base: opts.Base, Population: s.pop, Dimensions: len(opts.Dims), Seeds: len(opts.Train), Screen: s.screen}

	noneRuns, err := s.pool.runNone(opts.Scenarios, append(slices.Clone(opts.Train), opts.Holdout...))
	if err != nil {
		return Result{}, err
	}
	s.limits = limitsOf(noneRuns)
	defRuns, err := s.pool.runAll(opts.Scenarios, opts.Train, opts.Base, nil)
	if err != nil {
		return Result{}, err
	}
	s.defGoodput = goodputs(defRuns)
	res.DefaultTrain = score(opts.Objective, opts.Scenarios, defRuns, nil, s.limits)
	if opts.Objective == Goodput {
		res.DefaultTrain = score(opts.Objective, opts.Scenarios, defRuns, s.defGoodput, s.limits)
	}
	s.defScore, s.defTrain = res.DefaultTrain.Value, res.DefaultTrain
	var defScreen float64
	if s.screen > 0 {
		s.screenGoodput = goodputs(head(defRuns, s.screen))
		s.defScreen = score(opts.Objective, opts.Scenarios, head(defRuns, s.screen), s.screenGoodput, s.limits)
		defScreen = s.defScreen.Value
	}

	if len(opts.Holdout) > 0 {
		defH, err := s.pool.runAll(opts.Scenarios, opts.Holdout, opts.Base, nil)
		if err != nil {
			return Result{}, err
		}
		s.holdGoodput = goodputs(defH)
		res.DefaultHoldout = score(opts.Objective, opts.Scenarios, defH, s.holdGoodput, s.limits)
		if res.Oracle, err = oracles(opts.Scenarios, opts.Holdout, 0); err != nil {
			return Result{}, err
		}
		if res.Knowable, err = oracles(opts.Scenarios, opts.Holdout, sim.ClientKnowable); err != nil {
			return Result{}, err
		}
	}
	s.checked = Candidate{Config: opts.Base, Score: res.DefaultTrain, Screen: defScreen}
	s.checkedHoldout, s.defHoldout = res.DefaultHoldout, res.DefaultHoldout.Value

	if err := s.minimize(ctx); err != nil && !errors.Is(err, errStop) {
		return Result{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res.Tuned, res.TunedTrain, res.TunedHoldout = s.checked.Config, s.checked.Score, s.checkedHoldout
	res.Improved = s.checked.Score.Value > res.DefaultTrain.Value
	res.Evals, res.Generations, res.History, res.Stop, res.Checks = s.evals, s.gens, s.history, s.stop, s.checks
	res.Rejected = s.rejected
	if ctx.Err() != nil {
		res.Stop = "interrupted"
	}
	res.Simulations = s.pool.simulations()
	res.Elapsed = opts.Clock.Now().Sub(s.start)
	if opts.CPU != nil {
		res.CPU = opts.CPU() - cpu0
	}
	return res, nil
}

// errStop ends the optimizer's run from its Recorder.
var errStop = errors.New("tune: stop")

// search is one Run's state.
type search struct {
	opts  Options
	start time.Time
	pool  *pool
	pop   int
	// maxGens is the most generations (Options.Generations, or fewer for Options.Evals), and
	// maxGensStop the Stop of a search that does them all.
	maxGens     int
	maxGensStop string
	defGoodput  []float64
	defScore    float64
	// limits are none's peaks on every scenario and seed (training and held-out), which
	// AmplificationPenalty holds each run to.
	limits peakLimits
	// holdGoodput is the default's goodput per scenario on the held-out seeds.
	holdGoodput []float64
	// screen is the number of screening seeds (Options.Screen; 0: none), screenGoodput the
	// default's goodput per scenario on them.
	screen        int
	screenGoodput []float64
	// defTrain and defScreen are the default's scores on the training and the screening seeds,
	// which each scenario of a candidate is held to when several are tuned together (behind).
	defTrain, defScreen Score
	// checked is the best candidate of the generations completed whose held-out check is
	// done (the Base until a candidate beats it), checkedHoldout its held-out score: what a
	// search stopped at any moment returns.
	checked        Candidate
	checkedHoldout Score
	checking       bool    // a check is running
	checks         int     // checks done
	defHoldout     float64 // the default's score on the held-out seeds

	mu         sync.Mutex
	started    int         // candidates started (their IDs)
	cands      []Candidate // fully evaluated, in any order
	doneInGen  map[int]int // candidates evaluated per generation
	evals      int
	rejected   int // candidates rejected on the screening seeds
	gens       int // generations completed
	history    []float64
	stop       string
	stopping   bool
	noGainFrom float64 // the best score Patience generations ago
}

// minimize runs CMA-ES until a stop.
func (s *search) minimize(ctx context.Context) error {
	s.doneInGen = map[int]int{}
	s.noGainFrom = math.Inf(-1)
	init := Encode(s.opts.Dims, s.opts.Base)
	step := s.opts.Step
	if step <= 0 {
		step = DefaultStep
	}
	method := &optimize.CmaEsChol{
		// gonum draws a sample from the mean and InitCholesky alone (distmv.NormalRand with
		// the Cholesky factor): InitStepSize only scales the update of the paths and of the
		// covariance, never a draw, so with the identity as InitCholesky every first sample
		// has a standard deviation of 1, the whole cube, whatever the step. The step is put
		// into the covariance (step² on its diagonal) and InitStepSize is 1, which makes the
		// update's formulas those of CMA-ES with the step folded into the covariance.
		InitStepSize: 1,
		InitCholesky: initCovariance(len(init), step),
		Population:   s.pop,
		Src:          rand.NewPCG(s.opts.Seed, 0x636f72746578), // "cortex"
		StopLogDet:   math.NaN(),
	}
	settings := &optimize.Settings{
		InitValues: &optimize.Location{F: -s.defScore},
		Concurrent: s.pop,
		Converger:  optimize.NeverTerminate{},
		Recorder:   recorder{s, ctx},
	}
	problem := optimize.Problem{Func: func(x []float64) float64 { return s.evaluate(ctx, x) }}
	_, err := optimize.Minimize(problem, init, settings, method)
	return err
}

// initCovariance is the Cholesky factorisation of the first generation's covariance: step² on
// the diagonal of a dims-square matrix, each parameter drawn with a standard deviation of step
// (a share of its range, the unit cube's side).
func initCovariance(dims int, step float64) *mat.Cholesky {
	d := make([]float64, dims)
	for i := range d {
		d[i] = step * step
	}
	var c mat.Cholesky
	c.Factorize(mat.NewDiagDense(dims, d)) // positive on the diagonal: never fails
	return &c
}

// OutsidePenalty is the search's penalty, in the objective's units, per unit of distance a
// sample lies outside the unit cube (Decode reflects it inside): a tenth of MinGain, small
// beside what a parameter moves, so samples are ranked by their configurations' scores, and
// between equal scores the one inside the cube comes first, which keeps CMA-ES's mean near it.
const OutsidePenalty = MinGain / 10

// evaluate scores the candidate at x (the unit cube's coordinates) on the training seeds:
// minus its score, plus OutsidePenalty for its distance outside the cube. With screening seeds
// it runs those first, and a candidate more than ScreenMargin below the kept one on them stops
// there, scored the kept one's score less the difference. Once the search stops it returns
// NaN at once (CMA-ES skips such a sample).
func (s *search) evaluate(ctx context.Context, x []float64) float64 {
	if s.timeUp() || ctx.Err() != nil {
		return math.NaN()
	}
	s.mu.Lock()
	id := s.started
	s.started++
	kept := s.checked // fixed while a generation is evaluated: the next starts after Record
	s.mu.Unlock()
	cfg, out := Decode(s.opts.Dims, s.opts.Base, x)
	c := Candidate{ID: id, Generation: id / s.pop, Config: cfg, X: slices.Clone(x)}
	train := s.opts.Train
	var first [][]report.Summary
	value := 0.0
	if s.screen > 0 {
		var err error
		if first, err = s.pool.runAll(s.opts.Scenarios, train[:s.screen], cfg, s.timeUp); err != nil {
			return math.NaN()
		}
		sc := behind(score(s.opts.Objective, s.opts.Scenarios, first, s.screenGoodput, s.limits), s.defScreen)
		c.Screen = sc.Value
		if c.Screen < kept.Screen-ScreenMargin {
			c.Rejected = true
			c.Score = sc
			value = kept.Score.Value + c.Screen - kept.Screen
		}
		train = train[s.screen:]
	}
	if !c.Rejected {
		runs, err := s.pool.runAll(s.opts.Scenarios, train, cfg, s.timeUp)
		if err != nil {
			return math.NaN() // interrupted, or the time is up (a simulation error would be on the default too)
		}
		for i := range first {
			runs[i] = append(first[i], runs[i]...)
		}
		c.Score = behind(score(s.opts.Objective, s.opts.Scenarios, runs, s.defGoodput, s.limits), s.defTrain)
		value = c.Score.Value
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cands = append(s.cands, c)
	if s.opts.evaluated != nil {
		s.opts.evaluated(c)
	}
	s.doneInGen[c.Generation]++
	s.evals++
	if c.Rejected {
		s.rejected++
	}
	if s.opts.Progress != nil {
		s.opts.Progress(s.progress())
	}
	return -value + OutsidePenalty*out
}

// head returns the runs of each scenario's first n seeds.
func head(runs [][]report.Summary, n int) [][]report.Summary {
	out := make([][]report.Summary, len(runs))
	for i, rs := range runs {
		out[i] = rs[:n]
	}
	return out
}

// timeUp reports whether the search is stopping, and stops it once Time is up: no candidate
// nor simulation of one starts after it, and the generation under way is left unfinished.
func (s *search) timeUp() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopping && s.opts.Time > 0 && s.opts.Clock.Now().Sub(s.start) >= s.opts.Time {
		s.stop, s.stopping = "time", true
	}
	return s.stopping
}

// progress is the search's state (s.mu held).
func (s *search) progress() Progress {
	p := Progress{Evals: s.evals, MaxEvals: s.maxGens * s.pop, Generation: s.gens, Generations: s.maxGens, Default: s.defScore,
		Best: s.checked.Score.Value, Checking: s.checking, Elapsed: s.opts.Clock.Now().Sub(s.start)}
	if len(s.opts.Holdout) > 0 {
		p.BestHoldout, p.DefaultHoldout = s.checkedHoldout.Value, s.defHoldout
	}
	if s.evals > 0 {
		p.Left = time.Duration(float64(p.Elapsed) / float64(s.evals) * float64(max(0, p.MaxEvals-s.evals)))
	}
	if s.opts.Time > 0 {
		p.Left = min(p.Left, max(0, s.opts.Time-p.Elapsed))
	}
	return p
}
