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
// averaged) and its summary, recorded from its snapshots by a Recorder (Recorder.Result).
func Run(s Stepper) Result {
	rec := NewRecorder(s.Meta())
	for !s.Done() {
		rec.Add(s.Step())
	}
	return rec.Result()
}

// Result is the run recorded so far: its description, named by every strategy it used (as the
// summary is: "cortex+naive" after a switch), its timeline and its summary. The headless run,
// the dashboard's export and its record of a run all write this one value, so that a
// scenario recorded in the dashboard replays headless to the same bytes.
func (r *Recorder) Result() Result {
	sum := r.Summary()
	meta := r.meta
	meta.Strategy = sum.Strategy
	return Result{Meta: meta, Timeline: r.Rows(), Summary: sum}
}
