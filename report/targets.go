package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The targets a strategy is held to in every scenario (bench --format targets), over the seeds
// of each scenario x strategy.
const (
	// TargetBestMargin is how far the strategy's mean success may be below the best other
	// strategy's (a point); in a closed loop, TargetGoodputMargin of the best goodput.
	TargetBestMargin    = 0.01
	TargetGoodputMargin = 0.01
	// TargetNoneLead is the lead over none the strategy must have wherever another strategy
	// has it (3 points).
	TargetNoneLead = 0.03
	// TargetTopMargin is how far the top class's mean success may be below its oracle bound.
	TargetTopMargin = 0.05
	// TargetOrderMargin is how far a class may be above a higher class (a point).
	TargetOrderMargin = 0.01
	// TargetOracleShare is the least mean success over the oracle's bound.
	TargetOracleShare = 0.90
	// TargetSeedMargin is how far below none a single seed may be (a point).
	TargetSeedMargin = 0.01
	// TargetPeakAmplification is the highest peak amplification of a seed, unless none's own is
	// higher (the scenario's layers amplify).
	TargetPeakAmplification = 2.0
	// TargetWasted is the most wasted retries of a seed, as a share of its originals.
	TargetWasted = 0.15
)

// TargetRow is one scenario's line of the targets table: the strategy's figures against the
// others' and the oracle's, and the targets it does not meet. Rates are in [0,1]; in a closed
// loop (no oracle) Hero, Best and None are goodputs, requests/s.
type TargetRow struct {
	Scenario string
	Closed   bool    // no oracle: the figures are goodputs
	Hero     float64 // the strategy's mean success (goodput when Closed)
	Best     float64 // the best other strategy's
	BestName string  // which one ("" when the strategy ran alone)
	None     float64 // none's (NaN when none did not run)

	Oracle      float64 // the oracle's mean bound (NaN when Closed)
	OracleShare float64 // Hero / Oracle (NaN when Closed)
	Top         string  // the top class's priority ("" when Closed)
	TopRate     float64 // its mean success
	TopBound    float64 // its oracle bound
	OrderBreak  string  // "lo>hi" for the first class more than a point above a higher one, "" when ordered
	Crashes     int     // over the seeds
	PeakAmp     float64 // the highest peak amplification of a seed
	NonePeakAmp float64 // none's (NaN when none did not run)
	Wasted      float64 // the most wasted retries of a seed, over its originals
	BelowNone   []int64 // the seeds more than a point below none's same seed
	Misses      []string
	Strategy    string // the strategy held to the targets
}

// Targets computes the targets table of strategy hero from runs (bench's, any order): one row
// per scenario it ran in, in the order the scenarios first appear. A target that needs a
// strategy that did not run (none, another) is not checked.
func Targets(runs []Summary, hero string) []TargetRow {
	cells := Aggregate(runs)
	byScenario := map[string][]Cell{}
	var order []string
	for _, c := range cells {
		if _, ok := byScenario[c.Scenario]; !ok {
			order = append(order, c.Scenario)
		}
		byScenario[c.Scenario] = append(byScenario[c.Scenario], c)
	}
	perSeed := map[[2]string]map[int64]Summary{}
	for _, r := range runs {
		k := [2]string{r.Scenario, r.Strategy}
		if perSeed[k] == nil {
			perSeed[k] = map[int64]Summary{}
		}
		perSeed[k][r.Seed] = r
	}
	var rows []TargetRow
	for _, sc := range order {
		group := byScenario[sc]
		i := slices.IndexFunc(group, func(c Cell) bool { return c.Strategy == hero })
		if i < 0 {
			continue
		}
		rows = append(rows, targetRow(group, i, perSeed, hero))
	}
	return rows
}

// targetRow computes the row of group[hi], the hero's cell, against the other cells of its
// scenario.
func targetRow(group []Cell, hi int, perSeed map[[2]string]map[int64]Summary, hero string) TargetRow {
	h := group[hi]
	row := TargetRow{Scenario: h.Scenario, Strategy: hero, Closed: h.Oracle == nil, None: math.NaN(), NonePeakAmp: math.NaN(),
		Oracle: math.NaN(), OracleShare: math.NaN(), Crashes: h.CrashesTotal}
	metric := func(c Cell) float64 { return c.SuccessRate.Mean }
	if row.Closed {
		metric = func(c Cell) float64 { return c.Goodput.Mean }
	}
	row.Hero = metric(h)
	row.Best = math.Inf(-1)
	var none *Cell
	for i := range group {
		c := &group[i]
		if i == hi {
			continue
		}
		if c.Strategy == "none" {
			none = c
			row.None = metric(*c)
		}
		if v := metric(*c); v > row.Best {
			row.Best, row.BestName = v, c.Strategy
		}
	}
	miss := func(format string, args ...any) { row.Misses = append(row.Misses, fmt.Sprintf(format, args...)) }
	switch {
	case row.BestName == "":
		row.Best = math.NaN()
	case row.Closed && row.Hero < row.Best*(1-TargetGoodputMargin):
		miss("goodput below the best -1%% (%s)", row.BestName)
	case !row.Closed && row.Hero < row.Best-TargetBestMargin:
		miss("below the best -1 (%s)", row.BestName)
	}
	if none != nil && !row.Closed {
		var leaders []string
		for _, c := range group {
			if c.Strategy != hero && metric(c) >= row.None+TargetNoneLead {
				leaders = append(leaders, c.Strategy)
			}
		}
		if len(leaders) > 0 && row.Hero < row.None+TargetNoneLead {
			miss("not none+3 (%s)", leaders[0])
		}
	}
	prios := make([]string, 0, len(h.PrioritySuccess))
	for p := range h.PrioritySuccess {
		prios = append(prios, p)
	}
	slices.SortFunc(prios, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	if !row.Closed {
		row.Oracle = h.Oracle.SuccessRate.Mean
		if row.Oracle > 0 {
			row.OracleShare = row.Hero / row.Oracle
		}
		if len(prios) > 0 {
			row.Top = prios[len(prios)-1]
			row.TopRate = h.PrioritySuccess[row.Top].Mean
			row.TopBound = h.Oracle.PrioritySuccess[row.Top].Mean
			if row.TopRate < row.TopBound-TargetTopMargin {
				miss("top class below its bound -5")
			}
		}
		if row.OracleShare < TargetOracleShare {
			miss("below 0.90 of the oracle")
		}
	}
	for i, lo := range prios {
		for _, hi := range prios[i+1:] {
			if row.OrderBreak == "" && h.PrioritySuccess[lo].Mean > h.PrioritySuccess[hi].Mean+TargetOrderMargin {
				row.OrderBreak = lo + ">" + hi
			}
		}
	}
	if row.OrderBreak != "" {
		miss("priority order (%s)", row.OrderBreak)
	}
	if row.Crashes > 0 {
		miss("crashes")
	}
	seeds := perSeed[[2]string{h.Scenario, hero}]
	var noneSeeds map[int64]Summary
	if none != nil {
		noneSeeds = perSeed[[2]string{h.Scenario, "none"}]
		row.NonePeakAmp = 0
		for _, r := range noneSeeds {
			row.NonePeakAmp = max(row.NonePeakAmp, r.PeakAmplification)
		}
	}
	for _, seed := range h.Seeds {
		r := seeds[seed]
		row.PeakAmp = max(row.PeakAmp, r.PeakAmplification)
		if r.Originals > 0 {
			row.Wasted = max(row.Wasted, float64(r.WastedRetries)/float64(r.Originals))
		}
		n, ok := noneSeeds[seed]
		switch {
		case !ok:
		case row.Closed && r.Goodput < n.Goodput*(1-TargetGoodputMargin):
			row.BelowNone = append(row.BelowNone, seed)
		case !row.Closed && r.SuccessRate < n.SuccessRate-TargetSeedMargin:
			row.BelowNone = append(row.BelowNone, seed)
		}
	}
	if len(row.BelowNone) > 0 {
		miss("seeds below none -1 (%s)", joinSeeds(row.BelowNone))
	}
	limit := TargetPeakAmplification
	if !math.IsNaN(row.NonePeakAmp) {
		limit = max(limit, row.NonePeakAmp)
	}
	if row.PeakAmp > limit+1e-9 {
		miss("peak amplification %.2fx", row.PeakAmp)
	}
	if row.Wasted > TargetWasted {
		miss("wasted %.1f%%", 100*row.Wasted)
	}
	return row
}

// joinSeeds lists seeds as "3, 7, 9", at most five then "…".
func joinSeeds(seeds []int64) string {
	var b strings.Builder
	for i, s := range seeds {
		if i == 5 {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(s, 10))
	}
	return b.String()
}

// WriteTargetsMarkdown writes rows as a markdown table, one line per scenario, then a line that
// counts the scenarios meeting every target. Percentages have one decimal; a closed loop's
// figures are goodputs (req/s) and its oracle columns "-".
func WriteTargetsMarkdown(w io.Writer, rows []TargetRow) error {
	hero := "strategy"
	if len(rows) > 0 {
		hero = rows[0].Strategy
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| scenario | %s | best other | none | oracle | %s/oracle | top class / bound | order | crashes | peak amp (none) | wasted | not met |\n", hero, hero)
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n")
	met := 0
	for _, r := range rows {
		fig := func(v float64) string {
			switch {
			case math.IsNaN(v):
				return "-"
			case r.Closed:
				return strconv.FormatFloat(v, 'f', 1, 64) + "/s"
			}
			return pct1(v)
		}
		best := "-"
		if r.BestName != "" {
			best = r.BestName + " " + fig(r.Best)
		}
		oracle, share, top := "-", "-", "-"
		if !r.Closed {
			oracle, share = pct1(r.Oracle), strconv.FormatFloat(r.OracleShare, 'f', 2, 64)
			if r.Top != "" {
				top = fmt.Sprintf("p%s %s / %s", r.Top, pct1(r.TopRate), pct1(r.TopBound))
			}
		}
		order := "ok"
		if r.OrderBreak != "" {
			order = r.OrderBreak
		}
		amp := strconv.FormatFloat(r.PeakAmp, 'f', 2, 64) + "x"
		if !math.IsNaN(r.NonePeakAmp) {
			amp += " (" + strconv.FormatFloat(r.NonePeakAmp, 'f', 2, 64) + "x)"
		}
		misses := "met"
		if len(r.Misses) > 0 {
			misses = strings.Join(r.Misses, "; ")
		} else {
			met++
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n", r.Scenario, fig(r.Hero), best, fig(r.None),
			oracle, share, top, order, r.Crashes, amp, pct1(r.Wasted), misses)
	}
	fmt.Fprintf(&b, "\n%s meets every target in %d of %d scenarios.\n", hero, met, len(rows))
	_, err := io.WriteString(w, b.String())
	return err
}

// pct1 formats a rate in [0,1] as a percentage with one decimal: "75.3%".
func pct1(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }
