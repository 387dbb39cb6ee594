package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/plots"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// plotPlan is what run --headless --plot draws: the picture's file and format, and the
// strategies run beside the run's own on the same scenario and seed (--plot-with).
type plotPlan struct {
	path, format string
	with         []string
}

// planPlot checks --plot and --plot-with before anything runs: the file's extension names the
// format, each strategy exists and is not the run's own; a usage error (exit 2) otherwise.
// The zero plan, without --plot, draws nothing.
func planPlot(o runOptions, name string) (plotPlan, error) {
	if o.plot == "" {
		if o.plotWith != "" {
			return plotPlan{}, &exitError{code: 2, err: fmt.Errorf("--plot-with draws beside --plot: give --plot FILE.svg or FILE.png too")}
		}
		return plotPlan{}, nil
	}
	format, err := plots.FormatOf(o.plot)
	if err != nil {
		return plotPlan{}, &exitError{code: 2, err: fmt.Errorf("--plot %w", err)}
	}
	p := plotPlan{path: o.plot, format: format}
	if o.plotWith == "" {
		return p, nil
	}
	for _, s := range strings.Split(o.plotWith, ",") {
		n, err := checkStrategy(s)
		if err != nil {
			return plotPlan{}, &exitError{code: 2, err: fmt.Errorf("--plot-with: %w", err)}
		}
		if n != name && !slices.Contains(p.with, n) {
			p.with = append(p.with, n)
		}
	}
	return p, nil
}

// others runs the plan's other strategies on scn from seed, in order (the run's own is first
// on the chart).
func (p plotPlan) others(scn scenarios.Scenario, seed int64, o runOptions) ([]report.Result, error) {
	out := make([]report.Result, 0, len(p.with))
	for _, n := range p.with {
		r, err := simulate(scn, n, seed, o.eng.sim())
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// write draws results into the plan's file (replaced at once; nothing without --plot).
func (p plotPlan) write(results []report.Result) error {
	if p.path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := plots.Write(&b, p.format, results); err != nil {
		return fmt.Errorf("--plot %s: %w", p.path, err)
	}
	if err := atomicfile.Write(p.path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--plot %s: %w", p.path, err)
	}
	return nil
}
