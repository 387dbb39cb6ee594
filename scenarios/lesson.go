package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Lesson is a short guided exercise on one scenario: a few steps, each with what to do, a goal
// checked live from the run's snapshots, and a hint for a learner who is stuck. Lessons are
// files in the scenario format's style (ParseLesson); the built-in ones are in Lessons. The
// goals are typed data (Goal), validated against the vocabulary of metrics (Metrics): package
// lesson evaluates them.
type Lesson struct {
	Name     string        // short identifier, e.g. "retry-storm"
	Title    string        // one line, e.g. "What a retry storm is"
	Summary  string        // a sentence or two: what the learner will see
	Scenario string        // the built-in scenario the lesson runs
	Strategy string        // the strategy the run starts with (default "cortex")
	Guided   bool          // pause the run at each caption until a key is pressed (default true)
	HintAt   time.Duration // scenario time after a step's start when its hint appears (default 20s)
	Steps    []Step
	// Controls are the lesson's timeline of controls ([[control]], as in a scenario file or a
	// recorded demo): played over the scenario's own at their virtual times, whatever the
	// learner does (package lesson's Scenario), each complete (Resolve) and in time order.
	Controls []ScheduledControl
}

// Step is one step of a lesson: it is done when every goal has held for its For.
type Step struct {
	Text    string   // what to watch or do
	Hint    string   // shown once the step has lasted the lesson's HintAt
	Goals   []Goal   // all must hold together
	Actions []Action // the controls that complete the step (what the hint asks for); the tests apply them
}

// Goal is one condition on the run: Metric Op Value, held for at least For (0: at one tick).
type Goal struct {
	Metric Metric
	Class  string  // the class of a per-class metric (class.NAME.success), else ""
	Op     Op      // a comparison
	Num    float64 // the value of a number metric
	State  string  // the value of a state metric ("CRASHED", "cortex")
	For    time.Duration
}

// String writes the goal as the lesson panel shows it: "service == CRASHED for 5s".
func (g Goal) String() string {
	name := g.Metric.Name
	if g.Class != "" {
		name = strings.Replace(name, "NAME", g.Class, 1)
	}
	value := g.State
	if g.Metric.Kind == MetricNumber {
		value = g.Metric.Format(g.Num)
	}
	s := fmt.Sprintf("%s %s %s", name, g.Op, value)
	if g.For > 0 {
		s += " for " + FormatDuration(g.For)
	}
	return s
}

// Op is a comparison of a goal.
type Op string

// The comparisons: the four orderings for numbers, equality for states.
const (
	OpLess      Op = "<"
	OpLessEq    Op = "<="
	OpGreater   Op = ">"
	OpGreaterEq Op = ">="
	OpEqual     Op = "=="
	OpNotEqual  Op = "!="
)

// Holds reports whether v Op want, for a number metric.
func (o Op) Holds(v, want float64) bool {
	switch o {
	case OpLess:
		return v < want
	case OpLessEq:
		return v <= want
	case OpGreater:
		return v > want
	case OpGreaterEq:
		return v >= want
	case OpEqual:
		return v == want
	case OpNotEqual:
		return v != want
	}
	return false
}

// HoldsState reports whether v Op want, for a state metric (== or !=).
func (o Op) HoldsState(v, want string) bool {
	switch o {
	case OpEqual:
		return v == want
	case OpNotEqual:
		return v != want
	}
	return false
}

// MetricKind says what a metric's value is.
type MetricKind uint8

// The kinds of metric.
const (
	MetricNumber MetricKind = iota // a number, compared with < <= > >=
	MetricState                    // one of a few names, compared with == and !=
)

// MetricID names a metric of the goal vocabulary.
type MetricID uint8

// The metrics of the goal vocabulary. Windowed figures are over the last WindowSeconds of the
// run; gauges are at the last tick.
const (
	MetricService       MetricID = iota // the service's state: UP, DOWN, CRASHED, WARMING
	MetricStrategy                      // the strategy running now
	MetricBand                          // CORTEX's band: HEALTHY, DEGRADED, CRITICAL, EMERGENCY (cortex only)
	MetricTime                          // scenario time, seconds
	MetricSuccess                       // originals finished successfully / finished, over the window
	MetricAmplification                 // attempts / originals, over the window
	MetricRetries                       // retries sent per second, over the window
	MetricShed                          // retries shed by priority per second, over the window
	MetricBudget                        // retries refused by the budget per second, over the window
	MetricLocalRejects                  // attempts a strategy refused to send (an open breaker) per second, over the window
	MetricQueue                         // the service's queue length
	MetricUtilisation                   // offered load / capacity
	MetricCrashes                       // overload crashes since the run started
	MetricCPS                           // CORTEX's mean CPS (cortex only)
	MetricOpen                          // clients whose circuit is OPEN (cortex only)
	MetricSignal                        // one CORTEX signal, signal.F .. signal.C (cortex only)
	MetricWeight                        // one CORTEX weight, weight.F .. weight.C (cortex only)
	MetricClassSuccess                  // a class's originals completed / arrived, over the window
	MetricClassShed                     // a class's retries shed per second, over the window
)

// WindowSeconds is the length of the window of the windowed metrics, in seconds of the run.
const WindowSeconds = 5

// Metric is one entry of the goal vocabulary.
type Metric struct {
	ID     MetricID
	Name   string // as written in a lesson file: "success", "signal.L", "class.NAME.success"
	Kind   MetricKind
	Index  int      // signal.F..C and weight.F..C: 0..4
	States []string // a state metric's values (nil for strategy: the strategy catalog)
	Doc    string   // one line, with its unit
}

// Windowed reports whether the metric is over the last WindowSeconds of the run (success,
// amplification, the rates of retries, sheds and refusals, a class's success and shed) rather
// than a gauge at the last tick: the lesson panel says "last 5s" beside its value, which a
// chart's "now" (the last whole second) may not equal.
func (m Metric) Windowed() bool {
	switch m.ID {
	case MetricSuccess, MetricAmplification, MetricRetries, MetricShed, MetricBudget, MetricLocalRejects, MetricClassSuccess, MetricClassShed:
		return true
	}
	return false
}

// Format writes a number metric's value for the lesson panel: a percentage for a rate.
func (m Metric) Format(v float64) string {
	switch m.ID {
	case MetricSuccess, MetricClassSuccess:
		return fmt.Sprintf("%.0f%%", 100*v)
	case MetricTime:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + "s"
	case MetricAmplification:
		return fmt.Sprintf("%.2fx", v) // as every report writes an amplification
	case MetricCPS, MetricSignal, MetricWeight:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// names are the names of states, as their String gives them.
func names[S fmt.Stringer](states []S) []string {
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = s.String()
	}
	return out
}

// Metrics is the goal vocabulary, in the order the docs list it. A lesson's metric must be one
// of these names (class.NAME with the name of one of its scenario's classes).
var Metrics = func() []Metric {
	ms := []Metric{
		{ID: MetricService, Name: "service", Kind: MetricState, States: names(ServiceStates()), Doc: "the service's state"},
		{ID: MetricStrategy, Name: "strategy", Kind: MetricState, Doc: "the strategy running now"},
		{ID: MetricBand, Name: "band", Kind: MetricState, States: names([]engine.State{engine.Healthy, engine.Degraded, engine.Critical, engine.Emergency}), Doc: "CORTEX's band (cortex only)"},
		{ID: MetricTime, Name: "t", Doc: "scenario time, seconds"},
		{ID: MetricSuccess, Name: "success", Doc: "originals that succeeded / originals that finished, last 5 s (0..1)"},
		{ID: MetricAmplification, Name: "amplification", Doc: "attempts / originals, last 5 s"},
		{ID: MetricRetries, Name: "retries", Doc: "retries sent per second, last 5 s"},
		{ID: MetricShed, Name: "shed", Doc: "retries shed by priority per second, last 5 s"},
		{ID: MetricBudget, Name: "budget_rejected", Doc: "retries refused by a budget per second, last 5 s"},
		{ID: MetricLocalRejects, Name: "local_rejects", Doc: "attempts refused by the client itself (an open breaker) per second, last 5 s"},
		{ID: MetricQueue, Name: "queue", Doc: "the service's queue length"},
		{ID: MetricUtilisation, Name: "utilisation", Doc: "offered load / capacity (1 = full)"},
		{ID: MetricCrashes, Name: "crashes", Doc: "overload crashes since the run started"},
		{ID: MetricCPS, Name: "cps", Doc: "CORTEX's mean CPS, 0..1 (cortex only)"},
		{ID: MetricOpen, Name: "open_circuits", Doc: "clients whose CORTEX circuit is OPEN (cortex only)"},
	}
	for i, s := range engine.SignalNames {
		ms = append(ms, Metric{ID: MetricSignal, Name: "signal." + s, Index: i, Doc: "the CORTEX signal " + s + ", 0..1 (cortex only)"})
	}
	for i, s := range engine.SignalNames {
		ms = append(ms, Metric{ID: MetricWeight, Name: "weight." + s, Index: i, Doc: "the CORTEX weight of " + s + ", 0..1 (cortex only)"})
	}
	return append(ms,
		Metric{ID: MetricClassSuccess, Name: "class.NAME.success", Doc: "a class's originals completed / arrived, last 5 s (0..1)"},
		Metric{ID: MetricClassShed, Name: "class.NAME.shed", Doc: "a class's retries shed by priority per second, last 5 s"},
	)
}()

// ActionKind is a control a step's actions apply.
type ActionKind uint8

// The controls of an Action, written in a lesson file as "strategy naive", "inject outage",
// "clear outage", "clear-all", "weight L 0.5", "share search 2", "priority analytics 0", "restart".
const (
	ActStrategy ActionKind = iota // switch the strategy: Name
	ActInject                     // inject the fault Name with the dashboard's value
	ActClear                      // clear the fault Name
	ActClearAll                   // clear every fault
	ActWeight                     // set the weight of signal Name to Value (the others scaled to sum to 1)
	ActShare                      // set class Name's share of traffic to Value
	ActPriority                   // set class Name's priority to Value
	ActRestart                    // restart the run
)

// Action is one control of a step's solution.
type Action struct {
	Kind  ActionKind
	Name  string
	Value float64
	Text  string // as written in the file
}

// actionWords are the first words of the actions and how many words follow.
var actionWords = map[string]struct {
	kind ActionKind
	args int
}{
	"strategy": {ActStrategy, 1}, "inject": {ActInject, 1}, "clear": {ActClear, 1}, "clear-all": {ActClearAll, 0},
	"weight": {ActWeight, 2}, "share": {ActShare, 2}, "priority": {ActPriority, 2}, "restart": {ActRestart, 0},
}
