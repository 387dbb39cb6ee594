package report

import "github.com/cortex-tui/cortex-tui/source"

// Stepper is a run stepped to its end one tick at a time, such as the simulator's *sim.Sim.
type Stepper interface {
	// Meta describes the run.
	Meta() source.Meta
	// Step runs one tick and returns its snapshot.
	Step() source.Snapshot
	// Done reports whether the run is over.
	Done() bool
}

// Result is a whole headless run: its description, the per-second timeline and the summary.
type Result struct {
	Meta     source.Meta
	Timeline []Row
	Summary  Summary
}

// Run steps s to its end and returns its timeline (one row per second: counts summed, gauges
// averaged) and its summary, recorded from its snapshots by a Recorder.
func Run(s Stepper) Result {
	meta := s.Meta()
	rec := NewRecorder(meta)
	for !s.Done() {
		rec.Add(s.Step())
	}
	return Result{Meta: meta, Timeline: rec.Rows(), Summary: rec.Summary()}
}
