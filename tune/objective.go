package tune

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Objective is what a configuration is scored by, over every run of the training seeds.
type Objective int

// The objectives of --objective.
const (
	// Success is the mean success rate (originals completed within the deadline) over the
	// scenarios, each scenario the mean over its seeds.
	Success Objective = iota
	// Goodput is the mean over the scenarios of the goodput (originals completed per second)
	// relative to the default engine's on the same scenario and seeds: 1 is the default's.
	Goodput
	// Priority is the mean over the scenarios of the success rate of each priority weighted by
	// the priority plus one (payment at 9 counts ten times analytics at 0).
	Priority
)

// Objectives are the names of --objective, in the order of the constants.
var Objectives = []string{"success", "goodput", "priority"}

// String returns the objective's name.
func (o Objective) String() string {
	if int(o) < len(Objectives) {
		return Objectives[o]
	}
	return fmt.Sprintf("Objective(%d)", int(o))
}

// ParseObjective returns the objective named s.
func ParseObjective(s string) (Objective, error) {
	i := slices.Index(Objectives, strings.ToLower(strings.TrimSpace(s)))
	if i < 0 {
		return 0, fmt.Errorf("unknown objective %q (valid: %s)", s, strings.Join(Objectives, ", "))
	}
	return Objective(i), nil
}

// The penalties of the score, in points of the objective (a point is 0.01).
const (
	// CrashPenalty is taken for every crash of the service in a run, averaged over the seeds:
	// a configuration that crashes the service once in twenty runs loses 0.5 point.
	CrashPenalty = 0.10
	// InversionPenalty multiplies the points by which a class is served better than a class of
	// a higher priority, beyond InversionSlack, summed over the pairs.
	InversionPenalty = 2.0
	// InversionSlack is the difference of success between two classes that is not an
	// inversion (the bench's targets allow one point).
	InversionSlack = 0.01
	// AmplificationPenalty multiplies how far the peak amplification of the scenario's worst
	// run exceeds the bench's no-harm limit (report.TargetPeakAmplification, 2.0x, or none's
	// own peak on the same scenario and seed where the scenario's layers amplify more): one
	// run at 2.05x costs 5 points, whatever the other seeds, as the bench's targets count the
	// worst seed. Steep, so that the search never buys success with a load peak the bench
	// would count as harm, and continuous, so that it still ranks.
	AmplificationPenalty = 1.0
	// WastePenalty multiplies how far the wasted retries (retries that failed) of the
	// scenario's worst run exceed report.TargetWasted (15%) of its originals: a point above
	// costs a point.
	WastePenalty = 1.0
)

// peakLimits is, per scenario (in the order of the search's) and seed, none's peak
// amplification: with report.TargetPeakAmplification, the peak a run may reach without
// AmplificationPenalty (limit).
type peakLimits []map[int64]float64

// limitsOf returns the peak limits of none's runs, runs[i][j] scenario i with seed j.
func limitsOf(runs [][]report.Summary) peakLimits {
	l := make(peakLimits, len(runs))
	for i, rs := range runs {
		l[i] = make(map[int64]float64, len(rs))
		for _, r := range rs {
			l[i][r.Seed] = r.PeakAmplification
		}
	}
	return l
}

// limit is the peak amplification scenario i's run of seed may reach without a penalty:
// report.TargetPeakAmplification, or none's peak on the same seed when it is higher.
func (l peakLimits) limit(i int, seed int64) float64 {
	if i < len(l) {
		if v, ok := l[i][seed]; ok {
			return max(report.TargetPeakAmplification, v)
		}
	}
	return report.TargetPeakAmplification
}

// BehindPenalty multiplies, in a search over several scenarios, the points by which each
// scenario's value falls below the base engine's on the same seeds by more than the seeds'
// noise (Noise), summed over the scenarios and divided by their number (as the objective is):
// one file for several services must hold on each of them, and a gain on one does not buy a
// loss on another. A single scenario's search never takes it (a candidate below the base is
// never kept).
const BehindPenalty = 2.0

// behind returns s less BehindPenalty for each of its scenarios below base's by more than
// Noise (scenarios tuned together; s unchanged for one scenario).
func behind(s, base Score) Score {
	if len(s.Scenarios) < 2 || len(base.Scenarios) != len(s.Scenarios) {
		return s
	}
	var sum float64
	for i, ss := range s.Scenarios {
		sum += max(0, base.Scenarios[i].Value()-ss.Value()-Noise(ss, base.Scenarios[i]))
	}
	p := BehindPenalty * sum / float64(len(s.Scenarios))
	s.Penalty += p
	s.Value -= p
	return s
}

// Noise is the standard error of the mean of a's values less b's, paired by seed (their
// PerSeed, which hold the same seeds in the same order): the spread from seed to seed of what
// a candidate changes on a scenario, over the square root of the seeds. A difference of the
// means within it is what another draw of as many seeds would move; a scenario whose outcome
// barely depends on the seed (thousands of requests a second) has a noise near 0, so a drop
// there is a drop. 0 with fewer than two seeds in common.
func Noise(a, b ScenarioScore) float64 {
	n := min(len(a.PerSeed), len(b.PerSeed))
	if n < 2 {
		return 0
	}
	var mean, sq float64
	for k := range n {
		mean += (a.PerSeed[k] - b.PerSeed[k]) / float64(n)
	}
	for k := range n {
		d := a.PerSeed[k] - b.PerSeed[k] - mean
		sq += d * d
	}
	return math.Sqrt(sq / float64(n-1) / float64(n))
}

// ClassScore is one priority of a scenario: its classes' names and their success, mean over
// the seeds.
type ClassScore struct {
	Priority int
	Names    string // the scenario's classes of this priority, "payment" or "a, b"
	Success  float64
}

// ScenarioScore is one configuration on one scenario, the means over the seeds.
type ScenarioScore struct {
	Scenario    string
	Success     float64
	Goodput     float64 // originals completed per second
	Crashes     float64 // crashes per run
	Inversions  float64 // points of inversion per run, beyond InversionSlack, summed over the pairs
	PeakAmp     float64 // peak amplification, mean over the runs
	AmpExcess   float64 // how far the peak amplification exceeded its limit, in the worst run
	Wasted      float64 // wasted retries over originals, mean over the runs
	WasteExcess float64 // how far that share exceeded report.TargetWasted, in the worst run
	Classes     []ClassScore
	Objective   float64 // the scenario's term of the objective, before penalties
	// PerSeed is Value on each seed's run alone, in the order of the seeds (what Noise pairs).
	PerSeed []float64
}

// Value is the scenario's term of the objective less its own penalties (Penalty).
func (ss ScenarioScore) Value() float64 { return ss.Objective - ss.Penalty() }

// Penalty is the scenario's own penalties: crashes, inversions, a peak amplification above
// its limit and wasted retries above their target.
func (ss ScenarioScore) Penalty() float64 {
	return CrashPenalty*ss.Crashes + InversionPenalty*ss.Inversions +
		AmplificationPenalty*ss.AmpExcess + WastePenalty*ss.WasteExcess
}

// Score is one configuration over every scenario and seed: its per-scenario figures, the
// objective (higher is better) and the penalties taken from it.
type Score struct {
	Scenarios []ScenarioScore
	Objective float64 // mean of the scenarios' terms
	Penalty   float64 // the scenarios' own (ScenarioScore.Penalty) and, tuned together, scenarios below the base (BehindPenalty), in the objective's units
	Value     float64 // Objective - Penalty: what the search maximises
}

// score computes the Score of runs, the summaries of each scenario's seeds (runs[i] are
// scns[i]'s), against the default's goodput per scenario (for Goodput; nil for the default
// itself, which scores 1 on each) and none's peaks (limits).
func score(obj Objective, scns []scenarios.Scenario, runs [][]report.Summary, defGoodput []float64, limits peakLimits) Score {
	var s Score
	for i, scn := range scns {
		def := 0.0
		if defGoodput != nil {
			def = defGoodput[i]
		}
		limit := func(seed int64) float64 { return limits.limit(i, seed) }
		ss := scenarioScore(scn, runs[i], limit)
		ss.Objective = term(obj, ss, def)
		for k := range runs[i] {
			one := scenarioScore(scn, runs[i][k:k+1], limit)
			one.Objective = term(obj, one, def)
			ss.PerSeed = append(ss.PerSeed, one.Value())
		}
		s.Scenarios = append(s.Scenarios, ss)
		s.Objective += ss.Objective / float64(len(scns))
		s.Penalty += ss.Penalty() / float64(len(scns))
	}
	s.Value = s.Objective - s.Penalty
	return s
}

// term is a scenario's term of the objective from its means (ss), against the default's
// goodput on it (defGoodput; 0 for the default itself, which scores 1).
func term(obj Objective, ss ScenarioScore, defGoodput float64) float64 {
	switch obj {
	case Goodput:
		if defGoodput > 0 {
			return ss.Goodput / defGoodput
		}
		return 1
	case Priority:
		var w, sum float64
		for _, c := range ss.Classes {
			w += float64(c.Priority + 1)
			sum += float64(c.Priority+1) * c.Success
		}
		if w > 0 {
			return sum / w
		}
		return 0
	case Success:
		return ss.Success
	}
	return 0
}

// scenarioScore is the means over one scenario's runs, each run's peak amplification held to
// limit(its seed).
func scenarioScore(scn scenarios.Scenario, runs []report.Summary, limit func(seed int64) float64) ScenarioScore {
	ss := ScenarioScore{Scenario: scn.Name}
	names := map[int][]string{}
	for _, c := range scn.Classes {
		if !slices.Contains(names[c.Priority], c.Name) {
			names[c.Priority] = append(names[c.Priority], c.Name)
		}
	}
	success := map[int]float64{}
	n := float64(len(runs))
	for _, r := range runs {
		ss.Success += r.SuccessRate / n
		ss.Goodput += r.Goodput / n
		ss.Crashes += float64(r.Crashes) / n
		ss.Inversions += inversions(r) / n
		ss.PeakAmp += r.PeakAmplification / n
		ss.AmpExcess = max(ss.AmpExcess, r.PeakAmplification-limit(r.Seed))
		if r.Originals > 0 {
			w := float64(r.WastedRetries) / float64(r.Originals)
			ss.Wasted += w / n
			ss.WasteExcess = max(ss.WasteExcess, w-report.TargetWasted)
		}
		for p, v := range r.PrioritySuccess {
			if prio, err := strconv.Atoi(p); err == nil {
				success[prio] += v / n
			}
		}
	}
	for p, v := range success {
		ss.Classes = append(ss.Classes, ClassScore{Priority: p, Names: strings.Join(names[p], ", "), Success: v})
	}
	slices.SortFunc(ss.Classes, func(a, b ClassScore) int { return b.Priority - a.Priority })
	return ss
}

// inversions sums, over every pair of priorities of a run, how far the lower one's success
// exceeds the higher one's beyond InversionSlack.
func inversions(r report.Summary) float64 {
	type ps struct {
		prio int
		v    float64
	}
	var list []ps
	for p, v := range r.PrioritySuccess {
		if prio, err := strconv.Atoi(p); err == nil {
			list = append(list, ps{prio, v})
		}
	}
	sum := 0.0
	for _, hi := range list {
		for _, lo := range list {
			if lo.prio < hi.prio {
				sum += math.Max(0, lo.v-hi.v-InversionSlack)
			}
		}
	}
	return sum
}
