package tomlfile

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Table is one TOML table being decoded from a generic tree: its field path, which keys were
// read, and the keys it may have (for the unknown-key message). Every reader records a problem
// for a value of the wrong type (rather than stopping at the first, as decoding into a struct
// would) in the Problems the table was made with. Not safe for concurrent use.
type Table struct {
	p    *Problems
	path string
	m    map[string]any
	used map[string]bool
	keys []string
}

// NewTable returns the table m at path ("" for the top level, "fleet", "class[2]"), whose
// valid keys are keys, recording its problems in p.
func NewTable(p *Problems, path string, m map[string]any, keys ...string) *Table {
	return &Table{p: p, path: path, m: m, used: map[string]bool{}, keys: keys}
}

// Field returns the path of key in t.
func (t *Table) Field(key string) string {
	if t.path == "" {
		return key
	}
	return t.path + "." + key
}

// Addf records a problem with field (a full path: see Field).
func (t *Table) Addf(field, format string, args ...any) { t.p.Addf(field, format, args...) }

// Has reports whether key is present, without marking it read.
func (t *Table) Has(key string) bool {
	_, ok := t.m[key]
	return ok
}

// header returns how t's header is written: "[fleet]", "[[class]]" or "[[class.load]]".
func (t *Table) header() string {
	if strings.HasSuffix(t.path, "]") {
		return "[[" + entryIndex.ReplaceAllString(t.path, "") + "]]"
	}
	return "[" + entryIndex.ReplaceAllString(t.path, "") + "]"
}

// entryIndex matches the index of a list entry in a field path ("[2]" in "class[2].load").
var entryIndex = regexp.MustCompile(`\[[0-9]+\]`)

// Get returns the raw value of key and marks it read.
func (t *Table) Get(key string) (any, bool) {
	v, ok := t.m[key]
	t.used[key] = true
	return v, ok
}

// Require records a problem if key is absent.
func (t *Table) Require(key, example string) {
	if _, ok := t.m[key]; !ok {
		t.p.Addf(t.Field(key), "is required (e.g. %s)", example)
	}
}

// Value returns the value of key as a T and marks it read; ok is false when key is absent, or
// when it holds another type, which it records as "must be <want>, got <the value>".
func Value[T any](t *Table, key, want string) (v T, ok bool) {
	raw, present := t.Get(key)
	if !present {
		return v, false
	}
	if v, ok = raw.(T); !ok {
		t.p.Addf(t.Field(key), "must be %s, got %s", want, Describe(raw))
	}
	return v, ok
}

// The typed readers below store key's value in dst and report whether they did; a value of the
// wrong type (or out of range) is recorded as a problem and leaves dst as it was.

// Str reads a string.
func (t *Table) Str(key string, dst *string) bool {
	s, ok := Value[string](t, key, "a string")
	if ok {
		*dst = s
	}
	return ok
}

// Integer reads an integer key whose valid range is lo..hi (a validation checks the range of a
// value that fits an int; this reports one that does not, or a float, with the range).
func (t *Table) Integer(key string, dst *int, lo, hi int) bool {
	raw, present := t.Get(key)
	if !present {
		return false
	}
	switch n := raw.(type) {
	case int64:
		if n > math.MaxInt32 || n < math.MinInt32 {
			t.p.Addf(t.Field(key), "must be between %d and %d, got %d", lo, hi, n)
			return false
		}
		*dst = int(n)
		return true
	case float64:
		switch {
		case n != math.Trunc(n): // a fraction, NaN or an infinity
			t.p.Addf(t.Field(key), "must be an integer, got %s", Describe(raw))
		case n < float64(lo) || n > float64(hi):
			t.p.Addf(t.Field(key), "must be between %d and %d, got %v", lo, hi, n)
		default:
			t.p.Addf(t.Field(key), "must be an integer (written without a decimal point or exponent), got %s", Describe(raw))
		}
		return false
	}
	t.p.Addf(t.Field(key), "must be an integer, got %s", Describe(raw))
	return false
}

// Strs reads an array of strings.
func (t *Table) Strs(key string, dst *[]string) bool {
	raw, present := t.Get(key)
	if !present {
		return false
	}
	arr, ok := raw.([]any)
	if !ok {
		t.p.Addf(t.Field(key), "must be an array of strings, like [\"naive\", \"backoff\"], got %s", Describe(raw))
		return false
	}
	out := make([]string, 0, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			t.p.Addf(t.Field(key), "must be an array of strings: element %d is %s", i+1, Describe(e))
			return false
		}
		out = append(out, s)
	}
	*dst = out
	return true
}

// Integer64 reads an integer of any size.
func (t *Table) Integer64(key string, dst *int64) bool {
	n, ok := Value[int64](t, key, "an integer")
	if ok {
		*dst = n
	}
	return ok
}

// Number reads a number, integer or not.
func (t *Table) Number(key string, dst *float64) bool {
	v, ok := t.Get(key)
	if !ok {
		return false
	}
	switch n := v.(type) {
	case float64:
		*dst = n
	case int64:
		*dst = float64(n)
	default:
		t.p.Addf(t.Field(key), "must be a number, got %s", Describe(v))
		return false
	}
	return true
}

// Boolean reads true or false.
func (t *Table) Boolean(key string, dst *bool) bool {
	b, ok := Value[bool](t, key, "true or false")
	if ok {
		*dst = b
	}
	return ok
}

// Duration reads a duration string with a unit ("250ms", "2m").
func (t *Table) Duration(key string, dst *time.Duration) bool {
	s, ok := Value[string](t, key, `a duration string with a unit, like "250ms" or "2m"`)
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
		t.p.Addf(t.Field(key), "%q overflows: the %s (about 292 years)", s, bound)
		return false
	case err != nil:
		t.p.Addf(t.Field(key), "must be a duration with a unit, like \"250ms\" or \"2m\", got %q", s)
		return false
	}
	*dst = d
	return true
}

// durationSyntax is the grammar of time.ParseDuration: a string it refuses although it matches
// has overflowed.
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// Sub returns the table under key, or nil if it is absent or not a table (a problem then).
func (t *Table) Sub(key string, keys ...string) *Table {
	v, ok := t.Get(key)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		t.p.Addf(t.Field(key), "must be a table ([%s]), got %s", key, Describe(v))
		return nil
	}
	return NewTable(t.p, t.Field(key), m, keys...)
}

// List returns the entries of the array of tables under key ([[key]]), numbered from 1.
func (t *Table) List(key string, keys ...string) []*Table {
	v, ok := t.Get(key)
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
				t.p.Addf(fmt.Sprintf("%s[%d]", t.Field(key), i+1), "must be a table, got %s", Describe(e))
				continue
			}
			maps = append(maps, m)
		}
	case map[string]any:
		name := entryIndex.ReplaceAllString(t.Field(key), "") // "load", "class.load"
		for sub, v := range a {
			if _, isList := v.([]map[string]any); isList { // [[class.load]] before any [[class]]
				t.p.Addf(t.Field(key), "[[%s.%s]] must follow the [[%s]] it belongs to", name, sub, name)
				return nil
			}
		}
		t.p.Addf(t.Field(key), "must be a list of tables: write [[%s]], not [%s]", name, name)
		return nil
	default:
		t.p.Addf(t.Field(key), "must be a list of tables ([[%s]]), got %s", entryIndex.ReplaceAllString(t.Field(key), ""), Describe(v))
		return nil
	}
	out := make([]*Table, len(maps))
	for i, m := range maps {
		out[i] = NewTable(t.p, fmt.Sprintf("%s[%d]", t.Field(key), i+1), m, keys...)
	}
	return out
}

// Done records every key of t that was not read as unknown, with the closest valid key as a
// "did you mean" and the list of the valid ones.
func (t *Table) Done() {
	var unknown []string
	for k := range t.m {
		if !t.used[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		msg := "unknown key"
		if guess := Closest(k, t.keys); guess != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", guess)
		}
		where := "at the top level"
		if t.path != "" {
			where = "in " + t.header()
		}
		t.p.Addf(t.Field(k), "%s; valid keys %s: %s", msg, where, strings.Join(t.keys, ", "))
	}
}
