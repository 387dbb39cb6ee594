package summary

import (
	"fmt"
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

// RunBaselines runs scn to its end with each strategy of names from seed, off the Update loop,
// through factory (the dashboard's: a simulator run takes well under a second), and answers a
// BaselinesMsg of generation gen.
func RunBaselines(factory func(scenarios.Scenario, string, int64) (source.Source, error), scn scenarios.Scenario, seed int64, names []string, gen int) tea.Cmd {
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
