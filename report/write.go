package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cortex-tui/cortex-tui/source"
)

// runDocument is the JSON document of one headless run.
type runDocument struct {
	Scenario string  `json:"scenario"`
	Strategy string  `json:"strategy"`
	Seed     int64   `json:"seed"`
	DtMs     int64   `json:"dt_ms"`
	Timeline []Row   `json:"timeline"`
	Summary  Summary `json:"summary"`
}

// WriteJSON writes the run document of the spec: scenario, strategy, seed, dt_ms, the
// per-second timeline and the summary, as one JSON object followed by a newline. The same
// inputs always give the same bytes.
func WriteJSON(w io.Writer, meta source.Meta, rows []Row, sum Summary) error {
	if rows == nil {
		rows = []Row{}
	}
	doc := runDocument{Scenario: meta.Scenario, Strategy: meta.Strategy, Seed: meta.Seed,
		DtMs: meta.Tick.Milliseconds(), Timeline: rows, Summary: sum}
	return json.NewEncoder(w).Encode(doc)
}

// CSVHeader is the header line of WriteCSV: the timeline's JSON columns, with the signals
// flattened to F, L, Q, B and C.
var CSVHeader = []string{"t", "originals", "attempts", "retries", "successes", "failures", "shed",
	"service", "capacity", "queue", "cps", "state", "circuit", "F", "L", "Q", "B", "C"}

// WriteCSV writes the timeline as CSV (encoding/csv, RFC 4180) with CSVHeader; the cortex
// columns are empty for other strategies (JSON's null).
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, r := range rows {
		f := []string{strconv.Itoa(r.T), strconv.Itoa(r.Originals), strconv.Itoa(r.Attempts),
			strconv.Itoa(r.Retries), strconv.Itoa(r.Successes), strconv.Itoa(r.Failures),
			strconv.Itoa(r.Shed), r.Service.String(), num(r.Capacity), num(r.Queue)}
		if r.CPS != nil && r.State != nil && r.Circuit != nil && r.Signals != nil {
			s := r.Signals
			f = append(f, num(*r.CPS), *r.State, *r.Circuit, num(s.F), num(s.L), num(s.Q), num(s.B), num(s.C))
		} else {
			f = append(f, "", "", "", "", "", "", "", "")
		}
		if err := cw.Write(f); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// RecoveryText formats a recovery time: "never" for nil, "none needed" for 0 (the run had no
// fault and no crash to recover from), else seconds like "12.5s".
func RecoveryText(sec *float64) string {
	if sec == nil {
		return "never"
	}
	if *sec == 0 {
		return "none needed"
	}
	return strconv.FormatFloat(*sec, 'f', 1, 64) + "s"
}

// GoodputText formats a goodput in requests/s with one decimal, like "312.4/s".
func GoodputText(g float64) string { return strconv.FormatFloat(g, 'f', 1, 64) + "/s" }

// percent formats a rate in [0,1] as a percentage with one decimal.
func percent(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// Priorities returns the keys of s.PrioritySuccess (priorities as decimal strings) sorted from
// the highest priority to the lowest.
func (s Summary) Priorities() []string {
	ps := make([]string, 0, len(s.PrioritySuccess))
	for p := range s.PrioritySuccess {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool {
		a, _ := strconv.Atoi(ps[i])
		b, _ := strconv.Atoi(ps[j])
		return a > b
	})
	return ps
}

// prioritySuccessText formats the per-priority success like "p9 71.0%  p1 12.3%".
func prioritySuccessText(s Summary) string {
	var parts []string
	for _, p := range s.Priorities() {
		parts = append(parts, "p"+p+" "+percent(s.PrioritySuccess[p]))
	}
	return strings.Join(parts, "  ")
}

// WriteTable writes a readable summary of one run, for a terminal.
func WriteTable(w io.Writer, meta source.Meta, rows []Row, sum Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "scenario\t%s\n", sum.Scenario)
	fmt.Fprintf(tw, "strategy\t%s\n", source.Meta{Strategy: sum.Strategy, Engine: sum.Engine}.StrategyLabel())
	fmt.Fprintf(tw, "seed\t%d\n", sum.Seed)
	ran := "simulated"
	if meta.Live {
		ran = "live" // real traffic, in wall time
	}
	fmt.Fprintf(tw, "%s\t%ds (tick %s)\n", ran, len(rows), meta.Tick)
	fmt.Fprintf(tw, "success rate\t%s\n", percent(sum.SuccessRate))
	fmt.Fprintf(tw, "goodput\t%s (completed originals per second of arrivals)\n", GoodputText(sum.Goodput))
	fmt.Fprintf(tw, "success by priority\t%s\n", prioritySuccessText(sum))
	fmt.Fprintf(tw, "peak amplification\t%.2fx\n", sum.PeakAmplification)
	fmt.Fprintf(tw, "amplification\t%.2fx\n", sum.Amplification)
	fmt.Fprintf(tw, "retries\t%d\n", sum.Retries)
	fmt.Fprintf(tw, "wasted retries\t%d\n", sum.WastedRetries)
	fmt.Fprintf(tw, "recovery\t%s\n", RecoveryText(sum.RecoverySeconds))
	fmt.Fprintf(tw, "crashes\t%d\n", sum.Crashes)
	if sum.InFlightCapRefused > 0 {
		fmt.Fprintf(tw, "refused at the in-flight cap\t%d (live: --max-inflight requests were alive)\n", sum.InFlightCapRefused)
	}
	if sum.Oracle != nil {
		fmt.Fprintf(tw, "oracle\t%s\n", OracleLine(sum.Oracle))
	}
	if len(sum.FailureCauses) > 0 {
		fmt.Fprintf(tw, "failures by cause\t%s\n", CausesText(sum.FailureCauses))
	}
	return tw.Flush()
}

// FailureCauses returns the counts of c by cause's words (source.FailureCause.String), the
// causes with none left out; nil when there is none (the summary's failure_causes).
func FailureCauses(c [source.NumFailureCauses]int) map[string]int {
	var m map[string]int
	for i, n := range c {
		if n > 0 {
			if m == nil {
				m = map[string]int{}
			}
			m[source.FailureCause(i).String()] = n
		}
	}
	return m
}

// CauseCount is a cause of failure and how many attempts failed of it.
type CauseCount struct {
	Cause string
	N     int
}

// SortedCauses returns the causes of m (a Summary's FailureCauses), the most frequent first
// (ties in the order of source.FailureCause).
func SortedCauses(m map[string]int) []CauseCount {
	out := make([]CauseCount, 0, len(m))
	for c, n := range m {
		out = append(out, CauseCount{c, n})
	}
	rank := func(s string) int { c, _ := source.FailureCauseOf(s); return int(c) }
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return rank(out[i].Cause) < rank(out[j].Cause)
	})
	return out
}

// CausesText formats the causes of m like "1204 oversize headers · 12 timeout", the most
// frequent first.
func CausesText(m map[string]int) string {
	var parts []string
	for _, c := range SortedCauses(m) {
		parts = append(parts, strconv.Itoa(c.N)+" "+c.Cause)
	}
	return strings.Join(parts, " · ")
}

// benchDocument is bench's JSON document.
type benchDocument struct {
	Runs  []Summary `json:"runs"`
	Cells []Cell    `json:"cells"`
}

// WriteBenchJSON writes {"runs": [...], "cells": [...]}: "runs" holds the summaries in the given
// order, one per scenario x strategy x seed; "cells" holds Aggregate(runs), one per scenario x
// strategy with each figure's mean, min and max over its seeds (a single seed gives mean = min
// = max).
func WriteBenchJSON(w io.Writer, runs []Summary) error {
	if runs == nil {
		runs = []Summary{}
	}
	cells := Aggregate(runs)
	if cells == nil {
		cells = []Cell{}
	}
	return json.NewEncoder(w).Encode(benchDocument{Runs: runs, Cells: cells})
}

// cortexName is the strategy the matrix measures against the oracle (strategy.CortexName; package
// report does not import the strategies).
const cortexName = "cortex"

var benchColumns = []string{"scenario", "strategy", "success", "oracle", "goodput", "peak amp", "amp", "retries",
	"wasted retries", "recovery", "crashes", "success by priority"}

func benchCells(s Summary) []string {
	return []string{s.Scenario, s.Strategy, percent(s.SuccessRate), oracleText(s.Oracle), GoodputText(s.Goodput),
		strconv.FormatFloat(s.PeakAmplification, 'f', 2, 64) + "x",
		strconv.FormatFloat(s.Amplification, 'f', 2, 64) + "x",
		strconv.Itoa(s.Retries), strconv.Itoa(s.WastedRetries), RecoveryText(s.RecoverySeconds),
		strconv.Itoa(s.Crashes), prioritySuccessText(s)}
}

// WriteBenchMarkdown writes the runs as a GitHub markdown table (for the README), one row per
// run.
func WriteBenchMarkdown(w io.Writer, runs []Summary) error {
	rows := make([][]string, len(runs))
	for i, s := range runs {
		rows[i] = benchCells(s)
	}
	return writeMarkdown(w, rows)
}

// WriteBenchTable writes the runs as an aligned plain-text table, for a terminal, one row per
// run.
func WriteBenchTable(w io.Writer, runs []Summary) error {
	rows := make([][]string, len(runs))
	for i, s := range runs {
		rows[i] = benchCells(s)
	}
	return writeTable(w, rows)
}

// CellsLegend says how WriteCellsTable and WriteCellsMarkdown print a Cell, for a caption or a
// help text.
const CellsLegend = "mean (min-max) over the seeds; recovery over the seeds that recovered, " +
	"\"never n/N\" the others; crashes: total \"in\" the seeds that crashed"

// WriteCellsMarkdown writes the cells (bench --seeds) as a GitHub markdown table, one row per
// scenario x strategy, with the columns of WriteBenchMarkdown (see CellsLegend).
func WriteCellsMarkdown(w io.Writer, cells []Cell) error {
	rows := make([][]string, len(cells))
	for i, c := range cells {
		rows[i] = cellTexts(c)
	}
	return writeMarkdown(w, rows)
}

// WriteCellsTable writes the cells (bench --seeds) as an aligned plain-text table, for a
// terminal, one row per scenario x strategy, under a line naming the seeds and CellsLegend.
func WriteCellsTable(w io.Writer, cells []Cell) error {
	if len(cells) > 0 {
		if _, err := fmt.Fprintf(w, "%d seeds (%s): %s.\n\n", len(cells[0].Seeds), seedList(cells[0].Seeds), CellsLegend); err != nil {
			return err
		}
	}
	rows := make([][]string, len(cells))
	for i, c := range cells {
		rows[i] = cellTexts(c)
	}
	return writeTable(w, rows)
}

// seedList writes seeds as a list of ranges, like "1-10" or "1-3, 7".
func seedList(seeds []int64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		part := strconv.FormatInt(seeds[i], 10)
		if j > i {
			part += "-" + strconv.FormatInt(seeds[j], 10)
		}
		parts = append(parts, part)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// writeMarkdown writes rows under benchColumns as a GitHub markdown table.
func writeMarkdown(w io.Writer, rows [][]string) error {
	var b strings.Builder
	b.WriteString("| " + strings.Join(benchColumns, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(benchColumns)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes rows under benchColumns as an aligned plain-text table.
func writeTable(w io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(benchColumns, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// MatrixLegend says what WriteCellsMatrix prints, for a caption or a help text.
const MatrixLegend = "success rate, mean over the seeds; crashes, total over the seeds, in brackets when any; " +
	"oracle, the mean bound on success over the seeds; cortex/oracle, cortex's mean success over it"

// WriteCellsMatrix writes the cells as a GitHub markdown table with one row per scenario and one
// column per strategy, in the order they first appear: the mean success rate over the seeds,
// with the total crashes in brackets when there were any (see MatrixLegend). A scenario that
// was not run with a strategy gets "-". Two columns follow: "oracle", the scenario's mean
// oracle bound over the seeds, and, when cortex is among the strategies, "cortex/oracle", its
// mean success over that bound ("-" where a scenario has no oracle: a closed loop).
func WriteCellsMatrix(w io.Writer, cells []Cell) error {
	var scenarios, strategies []string
	at := map[[2]string]Cell{}
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen["s:"+c.Scenario] {
			seen["s:"+c.Scenario] = true
			scenarios = append(scenarios, c.Scenario)
		}
		if !seen["t:"+c.Strategy] {
			seen["t:"+c.Strategy] = true
			strategies = append(strategies, c.Strategy)
		}
		at[[2]string{c.Scenario, c.Strategy}] = c
	}
	columns := append([]string(nil), strategies...)
	columns = append(columns, "oracle")
	withCortex := slices.Contains(strategies, cortexName)
	if withCortex {
		columns = append(columns, cortexName+"/oracle")
	}
	var b strings.Builder
	b.WriteString("| scenario | " + strings.Join(columns, " | ") + " |\n")
	b.WriteString("|---|" + strings.Repeat("---:|", len(columns)) + "\n")
	for _, sc := range scenarios {
		b.WriteString("| " + sc)
		var oracle *OracleCell // the scenario's: the same for every strategy
		for _, st := range strategies {
			text := "-"
			if c, ok := at[[2]string{sc, st}]; ok {
				text = percent(c.SuccessRate.Mean)
				if c.CrashesTotal > 0 {
					text += " (" + strconv.Itoa(c.CrashesTotal) + ")"
				}
				if oracle == nil {
					oracle = c.Oracle
				}
			}
			b.WriteString(" | " + text)
		}
		text := "-"
		if oracle != nil {
			text = percent(oracle.SuccessRate.Mean)
		}
		b.WriteString(" | " + text)
		if withCortex {
			ratio := "-"
			if c, ok := at[[2]string{sc, cortexName}]; ok && oracle != nil && oracle.SuccessRate.Mean > 0 {
				ratio = strconv.FormatFloat(c.SuccessRate.Mean/oracle.SuccessRate.Mean, 'f', 2, 64)
			}
			b.WriteString(" | " + ratio)
		}
		b.WriteString(" |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
