package sim

import (
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Result is a headless run: its description, the per-second timeline and the summary.
type Result struct {
	Meta     source.Meta
	Timeline []report.Row
	Summary  report.Summary
}

// Run simulates scn with strategyName from seed to the end (arrival phase and drain) and
// returns the timeline (one row per simulated second: counts summed, gauges averaged) and
// the summary, both computed by package report.
func Run(scn scenarios.Scenario, strategyName string, seed int64) (Result, error) {
	s, err := New(scn, strategyName, seed)
	if err != nil {
		return Result{}, err
	}
	meta := s.Meta()
	rec := report.NewRecorder(meta)
	for !s.Done() {
		rec.Add(s.Step())
	}
	return Result{Meta: meta, Timeline: rec.Rows(), Summary: rec.Summary()}, nil
}
