package scenarios

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/load"
	"github.com/cortex-tui/cortex-tui/internal/tomlfile"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Defaults of a lesson file.
const (
	DefaultHintAt = 20 * time.Second
	MaxSteps      = 12
	MaxGoals      = 6
	MaxActions    = 6
)

// The keys of a lesson's tables, in the order docs/lessons.md lists them.
var (
	lessonKeys = []string{"name", "title", "summary", "scenario", "strategy", "guided", "hint_after", "step", "control"}
	stepKeys   = []string{"text", "hint", "goal", "do"}
	goalKeys   = []string{"metric", "op", "value", "for"}
)

// ParseLessonFile reads the lesson file at path (under load.Lesson's limits) and parses it
// with ParseLesson.
func ParseLessonFile(path string) (Lesson, error) {
	data, err := load.File(path, load.Lesson)
	if err != nil {
		return Lesson{}, tomlfile.LoadError(err)
	}
	return ParseLesson(path, data)
}

// ParseLessonReader reads r to its end under load.Lesson's limits and parses it.
func ParseLessonReader(name string, r io.Reader) (Lesson, error) {
	data, err := load.Reader(name, r, load.Lesson)
	if err != nil {
		return Lesson{}, tomlfile.LoadError(err)
	}
	return ParseLesson(name, data)
}

// ParseLesson decodes a lesson from TOML text as Parse does a scenario: strictly (unknown keys
// with a "did you mean", wrong types, values out of range, goals on metrics the vocabulary does
// not have or on classes the scenario does not have), every problem listed as
// "file:line: field: message" in an Errors.
func ParseLesson(filename string, data []byte) (Lesson, error) {
	tree, lines, err := tomlfile.Tree(filename, data, load.Lesson)
	if err != nil {
		return Lesson{}, err
	}
	d := &decoder{}
	l := d.lesson(tree)
	if len(d.List) > 0 {
		tomlfile.Place(filename, lines, d.List)
		return Lesson{}, d.List
	}
	return l, nil
}

// lesson decodes and checks the whole tree: a lesson is checked as it is decoded, since its
// goals are only meaningful against its scenario.
func (d *decoder) lesson(tree map[string]any) Lesson {
	l := Lesson{Strategy: strategy.CortexName, Guided: true, HintAt: DefaultHintAt}
	root := d.table("", tree, lessonKeys...)
	root.Require("name", `name = "retry-storm"`)
	root.Require("title", `title = "What a retry storm is"`)
	root.Require("scenario", `scenario = "black-friday"`)
	root.Require("step", "[[step]] text = \"...\" hint = \"...\" goal = [{ metric = \"service\", op = \"==\", value = \"CRASHED\" }]")
	if root.Str("name", &l.Name) && !namePattern.MatchString(l.Name) {
		d.Addf("name", "must be lowercase letters, digits and single hyphens (like \"retry-storm\"), got %q", l.Name)
	}
	if root.Str("title", &l.Title) && (strings.TrimSpace(l.Title) == "" || strings.ContainsAny(l.Title, "\r\n")) {
		d.Addf("title", "must be one line of text")
	}
	root.Str("summary", &l.Summary)
	var scn Scenario
	haveScn := false
	if root.Str("scenario", &l.Scenario) {
		s, err := Lookup(l.Scenario)
		if err != nil {
			d.Addf("scenario", "%s", err)
		} else {
			scn, haveScn = s, true
		}
	}
	if root.Str("strategy", &l.Strategy) {
		validateStrategies(&d.problems, "strategy", []string{l.Strategy})
	}
	root.Boolean("guided", &l.Guided)
	if root.Duration("hint_after", &l.HintAt) && (l.HintAt < 0 || l.HintAt > MaxDuration) {
		d.Addf("hint_after", "must be between 0s and %s, got %s", FormatDuration(MaxDuration), FormatDuration(l.HintAt))
	}
	steps := root.List("step", stepKeys...)
	if len(steps) > MaxSteps {
		d.Addf("step", "at most %d steps, got %d", MaxSteps, len(steps))
	}
	for _, st := range steps {
		l.Steps = append(l.Steps, d.step(st, scn, haveScn))
	}
	l.Controls = d.lessonControls(root, scn, haveScn)
	root.Done()
	return l
}

// lessonControls decodes the lesson's [[control]] tables as a scenario's and checks them as
// Validate does a scenario's, against the lesson's scenario (its tick, its end, its classes):
// the paths are the lesson file's own (control[2].at), so a problem names its line.
func (d *decoder) lessonControls(root *table, scn Scenario, haveScn bool) []ScheduledControl {
	var cs []ScheduledControl
	for _, c := range root.List("control", controlKeys...) {
		cs = append(cs, d.control(c))
	}
	if !haveScn || len(cs) == 0 {
		return cs
	}
	scn.Controls = cs
	scn.Resolve()
	var p problems
	scn.validateControls(&p)
	for _, v := range p.List {
		if !d.CoveredBy(v.Field) {
			d.List = append(d.List, v)
		}
	}
	return scn.Controls
}

// step decodes one [[step]].
func (d *decoder) step(t *table, scn Scenario, haveScn bool) Step {
	var s Step
	t.Require("text", `text = "What to watch or do"`)
	t.Require("hint", `hint = "What to press when stuck"`)
	t.Require("goal", `goal = [{ metric = "service", op = "==", value = "CRASHED" }]`)
	if t.Str("text", &s.Text) && strings.TrimSpace(s.Text) == "" {
		d.Addf(t.Field("text"), "is required")
	}
	if t.Str("hint", &s.Hint) && strings.TrimSpace(s.Hint) == "" {
		d.Addf(t.Field("hint"), "is required")
	}
	goals := t.List("goal", goalKeys...)
	if t.Has("goal") && len(goals) == 0 && !d.CoveredBy(t.Field("goal")) {
		d.Addf(t.Field("goal"), "needs at least one goal")
	}
	if len(goals) > MaxGoals {
		d.Addf(t.Field("goal"), "at most %d goals, got %d", MaxGoals, len(goals))
	}
	for _, g := range goals {
		s.Goals = append(s.Goals, d.goal(g, scn, haveScn))
	}
	var words []string
	t.Strs("do", &words)
	if len(words) > MaxActions {
		d.Addf(t.Field("do"), "at most %d actions, got %d", MaxActions, len(words))
	}
	for i, w := range words {
		a, err := parseAction(w, scn, haveScn)
		if err != nil {
			d.Addf(t.Field("do"), "action %d: %s", i+1, err)
			continue
		}
		s.Actions = append(s.Actions, a)
	}
	t.Done()
	return s
}

// goal decodes one goal: metric, op, value and for, each checked against the vocabulary.
func (d *decoder) goal(t *table, scn Scenario, haveScn bool) Goal {
	var g Goal
	t.Require("metric", `metric = "success"`)
	t.Require("op", `op = ">="`)
	t.Require("value", `value = 0.7`)
	var name, op string
	metricOK := t.Str("metric", &name) && d.metric(t, name, &g, scn, haveScn)
	if t.Str("op", &op) {
		g.Op = Op(op)
		valid := []string{"<", "<=", ">", ">=", "==", "!="}
		if metricOK && g.Metric.Kind == MetricState {
			valid = []string{"==", "!="}
		}
		if !slices.Contains(valid, op) {
			d.Addf(t.Field("op"), "must be one of %s for %s, got %q", strings.Join(valid, " "), name, op)
		}
	}
	if raw, ok := t.Get("value"); ok && metricOK {
		d.goalValue(t, raw, &g)
	}
	if t.Duration("for", &g.For) && (g.For < 0 || g.For > MaxDuration) {
		d.Addf(t.Field("for"), "must be between 0s and %s, got %s", FormatDuration(MaxDuration), FormatDuration(g.For))
	}
	t.Done()
	return g
}

// metric looks name up in the vocabulary (class.NAME.x with a class of scn) and stores it in g.
func (d *decoder) metric(t *table, name string, g *Goal, scn Scenario, haveScn bool) bool {
	lookup := name
	if rest, ok := strings.CutPrefix(name, "class."); ok {
		cls, field, found := strings.Cut(rest, ".")
		if i := strings.LastIndexByte(rest, '.'); i >= 0 {
			cls, field, found = rest[:i], rest[i+1:], true
		}
		if found {
			lookup = "class.NAME." + field
			g.Class = cls
			if haveScn && !slices.ContainsFunc(scn.Classes, func(c Class) bool { return c.Name == cls }) {
				var names []string
				for _, c := range scn.Classes {
					names = append(names, c.Name)
				}
				d.Addf(t.Field("metric"), "scenario %s has no class %q; its classes: %s", scn.Name, cls, strings.Join(names, ", "))
				return false
			}
		}
	}
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == lookup })
	if i < 0 {
		var names []string
		for _, m := range Metrics {
			names = append(names, m.Name)
		}
		msg := fmt.Sprintf("unknown metric %q", name)
		if guess := tomlfile.Closest(lookup, names); guess != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", guess)
		}
		d.Addf(t.Field("metric"), "%s; valid: %s", msg, strings.Join(names, ", "))
		return false
	}
	g.Metric = Metrics[i]
	return true
}

// goalValue checks the value's type against the metric's kind and stores it in g.
func (d *decoder) goalValue(t *table, raw any, g *Goal) {
	if g.Metric.Kind == MetricNumber {
		switch n := raw.(type) {
		case float64:
			g.Num = n
		case int64:
			g.Num = float64(n)
		default:
			d.Addf(t.Field("value"), "must be a number for %s, got %s", g.Metric.Name, tomlfile.Describe(raw))
			return
		}
		if g.Num != g.Num || g.Num > 1e12 || g.Num < -1e12 {
			d.Addf(t.Field("value"), "must be a finite number, got %v", g.Num)
		}
		return
	}
	s, ok := raw.(string)
	if !ok {
		d.Addf(t.Field("value"), "must be a string for %s, got %s", g.Metric.Name, tomlfile.Describe(raw))
		return
	}
	valid := g.Metric.States
	if g.Metric.ID == MetricStrategy {
		valid = strategy.Names()
	}
	if !slices.Contains(valid, s) {
		d.Addf(t.Field("value"), "must be one of %s for %s, got %q", strings.Join(valid, ", "), g.Metric.Name, s)
		return
	}
	g.State = s
}

// parseAction reads one action of a step's do list: a word and its arguments.
func parseAction(text string, scn Scenario, haveScn bool) (Action, error) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return Action{}, fmt.Errorf("is empty")
	}
	spec, ok := actionWords[words[0]]
	if !ok {
		var valid []string
		for w := range actionWords {
			valid = append(valid, w)
		}
		sort.Strings(valid)
		return Action{}, fmt.Errorf("unknown action %q; valid: %s", words[0], strings.Join(valid, ", "))
	}
	if len(words)-1 != spec.args {
		return Action{}, fmt.Errorf("%q takes %d argument(s), got %q", words[0], spec.args, text)
	}
	a := Action{Kind: spec.kind, Text: text}
	if spec.args >= 1 {
		a.Name = words[1]
	}
	if spec.args == 2 {
		v, err := strconv.ParseFloat(words[2], 64)
		if err != nil || v != v || v < 0 || v > 1000 {
			return Action{}, fmt.Errorf("%q needs a number from 0 to 1000, got %q", words[0], words[2])
		}
		a.Value = v
	}
	switch a.Kind {
	case ActStrategy:
		if !slices.Contains(strategy.Names(), a.Name) {
			return Action{}, fmt.Errorf("unknown strategy %q; valid: %s", a.Name, strings.Join(strategy.Names(), ", "))
		}
	case ActInject, ActClear:
		if _, ok := FaultKind(a.Name).Spec(); !ok {
			return Action{}, fmt.Errorf("unknown fault kind %q", a.Name)
		}
	case ActWeight:
		if !slices.Contains(engine.SignalNames[:], a.Name) {
			return Action{}, fmt.Errorf("unknown signal %q; valid: F, L, Q, B, C", a.Name)
		}
		if a.Value > 1 {
			return Action{}, fmt.Errorf("a weight is at most 1, got %g", a.Value)
		}
	case ActShare, ActPriority:
		if haveScn && !slices.ContainsFunc(scn.Classes, func(c Class) bool { return c.Name == a.Name }) {
			return Action{}, fmt.Errorf("scenario %s has no class %q", scn.Name, a.Name)
		}
		if a.Kind == ActPriority && (a.Value != float64(int(a.Value)) || a.Value > MaxPriority) {
			return Action{}, fmt.Errorf("a priority is an integer from 0 to %d, got %g", MaxPriority, a.Value)
		}
	}
	return a, nil
}
