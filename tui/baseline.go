package tui

import (
	"fmt"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
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

// baselineMsg carries the baseline runs' summaries, or why they failed.
type baselineMsg struct {
	gen  int
	sums []report.Summary
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
	return runBaselines(m.opts.Factory, *m.scn, meta.Seed, names, m.ctl.gen)
}

// runBaselines runs scn to its end with each strategy of names from seed, off the Update
// loop, through the dashboard's factory (a simulator run takes well under a second).
func runBaselines(factory SourceFactory, scn scenarios.Scenario, seed int64, names []string, gen int) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = baselineMsg{gen: gen, err: fmt.Errorf("baseline run panicked: %v", r)}
			}
		}()
		var sums []report.Summary
		for _, name := range names {
			src, err := factory(scn, name, seed)
			if err != nil {
				return baselineMsg{gen: gen, err: err}
			}
			rec := report.NewRecorder(src.Meta())
			for done := false; !done; {
				snaps := src.Advance(10 * time.Second)
				for _, s := range snaps {
					rec.Add(s)
					done = done || s.Done
				}
				done = done || len(snaps) == 0
			}
			_ = src.Close()
			sums = append(sums, rec.Summary())
		}
		return baselineMsg{gen: gen, sums: sums}
	}
}

// onBaselines keeps the baselines of the current run and redraws the summary.
func (m *Model) onBaselines(msg baselineMsg) {
	if m.fr.baseline == nil || msg.gen != m.fr.baseline.gen || msg.gen != m.ctl.gen {
		return // the run was restarted or replaced since
	}
	m.fr.baseline.sums, m.fr.baseline.err = msg.sums, msg.err
	if msg.err != nil {
		m.setStatus("baseline: "+msg.err.Error(), true)
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
	return slices.Clone(b.sums), fmt.Sprintf("%s: the scenario as written, same seed and arrivals, run on the side for comparison (without the faults and controls applied by keys)", joinNames(names))
}

// joinNames writes "none and naive", "none".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := names[0]
	for _, n := range names[1 : len(names)-1] {
		out += ", " + n
	}
	return out + " and " + names[len(names)-1]
}
