package tune

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
)

// Holds reports whether the tuned engine is not worse than the default on the held-out seeds
// (on the training seeds without them): its score, and each scenario's value (Behind is empty),
// the condition for writing it.
func (r Result) Holds(holdout bool) bool {
	if len(r.Behind(holdout)) > 0 {
		return false
	}
	if !holdout {
		return r.TunedTrain.Value >= r.DefaultTrain.Value
	}
	return r.TunedHoldout.Value >= r.DefaultHoldout.Value
}

// Behind returns the indexes of the scenarios whose value (ScenarioScore.Value) the tuned
// engine lowers on the held-out seeds (on the training seeds without them): with several
// scenarios, a file that holds on the mean but not on each of them.
func (r Result) Behind(holdout bool) []int {
	tuned, def := r.TunedTrain, r.DefaultTrain
	if holdout {
		tuned, def = r.TunedHoldout, r.DefaultHoldout
	}
	var out []int
	for i, ss := range tuned.Scenarios {
		if i < len(def.Scenarios) && ss.Value() < def.Scenarios[i].Value() {
			out = append(out, i)
		}
	}
	return out
}

// Moved is one parameter the search changed: its key, its default and tuned values as the file
// writes them, and the change (tuned - default, or tuned / default on a log scale).
type Moved struct {
	Key     string `json:"key"`
	Default string `json:"default"`
	Tuned   string `json:"tuned"`
	Change  string `json:"change"`
}

// MovedParams lists the dims whose value differs between base and tuned, in the dims' order.
func MovedParams(dims []Dim, base, tuned engine.Config) []Moved {
	var out []Moved
	for _, d := range dims {
		a, b := d.Param.Get(base), d.Param.Get(tuned)
		if d.Param.Text(base) == d.Param.Text(tuned) {
			continue
		}
		change := fmt.Sprintf("%+.3g", b-a)
		if d.Log && a > 0 {
			change = fmt.Sprintf("x%.2f", b/a)
		}
		out = append(out, Moved{Key: d.Param.Path(), Default: unquote(d.Param.Text(base)), Tuned: unquote(d.Param.Text(tuned)), Change: change})
	}
	return out
}

// unquote drops the quotes of a duration as the file writes it.
func unquote(s string) string { return strings.Trim(s, `"`) }

// WriteTable writes res as a person reads it: per scenario and per class, the default against
// the tuned on the training seeds and on the held-out seeds (the points gained), the score
// with its penalties, then the parameters that moved and how the search went. opts are the
// options of the search that gave res.
func WriteTable(w io.Writer, res Result, opts Options) error {
	holdout := len(opts.Holdout) > 0
	width := len("  inversions (points)")
	for _, scn := range res.DefaultTrain.Scenarios {
		width = max(width, len(scn.Scenario+" success"))
		for _, c := range scn.Classes {
			width = max(width, len(fmt.Sprintf("  %s (priority %d)", c.Names, c.Priority)))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	base := opts.BaseName
	if base == "" {
		base = "default"
	}
	head := strings.Repeat(" ", width) + "\ttraining " + base + "\ttuned\tchange\t"
	if holdout {
		head += "held-out " + base + "\ttuned\tchange\t"
	}
	fmt.Fprintln(tw, head)
	row := func(label string, get func(Score) (float64, bool), pct kind) {
		label += strings.Repeat(" ", width-len(label)) // left-aligned in a right-aligned table
		dt, ok := get(res.DefaultTrain)
		if !ok {
			return
		}
		tt, _ := get(res.TunedTrain)
		line := label + "\t" + cell(dt, pct) + "\t" + cell(tt, pct) + "\t" + delta(tt-dt, pct) + "\t"
		if holdout {
			dh, _ := get(res.DefaultHoldout)
			th, _ := get(res.TunedHoldout)
			line += cell(dh, pct) + "\t" + cell(th, pct) + "\t" + delta(th-dh, pct) + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	for i, scn := range opts.Scenarios {
		at := func(f func(ScenarioScore) float64) func(Score) (float64, bool) {
			return func(s Score) (float64, bool) {
				if i >= len(s.Scenarios) {
					return 0, false
				}
				return f(s.Scenarios[i]), true
			}
		}
		row(scn.Name+" success", at(func(s ScenarioScore) float64 { return s.Success }), percent)
		for j, c := range res.DefaultTrain.Scenarios[i].Classes {
			row(fmt.Sprintf("  %s (priority %d)", c.Names, c.Priority), func(s Score) (float64, bool) {
				if i >= len(s.Scenarios) || j >= len(s.Scenarios[i].Classes) {
					return 0, false
				}
				return s.Scenarios[i].Classes[j].Success, true
			}, percent)
		}
		row("  goodput (/s)", at(func(s ScenarioScore) float64 { return s.Goodput }), number)
		row("  crashes per run", at(func(s ScenarioScore) float64 { return s.Crashes }), number)
		row("  inversions (points)", at(func(s ScenarioScore) float64 { return 100 * s.Inversions }), number)
		row("  peak amplification", at(func(s ScenarioScore) float64 { return s.PeakAmp }), factor)
		row("  wasted retries", at(func(s ScenarioScore) float64 { return s.Wasted }), percent)
	}
	row("objective ("+opts.Objective.String()+")", func(s Score) (float64, bool) { return s.Objective, true }, scoreKind)
	row("penalty", func(s Score) (float64, bool) { return s.Penalty, true }, scoreKind)
	row("score", func(s Score) (float64, bool) { return s.Value, true }, scoreKind)
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, o := range res.Oracle {
		name, d, t := opts.Scenarios[i].Name, res.DefaultHoldout.Scenarios[i], res.TunedHoldout.Scenarios[i]
		if !math.IsNaN(o) {
			fmt.Fprintf(w, "%s: the oracle bound (the most any strategy could complete) is %.1f%% on the held-out seeds; the tuned engine is %.1f points below it\n",
				name, 100*o, 100*(o-t.Success))
		}
		if i < len(res.Knowable) && !math.IsNaN(res.Knowable[i]) {
			k := res.Knowable[i]
			fmt.Fprintf(w, "%s: the client-knowable bound (the oracle without the capacity of the moment, when a fault ends and the other clients' demand) is %.1f%%: the %s was %.1f points below it, the tuned engine %.1f\n",
				name, 100*k, base, 100*(k-d.Success), 100*(k-t.Success))
		}
		if len(opts.Scenarios) > 1 && t.Value() < d.Value() {
			fmt.Fprintf(w, "%s: the tuned engine does worse than the %s on this scenario's held-out seeds (objective %.4f, the %s's %.4f): the gain is on the others\n",
				name, base, t.Objective, base, d.Objective)
		}
	}
	moved := MovedParams(opts.Dims, res.Base, res.Tuned)
	if len(moved) == 0 {
		fmt.Fprintf(w, "\nno parameter moved (%d searched)\n", len(opts.Dims))
	} else {
		fmt.Fprintf(w, "\n%d of %d parameters moved:\n", len(moved), len(opts.Dims))
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  key\t"+base+"\ttuned\tchange")
		for _, m := range moved {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", m.Key, m.Default, m.Tuned, m.Change)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\nsearch: CMA-ES over %d parameters, population %d, %d generations, %d evaluations, %d simulations in %s (%s), stopped: %s\n",
		res.Dimensions, res.Population, res.Generations, res.Evals, res.Simulations, res.Elapsed.Round(100*1e6), rates(res), StopReason(res.Stop))
	if err == nil && res.Screen > 0 {
		_, err = fmt.Fprintf(w, "screening: %d of the %d evaluations were rejected on the first %d training seeds (more than %.0f point below the kept candidate there), their other seeds not run\n",
			res.Rejected, res.Evals, res.Screen, 100*ScreenMargin)
	}
	if err == nil && len(res.History) > 0 {
		_, err = fmt.Fprintf(w, "best score by generation: %s\n", history(res.History))
	}
	return err
}

// rates words how fast a search went: simulations and evaluations per second of wall time,
// and per CPU-second when the CPU time was measured (the rate a loaded machine does not change).
func rates(res Result) string {
	wall := math.Max(res.Elapsed.Seconds(), 1e-9)
	out := fmt.Sprintf("%.0f simulations/s, %.2f evaluations/s", float64(res.Simulations)/wall, float64(res.Evals)/wall)
	if res.CPU > 0 {
		out += fmt.Sprintf("; %s of CPU, %.2f evaluations per CPU-second", res.CPU.Round(100*time.Millisecond), float64(res.Evals)/res.CPU.Seconds())
	}
	return out
}

// StopReason words why a search stopped.
func StopReason(stop string) string {
	switch stop {
	case "converged":
		return fmt.Sprintf("converged (less than %.2f point gained in %d generations)", 100*MinGain, Patience)
	case "generations":
		return "the generations were done"
	case "evaluations":
		return "the evaluations were done"
	case "time":
		return "its time was up"
	case "interrupted":
		return "interrupted (the best candidate checked so far is kept)"
	}
	return stop
}

// history is the best score of each generation, a few of them when there are many.
func history(h []float64) string {
	var parts []string
	step := max(1, (len(h)+9)/10)
	for i := 0; i < len(h); i += step {
		parts = append(parts, fmt.Sprintf("%d: %.4f", i+1, h[i]))
	}
	if (len(h)-1)%step != 0 {
		parts = append(parts, fmt.Sprintf("%d: %.4f", len(h), h[len(h)-1]))
	}
	return strings.Join(parts, ", ")
}

// kind is how a row of the table is written.
type kind int

const (
	percent   kind = iota // a fraction, as a percentage; its change in points
	number                // a count or a rate, to one decimal
	scoreKind             // the objective's units, to four decimals
	factor                // a ratio such as the peak amplification, to two decimals
)

// cell formats x as k says.
func cell(x float64, k kind) string {
	switch k {
	case percent:
		return fmt.Sprintf("%.1f%%", 100*x)
	case number:
		return fmt.Sprintf("%.1f", x)
	case factor:
		return fmt.Sprintf("%.2fx", x)
	}
	return fmt.Sprintf("%.4f", x)
}

// delta formats a change as k says.
func delta(d float64, k kind) string {
	switch k {
	case percent:
		return fmt.Sprintf("%+.1f", 100*d)
	case number:
		return fmt.Sprintf("%+.1f", d)
	case factor:
		return fmt.Sprintf("%+.2f", d)
	}
	return fmt.Sprintf("%+.4f", d)
}

// jsonReport is WriteJSON's document.
type jsonReport struct {
	Objective    string     `json:"objective"`
	Scenarios    []string   `json:"scenarios"`
	Train        []int64    `json:"train_seeds"`
	Holdout      []int64    `json:"holdout_seeds"`
	DefaultTrain jsonScore  `json:"default_train"`
	TunedTrain   jsonScore  `json:"tuned_train"`
	DefaultHold  *jsonScore `json:"default_holdout,omitempty"`
	TunedHold    *jsonScore `json:"tuned_holdout,omitempty"`
	Holds        bool       `json:"holds"`
	// Oracle and Knowable are each scenario's bounds on the held-out seeds (Result.Oracle,
	// Result.Knowable), null for a closed loop; omitted without held-out seeds.
	Oracle   []*float64 `json:"oracle_holdout,omitempty"`
	Knowable []*float64 `json:"client_knowable_holdout,omitempty"`
	Moved    []Moved    `json:"moved"`
	Search   jsonSearch `json:"search"`
	Engine   string     `json:"engine"` // the tuned cortex.toml
}

type jsonScore struct {
	Value     float64        `json:"score"`
	Objective float64        `json:"objective"`
	Penalty   float64        `json:"penalty"`
	Scenarios []jsonScenario `json:"scenarios"`
}

type jsonScenario struct {
	Name       string             `json:"scenario"`
	Success    float64            `json:"success_rate"`
	Goodput    float64            `json:"goodput"`
	Crashes    float64            `json:"crashes_per_run"`
	Inversions float64            `json:"inversions"`
	PeakAmp    float64            `json:"peak_amplification"` // mean over the runs
	Wasted     float64            `json:"wasted_share"`       // wasted retries over originals, mean over the runs
	Classes    map[string]float64 `json:"priority_success"`
}

type jsonSearch struct {
	Method      string    `json:"method"`
	Dimensions  int       `json:"dimensions"`
	Population  int       `json:"population"`
	Generations int       `json:"generations"`
	Evals       int       `json:"evaluations"`
	Rejected    int       `json:"rejected"`        // evaluations rejected on the screening seeds
	Screen      int       `json:"screening_seeds"` // 0: no screening
	Simulations int       `json:"simulations"`
	Seconds     float64   `json:"seconds"`
	CPUSeconds  float64   `json:"cpu_seconds"` // 0 when not measured
	Stop        string    `json:"stop"`
	History     []float64 `json:"history"`
}

// nullNaN is xs with each NaN as nil (JSON's null), nil for none.
func nullNaN(xs []float64) []*float64 {
	if len(xs) == 0 {
		return nil
	}
	out := make([]*float64, len(xs))
	for i, x := range xs {
		if !math.IsNaN(x) {
			out[i] = &xs[i]
		}
	}
	return out
}

// WriteJSON writes res as one JSON object: the scores, whether the tuned engine holds, the
// parameters moved, the search and the tuned file's text.
func WriteJSON(w io.Writer, res Result, opts Options, comment string) error {
	js := func(s Score) jsonScore {
		out := jsonScore{Value: s.Value, Objective: s.Objective, Penalty: s.Penalty}
		for _, sc := range s.Scenarios {
			c := map[string]float64{}
			for _, cl := range sc.Classes {
				c[fmt.Sprint(cl.Priority)] = cl.Success
			}
			out.Scenarios = append(out.Scenarios, jsonScenario{Name: sc.Scenario, Success: sc.Success, Goodput: sc.Goodput,
				Crashes: sc.Crashes, Inversions: sc.Inversions, PeakAmp: sc.PeakAmp, Wasted: sc.Wasted, Classes: c})
		}
		return out
	}
	doc := jsonReport{Objective: opts.Objective.String(), Train: opts.Train, Holdout: opts.Holdout,
		DefaultTrain: js(res.DefaultTrain), TunedTrain: js(res.TunedTrain), Holds: res.Holds(len(opts.Holdout) > 0),
		Moved: MovedParams(opts.Dims, res.Base, res.Tuned), Engine: string(engineconf.Format(res.Tuned, comment)),
		Search: jsonSearch{Method: "CMA-ES", Dimensions: res.Dimensions, Population: res.Population, Generations: res.Generations,
			Evals: res.Evals, Rejected: res.Rejected, Screen: res.Screen, Simulations: res.Simulations, Seconds: res.Elapsed.Seconds(), CPUSeconds: res.CPU.Seconds(), Stop: res.Stop, History: res.History}}
	for _, s := range opts.Scenarios {
		doc.Scenarios = append(doc.Scenarios, s.Name)
	}
	if len(opts.Holdout) > 0 {
		d, t := js(res.DefaultHoldout), js(res.TunedHoldout)
		doc.DefaultHold, doc.TunedHold = &d, &t
	}
	doc.Oracle, doc.Knowable = nullNaN(res.Oracle), nullNaN(res.Knowable)
	if doc.Moved == nil {
		doc.Moved = []Moved{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteMarkdown writes res as markdown rows, one per scenario: the success rate of the default
// and of the tuned engine on the training and the held-out seeds, the points gained on the
// held-out seeds, the oracle bound, the search's evaluations, its CPU time and evaluations per
// CPU-second (its wall time and evaluations per second when the CPU time was not measured: a
// wall time depends on the machine's load), why it stopped, and whether the file is written. Its first two lines are the table's header.
func WriteMarkdown(w io.Writer, res Result, opts Options) error {
	var b strings.Builder
	spent, spentName := res.CPU, "CPU time"
	if spent == 0 {
		spent, spentName = res.Elapsed, "time"
	}
	rate, rateName := float64(res.Evals)/math.Max(spent.Seconds(), 1e-9), "evaluations per CPU-second"
	if res.CPU == 0 {
		rateName = "evaluations/s"
	}
	fmt.Fprintf(&b, "| scenario | training: default | tuned | held-out: default | tuned | change (points) | oracle bound | client-knowable bound | held-out peak amplification | evaluations | %s | %s | stopped | file |\n", spentName, rateName)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	file := "written"
	switch {
	case !res.Improved:
		file = "not written: no gain"
	case !res.Holds(len(opts.Holdout) > 0):
		file = "refused: worse on held-out"
	}
	for i, scn := range opts.Scenarios {
		oracle, knowable := "-", "-"
		dh, th := "-", "-"
		change, peak := "-", "-"
		if len(opts.Holdout) > 0 {
			d, t := res.DefaultHoldout.Scenarios[i].Success, res.TunedHoldout.Scenarios[i].Success
			dh, th, change = cell(d, percent), cell(t, percent), delta(t-d, percent)
			peak = cell(res.DefaultHoldout.Scenarios[i].PeakAmp, factor) + " -> " + cell(res.TunedHoldout.Scenarios[i].PeakAmp, factor)
			if o := res.Oracle[i]; !math.IsNaN(o) {
				oracle = cell(o, percent)
			}
			if i < len(res.Knowable) && !math.IsNaN(res.Knowable[i]) {
				knowable = cell(res.Knowable[i], percent)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %.2f | %s | %s |\n", scn.Name,
			cell(res.DefaultTrain.Scenarios[i].Success, percent), cell(res.TunedTrain.Scenarios[i].Success, percent),
			dh, th, change, oracle, knowable, peak, res.Evals, spent.Round(time.Second), rate, res.Stop, file)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
