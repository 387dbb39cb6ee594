package tui

import (
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/summary"
)

// baselineNames are the strategies a single run's summary is compared with: no retries at all,
// and retrying at once.
var baselineNames = []string{"none", "naive"}

// baseline is the summary's comparison: the scenario as written, run to its end on the side
// with each of baselineNames, on the run's seed (so the same arrivals).
type baseline struct {
	gen  int              // the model's generation it was asked for
	sums []report.Summary // nil while running
	err  error
}

// startBaselines returns the command that runs the baselines of the summary now shown, once per
// run: on a single simulated run's summary only (compare mode has its two columns; a live run
// cannot be replayed; a class's students share the class run, not sixty baselines), leaving
// out the run's own strategy.
func (m *Model) startBaselines() tea.Cmd {
	if m.screen != screenSummary || len(m.fr.runs) != 1 || m.scn == nil || m.fr.runs[0].meta.Live || m.following() {
		return nil
	}
	if m.fr.baseline != nil && m.fr.baseline.gen == m.ctl.gen {
		return nil
	}
	meta := m.fr.runs[0].meta
	var names []string
	for _, n := range baselineNames {
		if n != meta.Strategy {
			names = append(names, n)
		}
	}
	m.fr.baseline = &baseline{gen: m.ctl.gen}
	return summary.RunBaselines(m.opts.Factory, ownStrategy(*m.scn), meta.Seed, names, m.ctl.gen)
}

// ownStrategy is scn for a baseline: each baseline runs its own strategy from start to end, so
// the strategy switches of scn's timeline (a recorded demo's) are left out, its other controls
// (faults, classes, weights) kept as part of the scenario. A recording that switched to naive
// had its "none" baseline read "none+naive", beside a "naive" column with the same figures.
func ownStrategy(scn scenarios.Scenario) scenarios.Scenario {
	scn.Controls = slices.DeleteFunc(slices.Clone(scn.Controls), func(c scenarios.ScheduledControl) bool {
		return c.Control == scenarios.ControlStrategy
	})
	return scn
}

// onBaselines keeps the baselines of the current run and redraws the summary.
func (m *Model) onBaselines(msg summary.BaselinesMsg) {
	if m.fr.baseline == nil || msg.Gen != m.fr.baseline.gen || msg.Gen != m.ctl.gen {
		return // the run was restarted or replaced since
	}
	m.fr.baseline.sums, m.fr.baseline.err = msg.Sums, msg.Err
	if msg.Err != nil {
		m.setStatus("baseline: "+msg.Err.Error(), true)
	}
	m.redraw()
}

// baselineColumns returns the baseline summaries to show beside a single run, and the line
// that says what they are.
func baselineColumns(f *frame) ([]report.Summary, string) {
	if len(f.runs) != 1 || f.baseline == nil {
		return nil, ""
	}
	b := f.baseline
	switch {
	case b.err != nil:
		return nil, "baselines failed: " + b.err.Error()
	case b.sums == nil:
		return nil, "running none and naive on the same seed for comparison…"
	}
	var names []string
	for _, s := range b.sums {
		names = append(names, s.Strategy)
	}
	return slices.Clone(b.sums), fmt.Sprintf("%s: the scenario as written, same seed and arrivals, run on the side for comparison (without the faults and controls applied by keys, each on its own strategy throughout)", summary.JoinNames(names))
}
