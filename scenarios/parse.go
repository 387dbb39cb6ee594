package scenarios

import (
	"cmp"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/internal/load"
	"github.com/cortex-tui/cortex-tui/internal/tomlfile"
)

// MaxFileSize is the largest scenario file Parse accepts, in bytes (1 MiB): load.Scenario's
// limit, which also bounds the structure of the file (see internal/load).
const MaxFileSize = 1 << 20

// ParseFile reads the scenario file at path and parses it with Parse; errors name the path as
// given. It reads at most MaxFileSize+1 bytes whatever the file is (a device or a FIFO
// included), and refuses a directory.
func ParseFile(path string) (Scenario, error) {
	data, err := load.File(path, load.Scenario)
	if err != nil {
		return Scenario{}, tomlfile.LoadError(err)
	}
	return Parse(path, data)
}

// ParseReader reads r to its end, refusing it past MaxFileSize bytes, and parses it with
// Parse; name is used in errors (e.g. "-" for the standard input).
func ParseReader(name string, r io.Reader) (Scenario, error) {
	data, err := load.Reader(name, r, load.Scenario)
	if err != nil {
		return Scenario{}, tomlfile.LoadError(err)
	}
	return Parse(name, data)
}

// Parse decodes a scenario from the TOML text data, fills the defaults of every key left out,
// and validates the result. filename is used in error messages only.
//
// Before decoding, data is held to the limits of a scenario file (load.Scenario: 1 MiB, and
// bounds on nesting, dotted keys and the number of keys), each refused with the limit and the
// line. Parsing is strict: a syntax error, an unknown key, a value of the wrong type, an
// out-of-range value and an impossible timeline are all errors. The error is an Errors listing
// every problem found, each as "file:line: field: message" (the line where known); a syntax
// error also carries the TOML parser's context lines with a caret under the fault.
//
// On success the faults are sorted by start time (stable), so a simulator can walk them in order.
func Parse(filename string, data []byte) (Scenario, error) {
	tree, lines, err := tomlfile.Tree(filename, data, load.Scenario)
	if err != nil {
		return Scenario{}, err
	}
	d := &decoder{}
	s := d.scenario(tree)
	all := d.List
	if err := s.Validate(); err != nil {
		var verrs Errors
		errors.As(err, &verrs)
		for _, v := range verrs {
			if !d.CoveredBy(v.Field) {
				all = append(all, v)
			}
		}
	}
	if len(all) > 0 {
		tomlfile.Place(filename, lines, all)
		return Scenario{}, all
	}
	slices.SortStableFunc(s.Faults, func(a, b Fault) int { return cmp.Compare(a.At, b.At) })
	return s, nil
}

// decoder turns the generic TOML tree into a Scenario (or a Lesson), recording a FieldError for
// every key of the wrong type, every missing required key and every unknown key.
type decoder struct{ problems }

// table is one TOML table being decoded (tomlfile.Table).
type table = tomlfile.Table

// table returns the table m at path with its valid keys, recording its problems in d.
func (d *decoder) table(path string, m map[string]any, keys ...string) *table {
	return tomlfile.NewTable(&d.problems, path, m, keys...)
}

// The keys of each table, in the order the documentation lists them.
var (
	topKeys     = []string{"name", "summary", "story", "duration", "drain", "tick", "seed", "strategy", "fleet", "class", "load", "service", "fault", "control", "note", "engine"}
	fleetKeys   = []string{"clients", "loop", "users", "think", "deadline", "timeout", "layers", "budget"}
	classKeys   = []string{"name", "priority", "rate", "load"}
	loadKeys    = []string{"at", "factor"}
	serviceKeys = []string{"workers", "service_time", "sigma", "queue_limit", "drop_expired", "refusal_cost", "crash_factor", "crash_after", "restart_delay", "warm_start", "warmup"}
	faultKeys   = append([]string{"kind", "at", "duration"}, faultValueKeys...)
	noteKeys    = []string{"at", "text", "strategies", "except"}
)

// scenario decodes the whole tree over Defaults().
func (d *decoder) scenario(tree map[string]any) Scenario {
	s := Defaults()
	root := d.table("", tree, topKeys...)
	root.Require("name", `name = "my-scenario"`)
	root.Require("summary", `summary = "What goes wrong, in one line"`)
	root.Require("duration", `duration = "120s"`)
	root.Str("name", &s.Name)
	root.Str("summary", &s.Summary)
	root.Str("story", &s.Story)
	root.Duration("duration", &s.Duration)
	root.Duration("drain", &s.Drain)
	root.Duration("tick", &s.Tick)
	root.Integer64("seed", &s.Seed)
	root.Str("strategy", &s.Strategy)

	if f := root.Sub("fleet", fleetKeys...); f != nil {
		d.fleet(f, &s)
	}
	if _, ok := tree["class"]; !ok {
		d.Addf("class", "at least one [[class]] is required (e.g. [[class]] name = \"api\" priority = 5 rate = 100)")
	}
	for _, c := range root.List("class", classKeys...) {
		var cl Class
		c.Require("name", `name = "payment"`)
		c.Require("rate", `rate = 100`)
		c.Str("name", &cl.Name)
		c.Integer("priority", &cl.Priority, 0, MaxPriority)
		c.Number("rate", &cl.Rate)
		cl.Load = loadPoints(c)
		c.Done()
		s.Classes = append(s.Classes, cl)
	}
	s.Load = loadPoints(root)
	if _, ok := tree["service"]; !ok {
		d.Addf("service", "a [service] table is required (at least workers and service_time)")
	}
	if v := root.Sub("service", serviceKeys...); v != nil {
		d.service(v, &s.Service)
	}
	for _, f := range root.List("fault", faultKeys...) {
		s.Faults = append(s.Faults, d.fault(f))
	}
	for _, c := range root.List("control", controlKeys...) {
		s.Controls = append(s.Controls, d.control(c))
	}
	s.Resolve()
	if e := root.Sub("engine", append([]string{"name"}, engineconf.Keys...)...); e != nil {
		d.engine(e, &s)
	}
	for _, n := range root.List("note", noteKeys...) {
		var note Note
		n.Require("at", `at = "30s"`)
		n.Require("text", `text = "What the viewer is about to see"`)
		n.Duration("at", &note.At)
		n.Str("text", &note.Text)
		n.Strs("strategies", &note.Strategies)
		n.Strs("except", &note.Except)
		n.Done()
		s.Notes = append(s.Notes, note)
	}
	root.Done()
	return s
}

// engine decodes the [engine] table: its name and a cortex.toml's keys (engineconf.Decode),
// checked as an engine file is, each problem at its path under engine ("engine.budget.capacity").
// s.Engine is left nil when there is one.
func (d *decoder) engine(t *table, s *Scenario) {
	if t.Str("name", &s.EngineName) && (strings.TrimSpace(s.EngineName) == "" || strings.ContainsAny(s.EngineName, "\r\n")) {
		d.Addf(t.Field("name"), "must be one line of text (the engine's name, e.g. \"tuned.toml\")")
	}
	before := len(d.List)
	cfg, err := engineconf.Decode(&d.problems, t)
	t.Done()
	switch {
	case err != nil:
		d.Addf("engine", "%v", err)
	case len(d.List) == before:
		s.Engine = &cfg
	}
}

// loadPoints decodes the load profile under t's key "load": the scenario's [[load]] or a
// class's [[class.load]].
func loadPoints(t *table) []LoadPoint {
	var pts []LoadPoint
	for _, l := range t.List("load", loadKeys...) {
		var p LoadPoint
		l.Require("at", `at = "60s"`)
		l.Require("factor", `factor = 1.5`)
		l.Duration("at", &p.At)
		l.Number("factor", &p.Factor)
		l.Done()
		pts = append(pts, p)
	}
	return pts
}

func (d *decoder) fleet(f *table, s *Scenario) {
	f.Integer("clients", &s.Clients, 1, MaxClients)
	var loop string
	if f.Str("loop", &loop) {
		switch loop {
		case "open":
			s.Loop.Closed = false
		case "closed":
			s.Loop.Closed = true
		default:
			d.Addf(f.Field("loop"), "must be \"open\" or \"closed\", got %q", loop)
		}
	}
	f.Integer("users", &s.Loop.Users, 0, MaxUsers)
	f.Duration("think", &s.Loop.Think)
	f.Duration("deadline", &s.Deadline)
	f.Duration("timeout", &s.Timeout)
	f.Integer("layers", &s.Layers, 1, MaxLayers)
	var budget string
	if f.Str("budget", &budget) {
		found := false
		for _, b := range Budgets {
			if budget == b.String() {
				s.Budget, found = b, true
			}
		}
		if !found {
			d.Addf(f.Field("budget"), "must be \"per-client\" or \"shared\", got %q", budget)
		}
	}
	f.Done()
}

func (d *decoder) service(v *table, svc *Service) {
	v.Require("workers", "workers = 50")
	v.Require("service_time", `service_time = "100ms"`)
	v.Integer("workers", &svc.Workers, 1, MaxWorkers)
	v.Duration("service_time", &svc.ServiceTime)
	v.Number("sigma", &svc.Sigma)
	v.Integer("queue_limit", &svc.QueueLimit, 0, MaxQueueLimit)
	v.Boolean("drop_expired", &svc.DropExpired)
	v.Number("refusal_cost", &svc.RefusalCost)
	v.Number("crash_factor", &svc.CrashFactor)
	v.Duration("crash_after", &svc.CrashAfter)
	v.Duration("restart_delay", &svc.RestartDelay)
	v.Number("warm_start", &svc.WarmStart)
	v.Duration("warmup", &svc.Warmup)
	v.Done()
}

// faultValueKeys are the [[fault]] keys that carry a fault's value, in table order without
// repeats; each kind takes at most one (FaultSpec.Key).
var faultValueKeys = func() []string {
	var keys []string
	for _, s := range faultSpecs {
		if s.Key != "" && !slices.Contains(keys, s.Key) {
			keys = append(keys, s.Key)
		}
	}
	return keys
}()

// fault decodes one [[fault]]: kind, at, duration and the one value key its kind takes.
func (d *decoder) fault(f *table) Fault {
	var flt Fault
	f.Require("kind", `kind = "outage"`)
	f.Require("at", `at = "60s"`)
	f.Require("duration", `duration = "30s"`)
	var kind string
	f.Str("kind", &kind)
	flt.Kind = FaultKind(kind)
	f.Duration("at", &flt.At)
	f.Duration("duration", &flt.Duration)
	spec, ok := flt.Kind.Spec()
	if !ok {
		for _, k := range faultValueKeys {
			f.Get(k) // the kind is reported by Validate; don't also call its value unknown
		}
		f.Done()
		return flt
	}
	want, example := spec.Key, spec.Key+" = "+spec.Unit.Example()
	for _, k := range faultValueKeys {
		if !f.Has(k) || k == want {
			continue
		}
		f.Get(k)
		if want == "" {
			d.Addf(f.Field(k), "kind %q takes no value", flt.Kind)
		} else {
			d.Addf(f.Field(k), "is not a value of kind %q, which takes %s", flt.Kind, example)
		}
	}
	if spec.Unit != UnitNone {
		f.Require(want, example)
		d.faultValue(f, spec, &flt.Value)
	}
	f.Done()
	return flt
}

// faultValue decodes the value of a fault of spec under its key in t into v: a duration in
// seconds, or a number.
func (d *decoder) faultValue(t *table, spec FaultSpec, v *float64) {
	switch spec.Unit {
	case UnitNone:
	case UnitSeconds:
		var dur time.Duration
		if t.Duration(spec.Key, &dur) {
			*v = dur.Seconds()
		}
	default:
		t.Number(spec.Key, v)
	}
}
