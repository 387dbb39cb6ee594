package tomlfile

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cortex-tui/cortex-tui/internal/load"
)

// FieldError is one problem with one field of a file. File and Line are filled by Place
// (Line 0 when the field has no line, e.g. a required key that is missing); a check of a value
// built in code leaves them empty.
type FieldError struct {
	File  string // file name as given to the parser; "" for a value built in code
	Line  int    // 1-based line of the field in the file; 0 when unknown
	Field string // TOML path, e.g. "service.workers" or "fault[2].at" (entries numbered from 1)
	Msg   string // what is wrong, e.g. "must be at least 1, got 0"
}

// Error formats the problem as "file:line: field: message", leaving out the parts that are
// unknown.
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, in the order of the file where known. Use
// errors.As to reach the individual FieldErrors.
type Errors []*FieldError

// Error returns one line per problem (a syntax error may add the parser's context lines).
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the individual problems, so errors.As finds a *FieldError.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Problems collects FieldErrors while validating or decoding. The zero value is ready; not
// safe for concurrent use.
type Problems struct{ List Errors }

// Addf records a problem with field.
func (p *Problems) Addf(field, format string, args ...any) {
	p.List = append(p.List, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Err returns the problems as an error, or nil when there are none.
func (p *Problems) Err() error {
	if len(p.List) == 0 {
		return nil
	}
	return p.List
}

// CoveredBy reports whether a problem was already recorded for field or a parent of it (a
// wrong-typed key leaves its zero value behind, which a validation would report again).
func (p *Problems) CoveredBy(field string) bool {
	for _, d := range p.List {
		if field == d.Field || strings.HasPrefix(field, d.Field+".") || strings.HasPrefix(field, d.Field+"[") {
			return true
		}
	}
	return false
}

// Place gives every problem of errs the file's name and the line of its field (lines, which
// Tree returned from its one pass over the text: load.Lines), and sorts them in file order
// (stable).
func Place(filename string, lines load.Lines, errs Errors) {
	for _, e := range errs {
		e.File = filename
		e.Line = lines.Of(e.Field)
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
}

// Tree holds data to k's limits (load.Decode) and decodes its TOML into a generic tree; it
// also returns the line of every table and key, found in the same pass as the limits (for
// Place). A refusal by the loader or a syntax error is returned as Errors naming filename (a
// syntax error with the parser's context lines and a caret).
func Tree(filename string, data []byte, k load.Kind) (map[string]any, load.Lines, error) {
	var tree map[string]any
	_, lines, err := load.Decode(filename, data, k, &tree)
	if err != nil {
		var le *load.Error
		if errors.As(err, &le) {
			return nil, nil, LoadError(err)
		}
		return nil, nil, Errors{SyntaxError(filename, err, string(data))}
	}
	return tree, lines, nil
}

// LoadError turns a loader's refusal (a *load.Error) into Errors, keeping its file, line and
// message; any other error is returned as it is.
func LoadError(err error) error {
	var le *load.Error
	if errors.As(err, &le) {
		return Errors{{File: le.File, Line: le.Line, Msg: le.Msg}}
	}
	return err
}
