package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cortex-tui/cortex-tui/live"
	"github.com/cortex-tui/cortex-tui/report"
)

// simVsLive is the document of live --compare-sim: the same scenario, strategy and seed run in
// the simulator and live, each with its summary.
type simVsLive struct {
	Scenario string         `json:"scenario"`
	Strategy string         `json:"strategy"`
	Seed     int64          `json:"seed"`
	Scale    float64        `json:"scale"`
	Sim      report.Summary `json:"sim"`
	Live     report.Summary `json:"live"`
}

// compareSim runs p's scenario in the simulator (scaled as the live run is) and live, and
// prints the two summaries side by side: JSON with --format json, a table otherwise.
func compareSim(ctx context.Context, io streams, p livePlan, format string) error {
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
	doc := simVsLive{Scenario: p.scn.Name, Strategy: p.strategy, Seed: p.seed, Scale: p.scale, Sim: simRes.Summary, Live: liveRes.Summary}
	if format == "json" {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return writeSimVsLive(io.out, doc)
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
	for _, p := range d.Sim.Priorities() {
		row("priority "+p+" success", pct(d.Sim.PrioritySuccess[p]), pct(d.Live.PrioritySuccess[p]))
	}
	return tw.Flush()
}
