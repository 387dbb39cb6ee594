package report

import (
	"strconv"
	"strings"
)

// Oracle is the oracle's upper bound on the success of a run (sim.Oracle: an omniscient
// scheduler with the scenario's arrivals for the seed and its capacity over time), as bench and
// run --headless print it beside the run's own figures. SuccessRate bounds the run's
// success_rate; PrioritySuccess gives each priority (keys as in Summary.PrioritySuccess) what
// the oracle serves it when every higher priority is served first: for the highest priority a
// bound on its success, for the others their share in that order. Rates are in [0, 1],
// rounded to 4 decimals.
type Oracle struct {
	SuccessRate     float64            `json:"success_rate"`
	PrioritySuccess map[string]float64 `json:"priority_success"`
}

// NewOracle returns the Oracle of a bound on the success rate and on each priority's success
// (keyed by priority), rounded as a Summary's rates are.
func NewOracle(rate float64, priorities map[int]float64) *Oracle {
	o := &Oracle{SuccessRate: round(rate, 4), PrioritySuccess: make(map[string]float64, len(priorities))}
	for p, r := range priorities {
		o.PrioritySuccess[strconv.Itoa(p)] = round(r, 4)
	}
	return o
}

// OracleCell is the oracle of a Cell's runs over their seeds: the mean, min and max of each
// figure (a priority's over the seeds in which it had arrivals).
type OracleCell struct {
	SuccessRate     Stat            `json:"success_rate"`
	PrioritySuccess map[string]Stat `json:"priority_success"`
}

// aggregateOracle is the OracleCell of runs, nil unless every run has an oracle.
func aggregateOracle(runs []Summary) *OracleCell {
	xs := make([]float64, 0, len(runs))
	prios := map[string][]float64{}
	for _, r := range runs {
		if r.Oracle == nil {
			return nil
		}
		xs = append(xs, r.Oracle.SuccessRate)
		for p, v := range r.Oracle.PrioritySuccess {
			prios[p] = append(prios[p], v)
		}
	}
	if len(xs) == 0 {
		return nil
	}
	c := &OracleCell{SuccessRate: stat(xs), PrioritySuccess: make(map[string]Stat, len(prios))}
	for p, vs := range prios {
		c.PrioritySuccess[p] = stat(vs)
	}
	return c
}

// oracleText is the oracle column of a run: its bound on the success rate, "-" without one.
func oracleText(o *Oracle) string {
	if o == nil {
		return "-"
	}
	return percent(o.SuccessRate)
}

// oracleCellText is the oracle column of a cell: the mean bound with its spread over the seeds.
func oracleCellText(o *OracleCell) string {
	if o == nil {
		return "-"
	}
	return spread(o.SuccessRate, func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }, "%")
}

// OracleLine words a run's oracle for a reader, like "at most 93.1% of the originals can
// succeed (served highest priority first: p9 99.7%, p4 94.5%, p1 77.0%)", or says why there is
// none. It is the "oracle" line of WriteTable and of the scenarios command.
func OracleLine(o *Oracle) string {
	if o == nil {
		return "none in a closed loop (the arrivals depend on the schedule)"
	}
	s := Summary{PrioritySuccess: o.PrioritySuccess}
	parts := make([]string, 0, len(o.PrioritySuccess))
	for _, p := range s.Priorities() {
		parts = append(parts, "p"+p+" "+percent(o.PrioritySuccess[p]))
	}
	line := "at most " + percent(o.SuccessRate) + " of the originals can succeed"
	if len(parts) > 1 {
		line += " (served highest priority first: " + strings.Join(parts, ", ") + ")"
	}
	return line
}
