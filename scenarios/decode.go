package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
)

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
