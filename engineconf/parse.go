package engineconf

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/load"
	"github.com/cortex-tui/cortex-tui/internal/tomlfile"
)

// MaxFileSize is the largest file Parse accepts, in bytes (load.Engine's limit).
const MaxFileSize = 64 << 10

// FieldError and Errors are the problems of a file: "file:line: field: message", every one at
// once, in file order (the scenario parser's types).
type (
	FieldError = tomlfile.FieldError
	Errors     = tomlfile.Errors
)

// Bases are the configurations a file's base key names: the values of the keys it leaves out.
var Bases = map[string]func() engine.Config{
	"default": engine.DefaultConfig,
	"article": engine.ArticleConfig,
}

// ParseFile reads the file at path under load.Engine's limits (whatever the file is: a device
// or a FIFO included; a directory is refused) and parses it with Parse; errors name the path as
// given.
func ParseFile(path string) (engine.Config, error) {
	data, err := load.File(path, load.Engine)
	if err != nil {
		return engine.Config{}, tomlfile.LoadError(err)
	}
	return Parse(path, data)
}

// ParseReader reads r to its end under load.Engine's limits and parses it; name is used in
// errors ("-" for the standard input).
func ParseReader(name string, r io.Reader) (engine.Config, error) {
	data, err := load.Reader(name, r, load.Engine)
	if err != nil {
		return engine.Config{}, tomlfile.LoadError(err)
	}
	return Parse(name, data)
}

// Parse decodes an engine configuration from the TOML text data over its base (base =
// "default", the default, or "article") and validates it with engine.Config.Validate.
// filename is used in error messages only.
//
// Parsing is strict, as for a scenario file: the text is first held to load.Engine's limits
// (size, nesting, dotted keys, the number of keys); then a syntax error, an unknown table or key
// (with a "did you mean"), a value of the wrong type, a number that is not finite and a value
// the engine refuses are all errors, reported at once in an Errors, each as "file:line: field:
// message" with the field's path in the file ("budget.capacity").
func Parse(filename string, data []byte) (engine.Config, error) {
	tree, lines, err := tomlfile.Tree(filename, data, load.Engine)
	if err != nil {
		return engine.Config{}, err
	}
	var p tomlfile.Problems
	root := tomlfile.NewTable(&p, "", tree, Keys...)
	cfg, err := Decode(&p, root)
	if err != nil {
		return engine.Config{}, err
	}
	root.Done()
	if len(p.List) > 0 {
		tomlfile.Place(filename, lines, p.List)
		return engine.Config{}, p.List
	}
	return cfg, nil
}

// Decode reads a configuration from root, a file's top level or a table holding the same
// keys (Keys: base and the tables; a scenario's [engine]), over its base, and validates it,
// recording every problem in p at its path under root ("budget.capacity", or
// "engine.budget.capacity"). It reads none of root's other keys and leaves root.Done to the
// caller; the error is only an engine's validation it cannot map onto keys.
func Decode(p *tomlfile.Problems, root *tomlfile.Table) (engine.Config, error) {
	cfg := decode(p, root)
	if err := cfg.Validate(); err != nil {
		var ce engine.ConfigError
		if !errors.As(err, &ce) {
			return engine.Config{}, err
		}
		for _, fe := range ce {
			path := root.Field(fileField(fe.Field))
			if !p.CoveredBy(path) {
				p.List = append(p.List, &FieldError{Field: path, Msg: fileWords(fe.Problem)})
			}
		}
	}
	return cfg, nil
}

// fileField returns the file's path of an engine.Config field as Validate names it: "Window" is
// "signals.window", "Weights" the table "weights".
func fileField(field string) string {
	if p := lookup(field); p != nil {
		return p.Path()
	}
	if field == "Weights" {
		return "weights"
	}
	return field
}

// fileWords replaces the engine.Config field names in a validation message with the file's
// keys: "must be > 0 when Fleet.Enabled" reads "must be > 0 when fleet.enabled".
func fileWords(msg string) string {
	for _, p := range Params {
		if strings.Contains(p.Field, ".") {
			msg = strings.ReplaceAll(msg, p.Field, p.Path())
		}
	}
	return msg
}

// Keys are the keys of a file's top level: base and the tables.
var Keys = func() []string {
	keys := []string{"base"}
	for _, t := range Tables {
		keys = append(keys, t.Name)
	}
	return keys
}()

// decode reads base and the tables of root over the base, recording every problem in p.
func decode(p *tomlfile.Problems, root *tomlfile.Table) engine.Config {
	base := "default"
	if root.Str("base", &base) {
		if _, ok := Bases[base]; !ok {
			p.Addf(root.Field("base"), "must be \"default\" or \"article\", got %q", base)
			base = "default"
		}
	}
	cfg := Bases[base]()
	for _, t := range Tables {
		var keys []string
		for _, prm := range Params {
			if prm.Table == t.Name {
				keys = append(keys, prm.Key)
			}
		}
		tbl := root.Sub(t.Name, keys...)
		if tbl == nil {
			continue
		}
		for _, prm := range Params {
			if prm.Table == t.Name {
				read(tbl, prm, &cfg)
			}
		}
		tbl.Done()
	}
	return cfg
}

// read stores the value of prm's key in cfg, if the table has it and it is of prm's kind.
func read(t *tomlfile.Table, prm Param, cfg *engine.Config) {
	f := fieldOf(cfg, prm.Field)
	switch prm.Kind {
	case Duration:
		var d time.Duration
		if t.Duration(prm.Key, &d) {
			f.SetInt(int64(d))
		}
	case Int:
		n := int(f.Int())
		if t.Integer(prm.Key, &n, int(prm.Range.Lo), math.MaxInt32) {
			f.SetInt(int64(n))
		}
	case Int64:
		var n int64
		if t.Integer64(prm.Key, &n) {
			f.SetInt(n)
		}
	case Float:
		var x float64
		if !t.Number(prm.Key, &x) {
			return
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Addf(t.Field(prm.Key), "must be a finite number, got %v", x)
			return
		}
		f.SetFloat(x)
	case Bool:
		var b bool
		if t.Boolean(prm.Key, &b) {
			f.SetBool(b)
		}
	}
}

// Fields returns the path of every field of engine.Config a value can be set in ("Window",
// "Weights.F", "Fleet.MaxAge"), walking the structs it holds (Weights, FleetConfig): what Params
// and Runtime must cover between them.
func Fields() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := prefix + f.Name
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == reflect.TypeOf(engine.Config{}).PkgPath() {
				walk(f.Type, name+".")
				continue
			}
			out = append(out, name)
		}
	}
	walk(reflect.TypeOf(engine.Config{}), "")
	return out
}

// Missing returns the fields of engine.Config (Fields) that neither Params nor Runtime
// covers, and the keys of Params whose field engine.Config no longer has, as messages.
func Missing() []string {
	var out []string
	fields := Fields()
	for _, f := range fields {
		if lookup(f) == nil && Runtime[f] == "" {
			out = append(out, fmt.Sprintf("engine.Config.%s has no key in cortex.toml (add it to engineconf.Params, or to Runtime with why)", f))
		}
	}
	for _, p := range Params {
		if !slices.Contains(fields, p.Field) {
			out = append(out, fmt.Sprintf("%s sets engine.Config.%s, which does not exist", p.Path(), p.Field))
		}
	}
	for f := range Runtime {
		if !slices.Contains(fields, f) {
			out = append(out, fmt.Sprintf("Runtime names engine.Config.%s, which does not exist", f))
		}
	}
	slices.Sort(out)
	return out
}
