package summary

import (
	"fmt"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// BaselinesMsg carries the baseline runs' summaries, or why they failed; Gen is the caller's
// generation when it asked for them.
type BaselinesMsg struct {
	Gen  int
	Sums []report.Summary
	Err  error
}

// baselineNames are the strategies a single run's summary is compared with: no retries at all,
// and retrying at once.
var baselineNames = []string{"none", "naive"}

// BaselinesFor returns the strategies a run of strategy is compared with on its summary: the
// baselines but its own.
func BaselinesFor(strategy string) []string {
	return slices.DeleteFunc(slices.Clone(baselineNames), func(n string) bool { return n == strategy })
}

// Baselines is the summary's comparison: the scenario as written, run to its end on the side
// with each baseline strategy, on the run's seed (so the same arrivals). The zero value is
// running; a nil one was not asked for.
type Baselines struct {
	Gen  int              // the caller's generation it was asked for
	Sums []report.Summary // nil while running
	Err  error
}

// Columns returns the baseline summaries to show beside the run, and the line that says what
// they are (or that they run, or failed); none for nil.
func (b *Baselines) Columns() ([]report.Summary, string) {
	switch {
	case b == nil:
		return nil, ""
	case b.Err != nil:
		return nil, "baselines failed: " + b.Err.Error()
	case b.Sums == nil:
		return nil, "running none and naive on the same seed for comparison…"
	}
	var names []string
	for _, s := range b.Sums {
		names = append(names, s.Strategy)
	}
	return slices.Clone(b.Sums), fmt.Sprintf("%s: the scenario as written, same seed and arrivals, run on the side for comparison (without the faults and controls applied by keys, each on its own strategy throughout)", JoinNames(names))
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

// RunBaselines runs scn (its strategy switches left out: each baseline keeps its own) to its
// end with each strategy of names from seed, off the Update loop, through factory (the
// dashboard's: a simulator run takes well under a second), and answers a BaselinesMsg of
// generation gen.
func RunBaselines(factory func(scenarios.Scenario, string, int64) (source.Source, error), scn scenarios.Scenario, seed int64, names []string, gen int) tea.Cmd {
	scn = ownStrategy(scn)
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = BaselinesMsg{Gen: gen, Err: fmt.Errorf("baseline run panicked: %v", r)}
			}
		}()
		var sums []report.Summary
		for _, name := range names {
			src, err := factory(scn, name, seed)
			if err != nil {
				return BaselinesMsg{Gen: gen, Err: err}
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
		return BaselinesMsg{Gen: gen, Sums: sums}
	}
}

// JoinNames writes "none and naive", "none".
func JoinNames(names []string) string {
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
