package tune

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// small is a short scenario with an outage, cheap enough to run many times: 20 s of arrivals
// at 40 requests/s against a capacity of 100/s, 5 s down at 8 s.
func small() scenarios.Scenario {
	return scenarios.Scenario{
		Name: "small", Duration: 20 * time.Second, Drain: 5 * time.Second, Clients: 4,
		Classes: []scenarios.Class{{Name: "payment", Priority: 9, Rate: 20}, {Name: "analytics", Priority: 1, Rate: 20}},
		Service: scenarios.Service{Workers: 10, ServiceTime: 100 * time.Millisecond, Sigma: 0.25, QueueLimit: 50, WarmStart: 0.3, RefusalCost: 0.1},
		Faults:  []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 8 * time.Second, Duration: 5 * time.Second}},
	}
}

// smallOptions searches the budget and the retry groups on small over three seeds.
func smallOptions(t *testing.T) Options {
	dims, err := ParseDims([]string{"budget", "retry"})
	require.NoError(t, err)
	return Options{Scenarios: []scenarios.Scenario{small()}, Train: []int64{1, 2, 3}, Holdout: []int64{4, 5},
		Dims: dims, Seed: 7, Generations: 3, Population: 4}
}

// Asserts that a search is a pure function of its options: the same seed gives the same
// candidates and result, another seed another search; that the result is never below the
// default on the training seeds; and that each generation is counted.
func TestSearchIsDeterministic(t *testing.T) {
	a, err := Run(context.Background(), smallOptions(t))
	require.NoError(t, err)
	opts := smallOptions(t)
	opts.Workers = 1
	b, err := Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, a.Tuned, b.Tuned, "the same seed, the same result, whatever the workers")
	assert.Equal(t, a.History, b.History)
	assert.Equal(t, 3, a.Generations)
	assert.Equal(t, 12, a.Evals)
	assert.Len(t, a.History, 3)
	assert.GreaterOrEqual(t, a.TunedTrain.Value, a.DefaultTrain.Value)
	assert.Equal(t, 3*(1+12)+2*(1+a.Checks), a.Simulations, "the default and 12 candidates on 3 seeds, the default and each new best on 2 held-out seeds")
	require.Len(t, a.Oracle, 1)
	require.Len(t, a.Knowable, 1)
	assert.Greater(t, a.Knowable[0], 0.0)
	assert.LessOrEqual(t, a.Knowable[0], a.Oracle[0], "the client-knowable bound is at most the oracle's")
	assert.Equal(t, a.Improved, a.Checks > 0)
	assert.LessOrEqual(t, a.Checks, a.Generations, "one check at most per generation")
	require.NoError(t, a.Tuned.Validate())

	opts = smallOptions(t)
	opts.Seed = 8
	c, err := Run(context.Background(), opts)
	require.NoError(t, err)
	assert.NotEqual(t, a.History, c.History, "another seed, another search")
}

// Asserts that a search stopped by its context keeps the best candidate fully evaluated so far.
func TestSearchInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	opts := smallOptions(t)
	opts.Generations = 50
	n := 0
	opts.Progress = func(p Progress) {
		n++
		if p.Evals == 6 {
			cancel()
		}
	}
	res, err := Run(ctx, opts)
	require.NoError(t, err)
	assert.Equal(t, "interrupted", res.Stop)
	assert.GreaterOrEqual(t, res.Evals, 6)
	assert.Less(t, res.Evals, 50*4)
	assert.GreaterOrEqual(t, res.TunedTrain.Value, res.DefaultTrain.Value)
}

// Asserts the rescaling: a configuration encodes into the unit cube and decodes back to itself
// (within the rounding), on a log scale where the range is one, and that a point outside the
// cube is reflected into it (as far inside as it was outside) and measured.
func TestSpace(t *testing.T) {
	dims, err := ParseDims(DefaultGroups)
	require.NoError(t, err)
	def := engine.DefaultConfig()
	u := Encode(dims, def)
	for i, x := range u {
		assert.True(t, x >= 0 && x <= 1, "%s: %v", dims[i].Param.Path(), x)
	}
	back, out := Decode(dims, def, u)
	assert.Zero(t, out)
	for _, d := range dims {
		assert.InDelta(t, d.Param.Get(def), d.Param.Get(back), 0.002*max(1, d.Param.Get(def)), d.Param.Path())
	}
	in := slices.Clone(u)
	in[0], in[1] = 0.5, 0.75
	want, _ := Decode(dims, def, in)
	u[0], u[1] = -0.5, 1.25
	got, out := Decode(dims, def, u)
	assert.InDelta(t, 0.75, out, 1e-12)
	assert.Equal(t, want, got, "-0.5 is 0.5 and 1.25 is 0.75")
	for _, tc := range []struct{ u, want float64 }{{0, 0}, {1, 1}, {0.3, 0.3}, {-0.2, 0.2}, {1.1, 0.9}, {2.3, 0.3}, {-1.5, 0.5}, {math.NaN(), 0.5}, {math.Inf(1), 0.5}} {
		assert.InDelta(t, tc.want, reflect(tc.u), 1e-12, "%v", tc.u)
	}
	_, err = ParseDims([]string{"budget", "nope"})
	assert.ErrorContains(t, err, `unknown parameter "nope"`)
	one, err := ParseDims([]string{"budget.capacity"})
	require.NoError(t, err)
	require.Len(t, one, 1)
	p, _ := engineconf.ByPath("budget.capacity")
	assert.Equal(t, p, one[0].Param)
}

// simClock is a clock moved by the search's simulations: 1 s as each one starts, whatever the
// machine's speed or load and however often the search reads it. With one worker the
// simulations start one at a time, so the k-th one (from 0) checks the time at k seconds.
type simClock struct {
	mu sync.Mutex
	t  time.Duration
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Time{}.Add(c.t)
}

func (c *simClock) started() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t += time.Second
}

// Asserts that Time bounds the search, on a clock the simulations move (1 s as each starts, one
// worker): the default runs 3 training and 2 held-out simulations (5 s), a generation 4
// candidates of 3 (12 s). With 11 s only 6 of the generation's simulations start, the
// generation is dropped and the default kept; with 17 s all 12 start, the generation counts and
// the search stops at its end. No simulation starts past the time. The report says why it
// stopped.
func TestSearchTimeBound(t *testing.T) {
	for _, tc := range []struct {
		limit time.Duration
		gens  int
		sims  int // simulations of the default and the candidates (the held-out checks aside)
	}{{11 * time.Second, 0, 11}, {17 * time.Second, 1, 17}} {
		opts := smallOptions(t)
		clock := &simClock{}
		opts.Generations, opts.Time, opts.Clock, opts.simulationStarted, opts.Workers = 50, tc.limit, clock, clock.started, 1
		res, err := Run(context.Background(), opts)
		require.NoError(t, err)
		assert.Equal(t, "time", res.Stop, "%s", tc.limit)
		assert.Equal(t, tc.gens, res.Generations, "%s", tc.limit)
		assert.Equal(t, tc.sims+2*res.Checks, res.Simulations, "%s: no simulation started past the time", tc.limit)
		if tc.gens == 0 {
			assert.False(t, res.Improved, "no generation completed: the default is kept")
			assert.Equal(t, res.Base, res.Tuned)
			assert.Less(t, res.Evals, 4)
		}
		var b strings.Builder
		require.NoError(t, WriteTable(&b, res, opts))
		assert.Contains(t, b.String(), "stopped: its time was up")
		assert.Contains(t, b.String(), "small success")
		assert.Contains(t, b.String(), "payment (priority 9)")
		b.Reset()
		require.NoError(t, WriteMarkdown(&b, res, opts))
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		require.Len(t, lines, 3, "the header and one row per scenario")
		assert.Contains(t, lines[0], "| evaluations | time | evaluations/s |", "no CPU time measured: the wall time")
		assert.Regexp(t, `^\| small \| \d+\.\d% \| \d+\.\d% \| \d+\.\d% \| \d+\.\d% \| [+-]\d+\.\d \| \d+\.\d% \| \d+\.\d% \| \d\.\d\dx -> \d\.\d\dx \| \d+ \| [0-9hms]+ \| \d+\.\d\d \| time \| (written|not written: no gain|refused: worse on held-out) \|$`, lines[2])
	}
}

// Asserts that Evals bounds the search in whole generations, whatever the time it takes: 6
// evaluations with 4 candidates a generation are 2 generations (8 evaluations), the same
// candidates and result as a search of 2 generations, and the report says why it stopped and
// how fast it went per CPU-second (on a CPU clock the test moves: 1 s per reading).
func TestSearchEvalBudget(t *testing.T) {
	// Two searches of 8 evaluations on 3 seeds: what they check is the evaluation budget, not the
	// pool's concurrency, which TestSearchIsDeterministic and TestSearchInterrupted check under the
	// race detector.
	racedetect.SkipWholeRuns(t)
	opts := smallOptions(t)
	opts.Generations, opts.Evals = 50, 6
	var cpu time.Duration
	opts.CPU = func() time.Duration { cpu += time.Second; return cpu }
	a, err := Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, "evaluations", a.Stop)
	assert.Equal(t, 2, a.Generations)
	assert.Equal(t, 8, a.Evals)
	assert.Equal(t, time.Second, a.CPU, "the CPU time between the search's two readings")

	opts = smallOptions(t)
	opts.Generations = 2
	b, err := Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, "generations", b.Stop)
	assert.Equal(t, a.Tuned, b.Tuned, "an evaluation budget is a number of generations: the same search")
	assert.Equal(t, a.History, b.History)

	var w strings.Builder
	require.NoError(t, WriteTable(&w, a, opts))
	assert.Contains(t, w.String(), "stopped: the evaluations were done")
	assert.Contains(t, w.String(), "1s of CPU, 8.00 evaluations per CPU-second")
	w.Reset()
	require.NoError(t, WriteMarkdown(&w, a, opts))
	assert.Contains(t, w.String(), "| evaluations | CPU time | evaluations per CPU-second |")
	assert.Contains(t, w.String(), "| 8 | 1s | 8.00 | evaluations |")
}

// Asserts when a tuned engine may be written: not worse than the default on the held-out
// seeds, or on the training seeds without them.
func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		train, hold float64 // tuned - default
		holdout     bool
		want        bool
	}{
		{0.02, 0.01, true, true},
		{0.02, 0, true, true},
		{0.02, -0.001, true, false},
		{0.02, -0.5, false, true},
		{-0.01, 0, false, false},
	} {
		r := Result{DefaultTrain: Score{Value: 0.5}, TunedTrain: Score{Value: 0.5 + tc.train},
			DefaultHoldout: Score{Value: 0.6}, TunedHoldout: Score{Value: 0.6 + tc.hold}}
		assert.Equal(t, tc.want, r.Holds(tc.holdout), "%+v", tc)
	}
}

// Asserts that a file tuned for several scenarios holds only on each of them: better on the
// mean of the held-out seeds but worse on one scenario is refused, and Behind names it; on one
// scenario the mean and the scenario agree.
func TestHoldsOnEachScenario(t *testing.T) {
	sc := func(vals ...float64) Score {
		var s Score
		for i, v := range vals {
			s.Scenarios = append(s.Scenarios, ScenarioScore{Scenario: string(rune('a' + i)), Objective: v})
			s.Value += v / float64(len(vals))
		}
		return s
	}
	r := Result{DefaultTrain: sc(0.8, 0.9), TunedTrain: sc(0.85, 0.9), DefaultHoldout: sc(0.8, 0.9), TunedHoldout: sc(0.85, 0.89)}
	assert.False(t, r.Holds(true), "the mean gains, b loses a point")
	assert.Equal(t, []int{1}, r.Behind(true))
	assert.True(t, r.Holds(false), "on the training seeds neither loses")
	assert.Empty(t, r.Behind(false))
	r.TunedHoldout = sc(0.85, 0.9)
	assert.True(t, r.Holds(true))
}

// Asserts the penalty of scenarios tuned together: twice the points each falls below the
// base, over the number of scenarios; none for a scenario above it, nor for a single scenario.
func TestBehind(t *testing.T) {
	two := func(a, b float64) Score {
		s := Score{Scenarios: []ScenarioScore{{Objective: a}, {Objective: b, Crashes: 0}}, Value: (a + b) / 2, Objective: (a + b) / 2}
		return s
	}
	got := behind(two(0.95, 0.88), two(0.9, 0.9))
	assert.InDelta(t, BehindPenalty*0.02/2, got.Penalty, 1e-12)
	assert.InDelta(t, 0.915-BehindPenalty*0.02/2, got.Value, 1e-12)
	one := Score{Scenarios: []ScenarioScore{{Objective: 0.5}}, Value: 0.5}
	assert.Equal(t, one, behind(one, Score{Scenarios: []ScenarioScore{{Objective: 0.9}}, Value: 0.9}))
}

// Asserts the screening of candidates on the first training seeds: with eight seeds a
// candidate runs two first (a quarter), and one more than ScreenMargin below the kept candidate
// on them runs no more (the simulations count two for it, eight for the others); the search
// stays a pure function of its options whatever the workers; a rejected candidate is never
// kept; without screening nothing is rejected and every candidate runs every seed.
func TestSearchScreening(t *testing.T) {
	// Three searches of 12 evaluations on up to 8 seeds on one scenario: what they check is the
	// screening, not the pool's concurrency (the same runAll with or without screening), which
	// TestSearchIsDeterministic and TestSearchInterrupted check under the race detector.
	racedetect.SkipWholeRuns(t)
	opts := func() Options {
		o := smallOptions(t)
		o.Train, o.Step = []int64{1, 2, 3, 4, 5, 6, 7, 8}, 1 // a wide step: some candidates far worse
		return o
	}
	a, err := Run(context.Background(), opts())
	require.NoError(t, err)
	assert.Equal(t, 2, a.Screen)
	assert.Positive(t, a.Rejected, "a step of the whole range draws candidates far below the default")
	assert.Less(t, a.Rejected, a.Evals)
	assert.Equal(t, 8+8*(a.Evals-a.Rejected)+2*a.Rejected+2*(1+a.Checks), a.Simulations,
		"the default on 8 seeds, a rejected candidate on 2, the others on 8, the held-out checks on 2")
	assert.GreaterOrEqual(t, a.TunedTrain.Value, a.DefaultTrain.Value)
	assert.Len(t, a.TunedTrain.Scenarios, 1)

	o := opts()
	o.Workers = 1
	b, err := Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, a.Tuned, b.Tuned, "the same seed, the same result, whatever the workers")
	assert.Equal(t, a.History, b.History)
	assert.Equal(t, a.Rejected, b.Rejected)

	o = opts()
	o.Screen = -1
	c, err := Run(context.Background(), o)
	require.NoError(t, err)
	assert.Zero(t, c.Screen)
	assert.Zero(t, c.Rejected)
	assert.Equal(t, 8*(1+c.Evals)+2*(1+c.Checks), c.Simulations, "every candidate on every seed")

	var w strings.Builder
	require.NoError(t, WriteTable(&w, a, opts()))
	assert.Contains(t, w.String(), "evaluations were rejected on the first 2 training seeds")
}

// Asserts that a candidate tuned for several scenarios that scores below the default on one of
// them on the training seeds by more than the seeds' noise is never kept, whatever its mean; that
// one behind by less than the noise may be; with one scenario the mean decides.
func TestBehindDefaultNeverKept(t *testing.T) {
	// two gives a score on two scenarios from each one's values seed by seed (their means).
	two := func(a, b []float64) Score {
		ss := func(v []float64) ScenarioScore {
			m := 0.0
			for _, x := range v {
				m += x / float64(len(v))
			}
			return ScenarioScore{Objective: m, PerSeed: v}
		}
		s := Score{Scenarios: []ScenarioScore{ss(a), ss(b)}}
		s.Value = (s.Scenarios[0].Objective + s.Scenarios[1].Objective) / 2
		return s
	}
	def := two([]float64{0.9, 0.9}, []float64{0.9, 0.9})
	for _, tc := range []struct {
		name string
		a, b []float64
		kept bool
	}{
		{"ahead on both", []float64{0.95, 0.95}, []float64{0.91, 0.91}, true},
		{"a point behind on b, seed after seed", []float64{0.99, 0.99}, []float64{0.89, 0.89}, false},
		{"behind on b by less than its noise", []float64{0.99, 0.99}, []float64{0.91, 0.88}, true},    // -0.005, noise 0.015
		{"behind on b by more than its noise", []float64{0.99, 0.99}, []float64{0.885, 0.875}, false}, // -0.02, noise 0.005
	} {
		s := &search{defTrain: def, pop: 1, checked: Candidate{Score: def}}
		s.cands = []Candidate{{ID: 0, Score: two(tc.a, tc.b)}}
		_, ok := s.bestOf(0)
		assert.Equal(t, tc.kept, ok, tc.name)
	}
	one := &search{defTrain: Score{Scenarios: []ScenarioScore{{Objective: 0.9}}}}
	assert.False(t, one.behindDefault(Candidate{Score: Score{Scenarios: []ScenarioScore{{Objective: 0.5}}}}))
}

// Asserts that the held-out check of scenarios tuned together allows no noise: a file behind
// the default on one scenario's held-out seeds by less than their noise is still refused, and
// the training seeds' tolerance does not reach it.
func TestHoldoutAllowsNoNoise(t *testing.T) {
	ss := func(v ...float64) ScenarioScore {
		m := 0.0
		for _, x := range v {
			m += x / float64(len(v))
		}
		return ScenarioScore{Objective: m, PerSeed: v}
	}
	def := Score{Scenarios: []ScenarioScore{ss(0.8, 0.8), ss(0.9, 0.9)}, Value: 0.85}
	tuned := Score{Scenarios: []ScenarioScore{ss(0.9, 0.9), ss(0.91, 0.88)}, Value: 0.8975} // b: -0.005, noise 0.015
	require.Greater(t, Noise(tuned.Scenarios[1], def.Scenarios[1]), def.Scenarios[1].Value()-tuned.Scenarios[1].Value())
	r := Result{DefaultTrain: def, TunedTrain: def, DefaultHoldout: def, TunedHoldout: tuned}
	assert.False(t, r.Holds(true), "better on the mean, behind on b within its noise")
	assert.Equal(t, []int{1}, r.Behind(true))
}

// Asserts that scenarios tuned together give one engine that holds on each of them: on two
// small outages (5 s and 3 s long, at 8 s and 12 s), the search keeps a candidate better than
// the default on the mean of the training seeds and no worse on each scenario's held-out seeds,
// the result a file is written for.
func TestTogetherHolds(t *testing.T) {
	short := small()
	short.Name, short.Faults = "short", []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 12 * time.Second, Duration: 3 * time.Second}}
	opts := smallOptions(t)
	opts.Scenarios = append(opts.Scenarios, short)
	opts.Train, opts.Holdout = seeds(1, 10), seeds(11, 20)
	res, err := Run(context.Background(), opts)
	require.NoError(t, err)
	require.Len(t, res.TunedHoldout.Scenarios, 2)
	assert.True(t, res.Improved, "a candidate beat the default on the training seeds")
	assert.Greater(t, res.TunedTrain.Value, res.DefaultTrain.Value)
	assert.Empty(t, res.Behind(true), "no scenario worse on the held-out seeds")
	assert.True(t, res.Holds(true))
	for i, ss := range res.TunedHoldout.Scenarios {
		t.Logf("%s: held-out %.4f -> %.4f, training %.4f -> %.4f", ss.Scenario, res.DefaultHoldout.Scenarios[i].Value(), ss.Value(),
			res.DefaultTrain.Scenarios[i].Value(), res.TunedTrain.Scenarios[i].Value())
	}
}

// seeds returns the seeds from a to b.
func seeds(a, b int64) []int64 {
	var out []int64
	for s := a; s <= b; s++ {
		out = append(out, s)
	}
	return out
}

// Asserts the no-harm penalties of a score, on the worst run as the bench's targets count
// them: a peak amplification above 2.0x costs AmplificationPenalty per unit above it, none's
// own peak on the same seed raising the limit where it is higher (a scenario whose layers
// amplify); wasted retries above 15% of the originals cost WastePenalty per unit above; runs
// within both limits cost nothing. The limits come from none's runs (limitsOf), seed by seed.
func TestHarmPenalties(t *testing.T) {
	scn := small()
	run := func(seed int64, peak float64, wasted int) report.Summary {
		return report.Summary{Seed: seed, SuccessRate: 0.9, Originals: 1000, PeakAmplification: peak, WastedRetries: wasted,
			PrioritySuccess: map[string]float64{"9": 0.9, "1": 0.9}}
	}
	none := limitsOf([][]report.Summary{{run(1, 1, 0), run(2, 2.5, 0)}})
	tests := []struct {
		name      string
		runs      []report.Summary
		ampExcess float64
		waste     float64
	}{
		{"within the limits", []report.Summary{run(1, 1.9, 100), run(2, 2.4, 150)}, 0, 0},
		{"above 2.0x, none's peak 1.0x", []report.Summary{run(1, 2.1, 0)}, 0.1, 0},
		{"above none's own 2.5x", []report.Summary{run(2, 2.7, 0)}, 0.2, 0},
		{"a seed none never ran: 2.0x", []report.Summary{run(3, 2.3, 0)}, 0.3, 0},
		{"wasted 20% of the originals", []report.Summary{run(1, 1, 200)}, 0, 0.05},
		{"the worst seed, not the mean", []report.Summary{run(1, 2.2, 250), run(2, 1, 0)}, 0.2, 0.1},
		{"the worst of two over", []report.Summary{run(1, 2.1, 200), run(3, 2.3, 160)}, 0.3, 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := score(Success, []scenarios.Scenario{scn}, [][]report.Summary{tt.runs}, nil, none)
			require.Len(t, s.Scenarios, 1)
			ss := s.Scenarios[0]
			assert.InDelta(t, tt.ampExcess, ss.AmpExcess, 1e-9)
			assert.InDelta(t, tt.waste, ss.WasteExcess, 1e-9)
			want := AmplificationPenalty*tt.ampExcess + WastePenalty*tt.waste
			assert.InDelta(t, want, s.Penalty, 1e-9)
			assert.InDelta(t, 0.9-want, s.Value, 1e-9)
			assert.InDelta(t, s.Value, ss.Value(), 1e-9)
		})
	}
}
