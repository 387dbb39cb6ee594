package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cortex-tui/cortex-tui/live"
	"github.com/cortex-tui/cortex-tui/report"
)

// simVsLive is the document of live --compare-sim: the same scenario, strategy and seed run in
// the simulator and live, each with its summary.
type simVsLive struct {
	Scenario string         `json:"scenario"`
	Faults   []string       `json:"faults"` // the kinds of the scenario's faults, in order of their start
	Strategy string         `json:"strategy"`
	Seed     int64          `json:"seed"`
	Scale    float64        `json:"scale"`
	Sim      report.Summary `json:"sim"`
	Live     report.Summary `json:"live"`
}

// compareSimFormats are the outputs of live --compare-sim, the default on a terminal first:
// table (one line a figure), json (the document) and markdown (one table row a run, under its
// header: `make live-vs-sim` writes docs/simulator.md's table from them).
var compareSimFormats = []report.Format[simVsLive]{
	{Name: "table", Write: writeSimVsLive},
	{Name: "json", Write: func(w io.Writer, d simVsLive) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}},
	{Name: "markdown", Write: writeSimVsLiveMarkdown},
}

// compareSim runs p's scenario in the simulator (scaled as the live run is) and live, and
// prints the two summaries side by side in format, one of compareSimFormats.
func compareSim(ctx context.Context, io streams, p livePlan, format report.Format[simVsLive]) error {
	scn := live.ScaledScenario(p.scn, p.scale)
	if p.cfg.Duration > 0 { // the simulator plays the same length: arrivals, then the drain left
		scn.Duration = min(scn.Duration, p.cfg.Duration)
		scn.Drain = max(0, p.cfg.Duration-scn.Duration)
	}
	simRes, err := await(ctx, func() (report.Result, error) { return simulate(scn, p.strategy, p.seed, p.eng.sim()) })
	if err != nil {
		return err
	}
	srcs := &liveSources{ctx: ctx, plan: p}
	defer srcs.closeAll()
	liveRes, err := recordLive(ctx, srcs, p, io.err)
	if err != nil {
		return err
	}
	faults := make([]string, len(p.scn.Faults))
	for i, f := range p.scn.Faults {
		faults[i] = string(f.Kind)
	}
	doc := simVsLive{Scenario: p.scn.Name, Faults: faults, Strategy: p.strategy, Seed: p.seed, Scale: p.scale, Sim: simRes.Summary, Live: liveRes.Summary}
	return format.Write(io.out, doc)
}

// writeSimVsLive prints the figures of both runs, one line each.
func writeSimVsLive(w io.Writer, d simVsLive) error {
	fmt.Fprintf(w, "%s, %s, seed %d, scale %.3g: the simulator against live traffic\n\n", d.Scenario, d.Strategy, d.Seed, d.Scale)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name string, s, l string) { fmt.Fprintf(tw, "%s\t%s\t%s\n", name, s, l) }
	row("", "sim", "live")
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	num := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	row("success rate", pct(d.Sim.SuccessRate), pct(d.Live.SuccessRate))
	row("goodput", report.GoodputText(d.Sim.Goodput), report.GoodputText(d.Live.Goodput))
	row("amplification", num(d.Sim.Amplification), num(d.Live.Amplification))
	row("peak amplification", num(d.Sim.PeakAmplification), num(d.Live.PeakAmplification))
	row("retries", fmt.Sprint(d.Sim.Retries), fmt.Sprint(d.Live.Retries))
	row("wasted retries", fmt.Sprint(d.Sim.WastedRetries), fmt.Sprint(d.Live.WastedRetries))
	row("recovery", report.RecoveryText(d.Sim.RecoverySeconds), report.RecoveryText(d.Live.RecoverySeconds))
	row("crashes", fmt.Sprint(d.Sim.Crashes), fmt.Sprint(d.Live.Crashes))
	if d.Live.InFlightCapRefused > 0 {
		row("refused at the in-flight cap", "-", fmt.Sprint(d.Live.InFlightCapRefused))
	}
	for _, p := range d.Sim.Priorities() {
		row("priority "+p+" success", pct(d.Sim.PrioritySuccess[p]), pct(d.Live.PrioritySuccess[p]))
	}
	return tw.Flush()
}

// writeSimVsLiveMarkdown prints d as a markdown table, its header and one row: the scenario's
// faults, the strategy, then each figure (crashes too) as "sim / live", the success of each priority last,
// highest first. Rows of runs of one scenario share the header, so that concatenated outputs
// with repeated headers dropped make one table.
func writeSimVsLiveMarkdown(w io.Writer, d simVsLive) error {
	prios := d.Sim.Priorities()
	head := []string{"fault", "strategy", "success sim / live", "amplification", "peak amplification", "retries", "originals shed", "recovery", "crashes"}
	for _, p := range prios {
		head = append(head, "priority "+p)
	}
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	num := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	count := func(n int) string { return fmt.Sprint(n) }
	pair := func(s, l string) string { return s + " / " + l }
	fault := strings.Join(d.Faults, "+")
	if fault == "" {
		fault = "none"
	}
	row := []string{fault, d.Strategy,
		pair(pct(d.Sim.SuccessRate), pct(d.Live.SuccessRate)),
		pair(num(d.Sim.Amplification), num(d.Live.Amplification)),
		pair(num(d.Sim.PeakAmplification), num(d.Live.PeakAmplification)),
		pair(count(d.Sim.Retries), count(d.Live.Retries)),
		pair(count(d.Sim.OriginalsShed), count(d.Live.OriginalsShed)),
		pair(report.RecoveryText(d.Sim.RecoverySeconds), report.RecoveryText(d.Live.RecoverySeconds)),
		pair(count(d.Sim.Crashes), count(d.Live.Crashes)),
	}
	for _, p := range prios {
		row = append(row, pair(pct(d.Sim.PrioritySuccess[p]), pct(d.Live.PrioritySuccess[p])))
	}
	rule := make([]string, len(head))
	for i := range rule {
		rule[i] = "---"
	}
	_, err := fmt.Fprintf(w, "| %s |\n|%s|\n| %s |\n", strings.Join(head, " | "), strings.Join(rule, "|"), strings.Join(row, " | "))
	return err
}
