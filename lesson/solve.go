package lesson

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Solve plays l on src (a fresh run of the lesson's scenario and strategy) as a learner who
// follows every hint would: it applies each step's actions when the step begins, steps the run
// one tick at a time and evaluates the goals, and returns the run time at which each step was
// completed. It is an error if the run ends first: the lesson cannot be completed with its own
// actions. The tests use it to prove every built-in lesson reachable; `learn --check` too.
func Solve(l scenarios.Lesson, src source.Source) ([]time.Duration, error) {
	meta := src.Meta()
	names := make([]string, len(meta.Classes))
	for i, c := range meta.Classes {
		names[i] = c.Name
	}
	tr := New(l, names)
	var done []time.Duration
	apply := func(i int) error {
		for _, a := range l.Steps[i].Actions {
			if err := Apply(src, a); err != nil {
				return fmt.Errorf("step %d: %s: %w", i+1, a.Text, err)
			}
			if a.Kind == scenarios.ActRestart {
				tr.Restarted()
			}
		}
		return nil
	}
	if len(l.Steps) > 0 {
		if err := apply(0); err != nil {
			return done, err
		}
	}
	for !tr.Done() {
		snaps := src.Advance(meta.Tick)
		if len(snaps) == 0 {
			break
		}
		for _, s := range snaps {
			if !tr.Observe(s, src.Meta().Strategy) {
				continue
			}
			done = append(done, s.T)
			if tr.Done() {
				return done, nil
			}
			if err := apply(tr.Step()); err != nil {
				return done, err
			}
		}
	}
	if tr.Done() {
		return done, nil
	}
	st := tr.Status(src.Meta().Strategy)
	return done, fmt.Errorf("the run ended at step %d of %d (%s), earlier steps done at %v: goals %v", st.Step+1, st.Steps, st.Text, done, st.Goals)
}
