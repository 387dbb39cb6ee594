// Package lesson runs the lessons of package scenarios: a Tracker follows a run's snapshots,
// evaluates the current step's goals (the typed vocabulary of scenarios.Metrics) at every tick,
// unlocks the next step when they hold, and says when to show the hint. Apply carries out a
// step's actions on a source (the tests use it to prove each lesson can be completed), and
// Progress keeps which lessons a user finished in their configuration directory. The package
// imports no UI library.
package lesson

import (
	"math"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Tracker follows one lesson over a run. The zero value is not usable: call New. A Tracker is
// not safe for concurrent use.
type Tracker struct {
	l       scenarios.Lesson
	classes map[string]int // class name -> index in the snapshots' Classes
	step    int            // the current step; len(Steps) once done
	start   time.Duration  // run time when the current step began
	since   []time.Duration
	held    []bool
	ended   bool // the run ended before the lesson did

	win     window
	last    source.Snapshot
	seen    bool
	crashes int
}

// New returns a tracker of l over a run whose classes are named classes (Meta's order).
func New(l scenarios.Lesson, classes []string) *Tracker {
	t := &Tracker{l: l, classes: map[string]int{}}
	for i, c := range classes {
		t.classes[c] = i
	}
	t.enter(0, 0)
	return t
}

// enter makes step i the current step from run time at.
func (t *Tracker) enter(i int, at time.Duration) {
	t.step, t.start = i, at
	n := 0
	if i < len(t.l.Steps) {
		n = len(t.l.Steps[i].Goals)
	}
	t.since = make([]time.Duration, n)
	t.held = make([]bool, n)
}

// Lesson returns the lesson followed.
func (t *Tracker) Lesson() scenarios.Lesson { return t.l }

// Step returns the index of the current step (len(Steps) once the lesson is done).
func (t *Tracker) Step() int { return t.step }

// Done reports whether every step's goals have held.
func (t *Tracker) Done() bool { return t.step >= len(t.l.Steps) }

// Restarted forgets the run's figures after the run restarts from t=0 (the steps done stay
// done; the current step starts again).
func (t *Tracker) Restarted() {
	t.win = window{}
	t.seen, t.crashes, t.ended = false, 0, false
	t.last = source.Snapshot{}
	if !t.Done() {
		t.enter(t.step, 0)
	}
}

// Observe takes one snapshot of the run, whose strategy is running now, and evaluates the
// current step's goals; it returns true when the snapshot completed the step (the next one is
// then current, or the lesson is done).
func (t *Tracker) Observe(s source.Snapshot, running string) bool {
	t.last, t.seen = s, true
	t.win.add(s)
	t.crashes += s.Counts.Crashes
	if t.Done() {
		return false
	}
	if s.Done {
		t.ended = true
	}
	return t.evaluate(s.T, running)
}

// Control takes a control applied to the run before the next snapshot shows it (the
// dashboard, paused, applies it at once and shows it: the weights on screen), and evaluates
// the current step's goals again at the same time, as they read with it; it returns true when
// that completes the step. Only the CORTEX weights are read from a control (a strategy switch
// reaches the goals through running); the next snapshot replaces what it changed.
func (t *Tracker) Control(c source.ControlEvent, running string) bool {
	if t.Done() || !t.seen {
		return false
	}
	if c.Control == source.ControlWeights && t.last.Cortex != nil {
		if w, err := c.Weights.Normalized(); err == nil {
			cv := *t.last.Cortex // the snapshot's view is shared: change a copy
			cv.Weights = w
			t.last.Cortex = &cv
		}
	}
	return t.evaluate(t.last.T, running)
}

// evaluate checks the current step's goals at run time now: each goal's hold starts when it
// first holds, and the step is complete when every goal has held for its time.
func (t *Tracker) evaluate(now time.Duration, running string) bool {
	step := t.l.Steps[t.step]
	all := true
	for i, g := range step.Goals {
		ok := t.holds(g, running)
		switch {
		case ok && !t.held[i]:
			t.held[i], t.since[i] = true, now
		case !ok:
			t.held[i] = false
		}
		if !ok || now-t.since[i] < g.For {
			all = false
		}
	}
	if all {
		t.enter(t.step+1, now)
		return true
	}
	return false
}

// Skip moves on to the next step without waiting for its goals (a teacher moves a class on),
// as if the current step had been completed at the latest snapshot's time; it reports false,
// changing nothing, once the lesson is done.
func (t *Tracker) Skip() bool {
	if t.Done() {
		return false
	}
	t.enter(t.step+1, t.last.T)
	return true
}

// holds evaluates one goal on the latest snapshot.
func (t *Tracker) holds(g scenarios.Goal, running string) bool {
	if g.Metric.Kind == scenarios.MetricState {
		v, ok := t.state(g.Metric, running)
		return ok && g.Op.HoldsState(v, g.State)
	}
	v, ok := t.Value(g)
	return ok && g.Op.Holds(v, g.Num)
}

// state returns a state metric's value; ok is false when it has none (no cortex, no tick yet).
func (t *Tracker) state(m scenarios.Metric, running string) (string, bool) {
	switch m.ID {
	case scenarios.MetricService:
		return t.last.Service.State.String(), t.seen
	case scenarios.MetricStrategy:
		return running, running != ""
	case scenarios.MetricBand:
		if t.last.Cortex == nil {
			return "", false
		}
		return t.last.Cortex.State.String(), true
	}
	return "", false
}

// Value returns a number goal's metric now; ok is false when it has no value yet (no tick,
// nothing finished in the window, a CORTEX figure under another strategy).
func (t *Tracker) Value(g scenarios.Goal) (float64, bool) {
	if !t.seen {
		return 0, false
	}
	s, w := &t.last, &t.win
	cv := s.Cortex
	switch g.Metric.ID {
	case scenarios.MetricTime:
		return s.T.Seconds(), true
	case scenarios.MetricSuccess:
		return ratio(float64(w.sum.Completed), float64(w.sum.Completed+w.sum.Abandoned))
	case scenarios.MetricAmplification:
		return ratio(float64(w.sum.Attempts), float64(w.sum.Originals))
	case scenarios.MetricRetries:
		return w.perSecond(float64(w.sum.Retries))
	case scenarios.MetricShed:
		return w.perSecond(float64(w.sum.Shed))
	case scenarios.MetricBudget:
		return w.perSecond(float64(w.sum.BudgetRejected))
	case scenarios.MetricLocalRejects:
		return w.perSecond(float64(w.sum.LocalRejects))
	case scenarios.MetricQueue:
		return float64(s.Service.Queue), true
	case scenarios.MetricUtilisation:
		return s.Service.Utilisation, true
	case scenarios.MetricCrashes:
		return float64(t.crashes), true
	case scenarios.MetricClassSuccess, scenarios.MetricClassShed:
		i, ok := t.classes[g.Class]
		if !ok || i >= len(w.classes) {
			return 0, false
		}
		c := w.classes[i]
		if g.Metric.ID == scenarios.MetricClassShed {
			return w.perSecond(float64(c.Shed))
		}
		return ratio(float64(c.Succeeded), float64(c.Arrived))
	}
	if cv == nil {
		return 0, false
	}
	switch g.Metric.ID {
	case scenarios.MetricCPS:
		return cv.CPS, true
	case scenarios.MetricOpen:
		return float64(cv.Open), true
	case scenarios.MetricSignal:
		return cv.Signals.Array()[g.Metric.Index], true
	case scenarios.MetricWeight:
		return cv.Weights.Array()[g.Metric.Index], true
	}
	return 0, false
}

// ratio is a/b, undefined when b is 0.
func ratio(a, b float64) (float64, bool) {
	if b <= 0 {
		return 0, false
	}
	return a / b, true
}

// Status is what the lesson panel shows of the current step.
type Status struct {
	Step, Steps int      // the current step (0-based) and how many there are
	Text        string   // the step's text ("" once done)
	Hint        string   // the step's hint once due, else ""
	Goals       []Goal   // the step's goals and their state now
	Done        bool     // every step is done
	Ended       bool     // the run ended before the lesson did: restart it
	Actions     []string // the step's actions as written (shown with the hint)
}

// Goal is one goal's state now.
type Goal struct {
	Text  string // the goal as written: "success >= 70% for 30s"
	Value string // the metric's value now ("-" when it has none)
	// Met says the goal is met: it holds now and has held for its time. Holding says it holds
	// now but has not held long enough yet (a goal with a "for"): not met, not failed.
	Met, Holding bool
	Held         time.Duration // how long it has held (while it holds)
	For          time.Duration // how long it must hold
	// Window is how far back Value looks: scenarios.WindowSeconds for a windowed metric
	// (scenarios.Metric.Windowed), 0 for a value at the last tick.
	Window time.Duration
}

// Status returns the current step's state.
func (t *Tracker) Status(running string) Status {
	st := Status{Step: t.step, Steps: len(t.l.Steps), Done: t.Done(), Ended: t.ended && !t.Done()}
	if st.Done {
		return st
	}
	step := t.l.Steps[t.step]
	st.Text = step.Text
	if t.last.T-t.start >= t.l.HintAt || t.ended {
		st.Hint = step.Hint
		for _, a := range step.Actions {
			st.Actions = append(st.Actions, a.Text)
		}
	}
	for i, g := range step.Goals {
		gs := Goal{Text: g.String(), Value: "-", For: g.For}
		if g.Metric.Windowed() {
			gs.Window = scenarios.WindowSeconds * time.Second
		}
		if t.holds(g, running) {
			if t.held[i] {
				gs.Held = t.last.T - t.since[i]
			}
			gs.Met = gs.Held >= g.For
			gs.Holding = !gs.Met
		}
		if g.Metric.Kind == scenarios.MetricState {
			if v, ok := t.state(g.Metric, running); ok {
				gs.Value = v
			}
		} else if v, ok := t.Value(g); ok && !math.IsNaN(v) {
			gs.Value = g.Metric.Format(v)
		}
		st.Goals = append(st.Goals, gs)
	}
	return st
}
