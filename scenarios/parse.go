package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/cortex-tui/cortex-tui/internal/load"
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
		return Scenario{}, loadError(err)
	}
	return Parse(path, data)
}

// ParseReader reads r to its end, refusing it past MaxFileSize bytes, and parses it with
// Parse; name is used in errors (e.g. "-" for the standard input).
func ParseReader(name string, r io.Reader) (Scenario, error) {
	data, err := load.Reader(name, r, load.Scenario)
	if err != nil {
		return Scenario{}, loadError(err)
	}
	return Parse(name, data)
}

// loadError turns a loader's refusal into Errors, keeping its file, line and message.
func loadError(err error) error {
	var le *load.Error
	if errors.As(err, &le) {
		return Errors{{File: le.File, Line: le.Line, Msg: le.Msg}}
	}
	return err
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
	text := string(data)
	var tree map[string]any
	if _, err := load.Decode(filename, data, load.Scenario, &tree); err != nil {
		var le *load.Error
		if errors.As(err, &le) {
			return Scenario{}, loadError(err)
		}
		return Scenario{}, Errors{syntaxError(filename, err, text)}
	}
	d := &decoder{}
	s := d.scenario(tree)
	decodeProblems := d.list
	var all Errors
	all = append(all, decodeProblems...)
	if err := s.Validate(); err != nil {
		var verrs Errors
		errors.As(err, &verrs)
		for _, v := range verrs {
			if !coveredBy(v.Field, decodeProblems) {
				all = append(all, v)
			}
		}
	}
	if len(all) > 0 {
		ix := indexLines(text)
		for _, e := range all {
			e.File = filename
			e.Line = ix.lineOf(e.Field)
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].Line < all[j].Line })
		return Scenario{}, all
	}
	slices.SortStableFunc(s.Faults, func(a, b Fault) int { return cmp.Compare(a.At, b.At) })
	return s, nil
}

// coveredBy reports whether a decoding problem was already reported for field or a parent of it
// (a wrong-typed key leaves its zero value behind, which validation would report again).
func coveredBy(field string, decoded Errors) bool {
	for _, d := range decoded {
		if field == d.Field || strings.HasPrefix(field, d.Field+".") || strings.HasPrefix(field, d.Field+"[") {
			return true
		}
	}
	return false
}

// syntaxError turns the TOML parser's error into a FieldError with its line and, where it has
// one, the parser's context lines with a caret.
func syntaxError(filename string, err error, text string) *FieldError {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &FieldError{File: filename, Msg: "invalid TOML: " + err.Error()}
	}
	lines := strings.Count(text, "\n") + 1
	pe.Position = endOfLine(pe, text)
	msg := "invalid TOML: " + pe.Message
	// ErrorWithUsage indexes the input's lines by Position.Line: only trust it with a real line.
	if pe.Position.Line >= 1 && pe.Position.Line <= lines {
		if ctx := parserContext(pe.ErrorWithUsage()); ctx != "" {
			msg += "\n" + ctx
		}
	}
	return &FieldError{File: filename, Line: pe.Position.Line, Msg: msg}
}

// endOfLine returns the position of pe, placed by its byte offset on the line it is about when
// the parser met a line's newline where something else was due ("got '\n' instead": an unclosed
// table header, a key with no value): the TOML lexer may have counted the newline by then and
// give the next line's number, one late.
func endOfLine(pe toml.ParseError, text string) toml.Position {
	p := pe.Position
	if !strings.Contains(pe.Message, `'\n'`) || p.Start < 0 || p.Start >= len(text) || text[p.Start] != '\n' {
		return p
	}
	before := text[:p.Start]
	p.Line = strings.Count(before, "\n") + 1
	p.Col = p.Start - strings.LastIndexByte(before, '\n')
	p.Len = 1
	return p
}

// parserContext keeps the part of toml's ErrorWithUsage after its "At line N, column C:"
// heading: the numbered source lines, the caret and any usage help.
func parserContext(full string) string {
	at := strings.Index(full, "\n\nAt line ")
	if at < 0 {
		return ""
	}
	rest := full[at+2:]
	body := strings.Index(rest, ":\n\n")
	if body < 0 {
		return ""
	}
	return strings.TrimRight(rest[body+3:], "\n")
}

// decoder turns the generic TOML tree into a Scenario, recording a FieldError for every key of
// the wrong type, every missing required key and every unknown key (rather than stopping at the
// first, as decoding into a struct would).
type decoder struct{ problems }

// table is one TOML table being decoded: its field path and which keys were read.
type table struct {
	d    *decoder
	path string
	m    map[string]any
	used map[string]bool
	keys []string // the keys this table may have, for the unknown-key message
}

func (d *decoder) table(path string, m map[string]any, keys ...string) *table {
	return &table{d: d, path: path, m: m, used: map[string]bool{}, keys: keys}
}

// field returns the path of key in t.
func (t *table) field(key string) string {
	if t.path == "" {
		return key
	}
	return t.path + "." + key
}

// header returns how t's header is written: "[fleet]", "[[class]]" or "[[class.load]]".
func (t *table) header() string {
	if strings.HasSuffix(t.path, "]") {
		return "[[" + entryIndex.ReplaceAllString(t.path, "") + "]]"
	}
	return "[" + entryIndex.ReplaceAllString(t.path, "") + "]"
}

// entryIndex matches the index of a list entry in a field path ("[2]" in "class[2].load").
var entryIndex = regexp.MustCompile(`\[[0-9]+\]`)

// get returns the raw value of key and marks it read.
func (t *table) get(key string) (any, bool) {
	v, ok := t.m[key]
	t.used[key] = true
	return v, ok
}

// require records a problem if key is absent.
func (t *table) require(key, example string) {
	if _, ok := t.m[key]; !ok {
		t.d.addf(t.field(key), "is required (e.g. %s)", example)
	}
}

// value returns the value of key as a T and marks it read; ok is false when key is absent, or
// when it holds another type, which it records as "must be <want>, got <the value>".
func value[T any](t *table, key, want string) (v T, ok bool) {
	raw, present := t.get(key)
	if !present {
		return v, false
	}
	if v, ok = raw.(T); !ok {
		t.d.addf(t.field(key), "must be %s, got %s", want, describe(raw))
	}
	return v, ok
}

// The typed readers below store key's value in dst and report whether they did; a value of the
// wrong type (or out of range) is recorded as a problem and leaves dst as it was.

func (t *table) str(key string, dst *string) bool {
	s, ok := value[string](t, key, "a string")
	if ok {
		*dst = s
	}
	return ok
}

// integer reads an integer key whose valid range is lo..hi (Validate checks the range of a
// value that fits an int; this reports one that does not, or a float, with the range).
func (t *table) integer(key string, dst *int, lo, hi int) bool {
	raw, present := t.get(key)
	if !present {
		return false
	}
	switch n := raw.(type) {
	case int64:
		if n > math.MaxInt32 || n < math.MinInt32 {
			t.d.addf(t.field(key), "must be between %d and %d, got %d", lo, hi, n)
			return false
		}
		*dst = int(n)
		return true
	case float64:
		switch {
		case n != math.Trunc(n): // a fraction, NaN or an infinity
			t.d.addf(t.field(key), "must be an integer, got %s", describe(raw))
		case n < float64(lo) || n > float64(hi):
			t.d.addf(t.field(key), "must be between %d and %d, got %v", lo, hi, n)
		default:
			t.d.addf(t.field(key), "must be an integer (written without a decimal point or exponent), got %s", describe(raw))
		}
		return false
	}
	t.d.addf(t.field(key), "must be an integer, got %s", describe(raw))
	return false
}

// strs reads an array of strings.
func (t *table) strs(key string, dst *[]string) bool {
	raw, present := t.get(key)
	if !present {
		return false
	}
	arr, ok := raw.([]any)
	if !ok {
		t.d.addf(t.field(key), "must be an array of strings, like [\"naive\", \"backoff\"], got %s", describe(raw))
		return false
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			t.d.addf(t.field(key), "must be an array of strings: element %d is %s", i+1, describe(e))
			return false
		}
		out = append(out, s)
	}
	*dst = out
	return true
}

func (t *table) integer64(key string, dst *int64) bool {
	n, ok := value[int64](t, key, "an integer")
	if ok {
		*dst = n
	}
	return ok
}

func (t *table) number(key string, dst *float64) bool {
	v, ok := t.get(key)
	if !ok {
		return false
	}
	switch n := v.(type) {
	case float64:
		*dst = n
	case int64:
		*dst = float64(n)
	default:
		t.d.addf(t.field(key), "must be a number, got %s", describe(v))
		return false
	}
	return true
}

func (t *table) boolean(key string, dst *bool) bool {
	b, ok := value[bool](t, key, "true or false")
	if ok {
		*dst = b
	}
	return ok
}

func (t *table) duration(key string, dst *time.Duration) bool {
	s, ok := value[string](t, key, `a duration string with a unit, like "250ms" or "2m"`)
	if !ok {
		return false
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && durationSyntax.MatchString(s): // well written, but past what a duration holds
		bound := "largest duration is " + time.Duration(math.MaxInt64).String()
		if strings.HasPrefix(s, "-") {
			bound = "smallest duration is " + time.Duration(math.MinInt64).String()
		}
		t.d.addf(t.field(key), "%q overflows: the %s (about 292 years)", s, bound)
		return false
	case err != nil:
		t.d.addf(t.field(key), "must be a duration with a unit, like \"250ms\" or \"2m\", got %q", s)
		return false
	}
	*dst = d
	return true
}

// durationSyntax is the grammar of time.ParseDuration: a string it refuses although it matches
// has overflowed.
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// sub returns the table under key, or nil if it is absent or not a table (a problem then).
func (t *table) sub(key string, keys ...string) *table {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		t.d.addf(t.field(key), "must be a table ([%s]), got %s", key, describe(v))
		return nil
	}
	return t.d.table(t.field(key), m, keys...)
}

// list returns the entries of the array of tables under key ([[key]]), numbered from 1.
func (t *table) list(key string, keys ...string) []*table {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	var maps []map[string]any
	switch a := v.(type) {
	case []map[string]any:
		maps = a
	case []any:
		for i, e := range a {
			m, isMap := e.(map[string]any)
			if !isMap {
				t.d.addf(fmt.Sprintf("%s[%d]", t.field(key), i+1), "must be a table, got %s", describe(e))
				continue
			}
			maps = append(maps, m)
		}
	case map[string]any:
		name := entryIndex.ReplaceAllString(t.field(key), "") // "load", "class.load"
		for sub, v := range a {
			if _, isList := v.([]map[string]any); isList { // [[class.load]] before any [[class]]
				t.d.addf(t.field(key), "[[%s.%s]] must follow the [[%s]] it belongs to", name, sub, name)
				return nil
			}
		}
		t.d.addf(t.field(key), "must be a list of tables: write [[%s]], not [%s]", name, name)
		return nil
	default:
		t.d.addf(t.field(key), "must be a list of tables ([[%s]]), got %s", entryIndex.ReplaceAllString(t.field(key), ""), describe(v))
		return nil
	}
	out := make([]*table, len(maps))
	for i, m := range maps {
		out[i] = t.d.table(fmt.Sprintf("%s[%d]", t.field(key), i+1), m, keys...)
	}
	return out
}

// done records every key of t that was not read as unknown.
func (t *table) done() {
	var unknown []string
	for k := range t.m {
		if !t.used[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		msg := "unknown key"
		if guess := closest(k, t.keys); guess != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", guess)
		}
		where := "at the top level"
		if t.path != "" {
			where = "in " + t.header()
		}
		t.d.addf(t.field(k), "%s; valid keys %s: %s", msg, where, strings.Join(t.keys, ", "))
	}
}

// The keys of each table, in the order the documentation lists them.
var (
	topKeys     = []string{"name", "summary", "story", "duration", "drain", "tick", "seed", "fleet", "class", "load", "service", "fault", "note"}
	fleetKeys   = []string{"clients", "loop", "users", "think", "deadline", "timeout", "layers", "budget"}
	classKeys   = []string{"name", "priority", "rate", "load"}
	loadKeys    = []string{"at", "factor"}
	serviceKeys = []string{"workers", "service_time", "sigma", "queue_limit", "drop_expired", "refusal_cost", "crash_factor", "crash_after", "restart_delay", "warm_start", "warmup"}
	faultKeys   = append([]string{"kind", "at", "duration"}, faultValueKeys...)
	noteKeys    = []string{"at", "text", "strategies"}
)

// scenario decodes the whole tree over Defaults().
func (d *decoder) scenario(tree map[string]any) Scenario {
	s := Defaults()
	root := d.table("", tree, topKeys...)
	root.require("name", `name = "my-scenario"`)
	root.require("summary", `summary = "What goes wrong, in one line"`)
	root.require("duration", `duration = "120s"`)
	root.str("name", &s.Name)
	root.str("summary", &s.Summary)
	root.str("story", &s.Story)
	root.duration("duration", &s.Duration)
	root.duration("drain", &s.Drain)
	root.duration("tick", &s.Tick)
	root.integer64("seed", &s.Seed)

	if f := root.sub("fleet", fleetKeys...); f != nil {
		d.fleet(f, &s)
	}
	if _, ok := tree["class"]; !ok {
		d.addf("class", "at least one [[class]] is required (e.g. [[class]] name = \"api\" priority = 5 rate = 100)")
	}
	for _, c := range root.list("class", classKeys...) {
		var cl Class
		c.require("name", `name = "payment"`)
		c.require("rate", `rate = 100`)
		c.str("name", &cl.Name)
		c.integer("priority", &cl.Priority, 0, MaxPriority)
		c.number("rate", &cl.Rate)
		cl.Load = loadPoints(c)
		c.done()
		s.Classes = append(s.Classes, cl)
	}
	s.Load = loadPoints(root)
	if _, ok := tree["service"]; !ok {
		d.addf("service", "a [service] table is required (at least workers and service_time)")
	}
	if v := root.sub("service", serviceKeys...); v != nil {
		d.service(v, &s.Service)
	}
	for _, f := range root.list("fault", faultKeys...) {
		s.Faults = append(s.Faults, d.fault(f))
	}
	for _, n := range root.list("note", noteKeys...) {
		var note Note
		n.require("at", `at = "30s"`)
		n.require("text", `text = "What the viewer is about to see"`)
		n.duration("at", &note.At)
		n.str("text", &note.Text)
		n.strs("strategies", &note.Strategies)
		n.done()
		s.Notes = append(s.Notes, note)
	}
	root.done()
	return s
}

// loadPoints decodes the load profile under t's key "load": the scenario's [[load]] or a
// class's [[class.load]].
func loadPoints(t *table) []LoadPoint {
	var pts []LoadPoint
	for _, l := range t.list("load", loadKeys...) {
		var p LoadPoint
		l.require("at", `at = "60s"`)
		l.require("factor", `factor = 1.5`)
		l.duration("at", &p.At)
		l.number("factor", &p.Factor)
		l.done()
		pts = append(pts, p)
	}
	return pts
}

func (d *decoder) fleet(f *table, s *Scenario) {
	f.integer("clients", &s.Clients, 1, MaxClients)
	var loop string
	if f.str("loop", &loop) {
		switch loop {
		case "open":
			s.Loop.Closed = false
		case "closed":
			s.Loop.Closed = true
		default:
			d.addf(f.field("loop"), "must be \"open\" or \"closed\", got %q", loop)
		}
	}
	f.integer("users", &s.Loop.Users, 0, MaxUsers)
	f.duration("think", &s.Loop.Think)
	f.duration("deadline", &s.Deadline)
	f.duration("timeout", &s.Timeout)
	f.integer("layers", &s.Layers, 1, MaxLayers)
	var budget string
	if f.str("budget", &budget) {
		found := false
		for _, b := range Budgets {
			if budget == b.String() {
				s.Budget, found = b, true
			}
		}
		if !found {
			d.addf(f.field("budget"), "must be \"per-client\" or \"shared\", got %q", budget)
		}
	}
	f.done()
}

func (d *decoder) service(v *table, svc *Service) {
	v.require("workers", "workers = 50")
	v.require("service_time", `service_time = "100ms"`)
	v.integer("workers", &svc.Workers, 1, MaxWorkers)
	v.duration("service_time", &svc.ServiceTime)
	v.number("sigma", &svc.Sigma)
	v.integer("queue_limit", &svc.QueueLimit, 0, MaxQueueLimit)
	v.boolean("drop_expired", &svc.DropExpired)
	v.number("refusal_cost", &svc.RefusalCost)
	v.number("crash_factor", &svc.CrashFactor)
	v.duration("crash_after", &svc.CrashAfter)
	v.duration("restart_delay", &svc.RestartDelay)
	v.number("warm_start", &svc.WarmStart)
	v.duration("warmup", &svc.Warmup)
	v.done()
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
	f.require("kind", `kind = "outage"`)
	f.require("at", `at = "60s"`)
	f.require("duration", `duration = "30s"`)
	var kind string
	f.str("kind", &kind)
	flt.Kind = FaultKind(kind)
	f.duration("at", &flt.At)
	f.duration("duration", &flt.Duration)
	spec, ok := flt.Kind.Spec()
	if !ok {
		for _, k := range faultValueKeys {
			f.get(k) // the kind is reported by Validate; don't also call its value unknown
		}
		f.done()
		return flt
	}
	want, example := spec.Key, spec.Key+" = "+spec.Unit.Example()
	for _, k := range faultValueKeys {
		if _, ok := f.m[k]; !ok || k == want {
			continue
		}
		f.get(k)
		if want == "" {
			d.addf(f.field(k), "kind %q takes no value", flt.Kind)
		} else {
			d.addf(f.field(k), "is not a value of kind %q, which takes %s", flt.Kind, example)
		}
	}
	switch spec.Unit {
	case UnitNone:
	case UnitSeconds:
		f.require(want, example)
		var d time.Duration
		if f.duration(want, &d) {
			flt.Value = d.Seconds()
		}
	default:
		f.require(want, example)
		f.number(want, &flt.Value)
	}
	f.done()
	return flt
}

// describe names a decoded TOML value's type, with the value when it is short.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			return "a string"
		}
		return fmt.Sprintf("the string %q", x)
	case int64:
		return fmt.Sprintf("the integer %d", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return "a date or time"
}

// closest returns the candidate within edit distance 2 of key, or "".
func closest(key string, candidates []string) string {
	if len(key) > 64 {
		return ""
	}
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := editDistance(key, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
