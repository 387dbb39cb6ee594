package report

import (
	"math"
	"strconv"
)

// Stat is one figure of a Cell over its seeds: the mean and the spread (smallest and largest
// value of a single seed), rounded to 4 decimals.
type Stat struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Cell aggregates the runs of one scenario x strategy over several seeds: one row of bench's
// table and markdown with --seeds, and one element of its JSON "cells". Each Stat is over every
// seed, except RecoverySeconds, which is over the Recovered seeds only (nil when none
// recovered; Never counts the others), and PrioritySuccess, whose Stat for a priority is over
// the seeds in which that priority had arrivals. CrashesTotal is the sum of crashes over the
// seeds and CrashedSeeds the number of seeds with at least one.
type Cell struct {
	Scenario          string          `json:"scenario"`
	Strategy          string          `json:"strategy"`
	Seeds             []int64         `json:"seeds"`
	SuccessRate       Stat            `json:"success_rate"`
	Goodput           Stat            `json:"goodput"`
	Originals         Stat            `json:"originals"`
	PeakAmplification Stat            `json:"peak_amplification"`
	Amplification     Stat            `json:"amplification"`
	Retries           Stat            `json:"retries"`
	WastedRetries     Stat            `json:"wasted_retries"`
	RecoverySeconds   *Stat           `json:"recovery_seconds"`
	Recovered         int             `json:"recovered"`
	Never             int             `json:"never"`
	Crashes           Stat            `json:"crashes"`
	CrashesTotal      int             `json:"crashes_total"`
	CrashedSeeds      int             `json:"crashed_seeds"`
	PrioritySuccess   map[string]Stat `json:"priority_success"`
	Oracle            *OracleCell     `json:"oracle"` // over the seeds; nil unless every run has one
}

// Aggregate groups runs by scenario and strategy, in the order each pair first appears, and
// returns one Cell per pair, its seeds in the order of their runs. It does not modify runs.
func Aggregate(runs []Summary) []Cell {
	type key struct{ scenario, strategy string }
	index := map[key]int{}
	var groups [][]Summary
	for _, r := range runs {
		k := key{r.Scenario, r.Strategy}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	cells := make([]Cell, len(groups))
	for i, g := range groups {
		cells[i] = aggregate(g)
	}
	return cells
}

// aggregate is the Cell of the runs of one scenario x strategy (at least one run).
func aggregate(runs []Summary) Cell {
	c := Cell{Scenario: runs[0].Scenario, Strategy: runs[0].Strategy, PrioritySuccess: map[string]Stat{}}
	field := func(v func(Summary) float64) Stat {
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = v(r)
		}
		return stat(xs)
	}
	var recovery []float64
	prios := map[string][]float64{}
	for _, r := range runs {
		c.Seeds = append(c.Seeds, r.Seed)
		if r.RecoverySeconds != nil {
			recovery = append(recovery, *r.RecoverySeconds)
		}
		c.CrashesTotal += r.Crashes
		if r.Crashes > 0 {
			c.CrashedSeeds++
		}
		for p, v := range r.PrioritySuccess {
			prios[p] = append(prios[p], v)
		}
	}
	c.SuccessRate = field(func(s Summary) float64 { return s.SuccessRate })
	c.Goodput = field(func(s Summary) float64 { return s.Goodput })
	c.Originals = field(func(s Summary) float64 { return float64(s.Originals) })
	c.PeakAmplification = field(func(s Summary) float64 { return s.PeakAmplification })
	c.Amplification = field(func(s Summary) float64 { return s.Amplification })
	c.Retries = field(func(s Summary) float64 { return float64(s.Retries) })
	c.WastedRetries = field(func(s Summary) float64 { return float64(s.WastedRetries) })
	c.Crashes = field(func(s Summary) float64 { return float64(s.Crashes) })
	c.Recovered, c.Never = len(recovery), len(runs)-len(recovery)
	if len(recovery) > 0 {
		st := stat(recovery)
		c.RecoverySeconds = &st
	}
	for p, xs := range prios {
		c.PrioritySuccess[p] = stat(xs)
	}
	c.Oracle = aggregateOracle(runs)
	return c
}

// stat is the mean, minimum and maximum of xs (not empty), rounded to 4 decimals.
func stat(xs []float64) Stat {
	sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		sum += x
		lo, hi = min(lo, x), max(hi, x)
	}
	return Stat{Mean: round(sum/float64(len(xs)), 4), Min: round(lo, 4), Max: round(hi, 4)}
}

// Priorities returns the keys of c.PrioritySuccess sorted from the highest priority to the
// lowest, as Summary.Priorities does.
func (c Cell) Priorities() []string {
	s := Summary{PrioritySuccess: make(map[string]float64, len(c.PrioritySuccess))}
	for p := range c.PrioritySuccess {
		s.PrioritySuccess[p] = 0
	}
	return s.Priorities()
}

// spread formats a Stat as "mean<unit> (min-max)", like "75.3% (74.1-76.0)", each value
// through f; when min and max print the same (a single seed, or every seed alike) as the mean
// alone.
func spread(st Stat, f func(float64) string, unit string) string {
	m := f(st.Mean) + unit
	lo, hi := f(st.Min), f(st.Max)
	if lo == hi {
		return m
	}
	return m + " (" + lo + "-" + hi + ")"
}

// cellTexts are the bench columns of a Cell (benchColumns' order): every figure as its mean
// over the seeds with the min-max spread; recovery as the mean over the seeds that recovered
// with its spread, followed by "never n/N" for the seeds that did not; crashes as the total
// over the seeds with the number of seeds that crashed ("12 in 4/10"); success by priority as
// means.
func cellTexts(c Cell) []string {
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
	times := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	count := func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
	n := len(c.Seeds)
	recovery := "never " + strconv.Itoa(c.Never) + "/" + strconv.Itoa(n)
	if r := c.RecoverySeconds; r != nil {
		secs := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
		recovery = strconv.FormatFloat(r.Mean, 'f', 1, 64) + "s"
		if r.Min != r.Max {
			recovery += " (" + secs(r.Min) + "-" + secs(r.Max) + ")"
		}
		if c.Never > 0 {
			recovery += ", never " + strconv.Itoa(c.Never) + "/" + strconv.Itoa(n)
		}
	}
	crashes := "0"
	if c.CrashesTotal > 0 {
		crashes = strconv.Itoa(c.CrashesTotal) + " in " + strconv.Itoa(c.CrashedSeeds) + "/" + strconv.Itoa(n)
	}
	var prios string
	for i, p := range c.Priorities() {
		if i > 0 {
			prios += "  "
		}
		prios += "p" + p + " " + percent(c.PrioritySuccess[p].Mean)
	}
	return []string{c.Scenario, c.Strategy,
		spread(c.SuccessRate, pct, "%"), oracleCellText(c.Oracle),
		spread(c.Goodput, func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }, "/s"),
		spread(c.PeakAmplification, times, "x"),
		spread(c.Amplification, times, "x"),
		spread(c.Retries, count, ""), spread(c.WastedRetries, count, ""),
		recovery, crashes, prios}
}
