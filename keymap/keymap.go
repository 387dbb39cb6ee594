// Package keymap holds every key binding of the cortex-tui dashboard, with its help text, and
// loads user remappings from a TOML file. The dashboard matches keys only through these
// bindings (key.Matches), and bubbles/help renders them, so the help can never drift from the
// keys. A KeyMap is a plain value: copy it freely; it is safe for concurrent reads.
package keymap

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// KeyMap implements help.KeyMap, so bubbles/help draws the footer and the full help from it.
var _ help.KeyMap = KeyMap{}

// KeyMap is every action of the dashboard and its picker bound to its keys. The zero value has
// no keys bound and matches nothing; use Default or Load.
type KeyMap struct {
	// Time and scenario control; StrategyMenu chooses the strategy from a list (S).
	Pause, Step, Faster, Slower, Restart, Load, Strategy, StrategyMenu, Compare key.Binding
	// Fault[i] toggles the fault of kind scenarios.FaultKinds[i] (keys 1..6 by default); it is
	// unbound, and matches nothing, for a kind without a key (its table row names no Binding).
	Fault [scenarios.NumFaultKinds]key.Binding
	// ClearFaults (0) clears every fault.
	ClearFaults key.Binding
	// Weight tuning: tab, shift+tab, left, right, a.
	NextWeight, PrevWeight, LowerWeight, RaiseWeight, Adaptive key.Binding
	// Priority classes: up, down select a class; [ ] its share of traffic, { } its priority.
	ClassUp, ClassDown, ShareDown, ShareUp, PriorityDown, PriorityUp key.Binding
	// Views: export the timeline, toggle the full help, quit.
	Export, Help, Quit key.Binding
	// Hint shows the current lesson step's hint before it is due (H).
	Hint key.Binding
	// In a class served over SSH: Fork copies the class run into a run of the student's own,
	// or rejoins the class (F); NextStep moves the class's lesson to its next step (N, the
	// teacher's).
	Fork, NextStep key.Binding
	// Inspect pauses and opens the decision inspector (up, down select a decision); LogUp and
	// LogDown scroll the event log, LogFilter shows one kind of event at a time.
	Inspect, LogUp, LogDown, LogFilter key.Binding
	// Record writes the scenario as played so far, every control applied at its time, as a
	// scenario file that replays the run (R); Present shows one chart large with the caption
	// in full, for a room (P: traffic, then the CPS, then the dashboard again); Picture writes
	// the screen as SVG and as text, for a slide (g).
	Record, Present, Picture key.Binding
	// Select and Back confirm and leave the picker, the summary and the help.
	Select, Back key.Binding
	// Filter starts typing a filter in the scenario picker.
	Filter key.Binding
}

// action is one remappable action: its name in the key file (snake_case of the field), its
// default keys (as tea.KeyMsg.String() spells them), its help text and where it lives in a KeyMap.
type action struct {
	name string
	keys []string
	help string
	of   func(*KeyMap) *key.Binding
}

// actions lists every action in help order. It is the single table behind Default, Load and the
// generated documentation. The fault actions come from the table of fault kinds (faultActions).
var actions = slices.Concat(timeActions, faultActions(), otherActions)

// timeActions are the actions of time and scenario control, first in help order.
var timeActions = []action{
	{"pause", []string{" "}, "pause / resume", func(k *KeyMap) *key.Binding { return &k.Pause }},
	{"step", []string{"."}, "one tick forward while paused", func(k *KeyMap) *key.Binding { return &k.Step }},
	{"faster", []string{"+"}, "speed up", func(k *KeyMap) *key.Binding { return &k.Faster }},
	{"slower", []string{"-"}, "slow down", func(k *KeyMap) *key.Binding { return &k.Slower }},
	{"restart", []string{"r"}, "restart the scenario (same seed)", func(k *KeyMap) *key.Binding { return &k.Restart }},
	{"load", []string{"l"}, "load a scenario", func(k *KeyMap) *key.Binding { return &k.Load }},
	{"strategy", []string{"s"}, "cycle the strategy", func(k *KeyMap) *key.Binding { return &k.Strategy }},
	{"strategy_menu", []string{"S"}, "choose the strategy from a list", func(k *KeyMap) *key.Binding { return &k.StrategyMenu }},
	{"compare", []string{"c"}, "compare two strategies side by side", func(k *KeyMap) *key.Binding { return &k.Compare }},
}

// faultKeys are the default keys and help of the fault actions, by action name: the Binding of
// a row of the table of fault kinds (scenarios.FaultSpecs), which says which kind each toggles.
var faultKeys = map[string]struct {
	keys []string
	help string
}{
	"outage":    {[]string{"1"}, "inject / clear an outage"},
	"blackhole": {[]string{"2"}, "inject / clear a blackhole"},
	"latency":   {[]string{"3"}, "inject / clear latency"},
	"errors":    {[]string{"4"}, "inject / clear errors"},
	"throttle":  {[]string{"5"}, "inject / clear a throttle"},
	"capacity":  {[]string{"6"}, "inject / clear a capacity drop"},
}

// faultActions returns one action per fault kind with a Binding, in table order, with its keys
// and help from faultKeys (none, if faultKeys lacks it: a test catches that).
func faultActions() []action {
	var out []action
	for i, spec := range scenarios.FaultSpecs() {
		if spec.Binding == "" {
			continue
		}
		fk := faultKeys[spec.Binding]
		out = append(out, action{spec.Binding, fk.keys, fk.help, func(k *KeyMap) *key.Binding { return &k.Fault[i] }})
	}
	return out
}

// otherActions follow the fault actions: clearing faults, tuning, views and the picker.
var otherActions = []action{
	{"clear_faults", []string{"0"}, "clear every injected fault", func(k *KeyMap) *key.Binding { return &k.ClearFaults }},

	{"next_weight", []string{"tab"}, "select the next weight", func(k *KeyMap) *key.Binding { return &k.NextWeight }},
	{"prev_weight", []string{"shift+tab"}, "select the previous weight", func(k *KeyMap) *key.Binding { return &k.PrevWeight }},
	{"lower_weight", []string{"left"}, "lower the selected weight", func(k *KeyMap) *key.Binding { return &k.LowerWeight }},
	{"raise_weight", []string{"right"}, "raise the selected weight", func(k *KeyMap) *key.Binding { return &k.RaiseWeight }},
	{"adaptive", []string{"a"}, "adaptive weights on / off", func(k *KeyMap) *key.Binding { return &k.Adaptive }},
	{"class_up", []string{"up"}, "select the previous priority class", func(k *KeyMap) *key.Binding { return &k.ClassUp }},
	{"class_down", []string{"down"}, "select the next priority class", func(k *KeyMap) *key.Binding { return &k.ClassDown }},
	{"share_down", []string{"["}, "lower the class's share of traffic", func(k *KeyMap) *key.Binding { return &k.ShareDown }},
	{"share_up", []string{"]"}, "raise the class's share of traffic", func(k *KeyMap) *key.Binding { return &k.ShareUp }},
	{"priority_down", []string{"{"}, "lower the class's priority", func(k *KeyMap) *key.Binding { return &k.PriorityDown }},
	{"priority_up", []string{"}"}, "raise the class's priority", func(k *KeyMap) *key.Binding { return &k.PriorityUp }},

	{"export", []string{"e"}, "export the timeline (CSV and JSON)", func(k *KeyMap) *key.Binding { return &k.Export }},
	{"record", []string{"R"}, "write the run as played as a scenario file", func(k *KeyMap) *key.Binding { return &k.Record }},
	{"present", []string{"P"}, "presenter mode: traffic, CPS, off", func(k *KeyMap) *key.Binding { return &k.Present }},
	{"picture", []string{"g"}, "grab the screen as SVG and text", func(k *KeyMap) *key.Binding { return &k.Picture }},
	{"inspect", []string{"i"}, "pause and inspect the latest decisions", func(k *KeyMap) *key.Binding { return &k.Inspect }},
	{"log_up", []string{"pgup"}, "scroll the event log back", func(k *KeyMap) *key.Binding { return &k.LogUp }},
	{"log_down", []string{"pgdown"}, "scroll the event log forward", func(k *KeyMap) *key.Binding { return &k.LogDown }},
	{"log_filter", []string{"v"}, "event log: one kind at a time", func(k *KeyMap) *key.Binding { return &k.LogFilter }},
	{"hint", []string{"H"}, "show / hide the lesson's hint", func(k *KeyMap) *key.Binding { return &k.Hint }},
	{"fork", []string{"F"}, "class: a copy of the class run of your own / rejoin the class", func(k *KeyMap) *key.Binding { return &k.Fork }},
	{"next_step", []string{"N"}, "class: the lesson's next step (the teacher)", func(k *KeyMap) *key.Binding { return &k.NextStep }},
	{"help", []string{"?"}, "full help", func(k *KeyMap) *key.Binding { return &k.Help }},
	{"quit", []string{"q", "ctrl+c"}, "quit", func(k *KeyMap) *key.Binding { return &k.Quit }},
	{"select", []string{"enter"}, "select", func(k *KeyMap) *key.Binding { return &k.Select }},
	{"back", []string{"esc"}, "back", func(k *KeyMap) *key.Binding { return &k.Back }},
	{"filter", []string{"/"}, "filter the scenarios", func(k *KeyMap) *key.Binding { return &k.Filter }},
}

// Default returns the standard bindings, as documented in docs/keys.md.
func Default() KeyMap {
	var k KeyMap
	for _, a := range actions {
		*a.of(&k) = newBinding(a.keys, a.help)
	}
	return k
}

// newBinding binds keys (tea.KeyMsg spellings) with a help line that shows them as the user
// types them in the key file ("space" for " ").
func newBinding(keys []string, help string) key.Binding {
	shown := make([]string, len(keys))
	for i, k := range keys {
		shown[i] = displayName(k)
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(shown, "/"), help))
}

// displayName is how a key is written in help and in the key file.
func displayName(k string) string {
	if k == " " {
		return "space"
	}
	return k
}

// ShortHelp returns the bindings of the one-line footer (it implements help.KeyMap).
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Faster, k.Slower, k.Strategy, k.Load, k.Help, k.Quit}
}

// SummaryHelp returns the bindings the footer shows on the end-of-run summary: what leads on
// from a finished run (back to the dashboard, again, another scenario, export), then help and
// quit.
func (k KeyMap) SummaryHelp() []key.Binding {
	back := key.NewBinding(key.WithKeys(k.Back.Keys()...), key.WithHelp(k.Back.Help().Key, "the dashboard"))
	again := key.NewBinding(key.WithKeys(k.Restart.Keys()...), key.WithHelp(k.Restart.Help().Key, "run again"))
	return []key.Binding{back, again, k.Load, k.Export, k.Help, k.Quit}
}

// FullHelp returns every dashboard binding in four groups: time, faults, tuning and views (it
// implements help.KeyMap).
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Step, k.Faster, k.Slower, k.Restart, k.Load, k.Strategy, k.StrategyMenu, k.Compare},
		append(k.FaultBindings(), k.ClearFaults),
		{k.NextWeight, k.PrevWeight, k.LowerWeight, k.RaiseWeight, k.Adaptive,
			k.ClassUp, k.ClassDown, k.ShareDown, k.ShareUp, k.PriorityDown, k.PriorityUp},
		{k.Export, k.Record, k.Present, k.Picture, k.Hint, k.Fork, k.NextStep, k.Inspect, k.LogUp, k.LogDown, k.LogFilter, k.Help, k.Quit, k.Select, k.Back, k.Filter},
	}
}

// FaultBindings returns the bindings of the fault kinds that have a key, in the order of
// scenarios.FaultKinds (outage, blackhole, latency, errors, throttle, capacity by default).
func (k KeyMap) FaultBindings() []key.Binding {
	var out []key.Binding
	for i, spec := range scenarios.FaultSpecs() {
		if spec.Binding != "" {
			out = append(out, k.Fault[i])
		}
	}
	return out
}
