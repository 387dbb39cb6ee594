package scenarios

import (
	"fmt"
	"strings"
)

// FieldError is one problem with one field of a scenario. File and Line are filled by Parse
// (Line 0 when the field has no line, e.g. a required key that is missing); Validate leaves
// them empty.
type FieldError struct {
	File  string // file name as given to Parse; "" for a scenario built in code
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

// Errors is every problem found in one scenario, in the order of the file where known.
// Parse and Validate return it (as error) when there is at least one problem; use errors.As
// to reach the individual FieldErrors.
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

// problems collects FieldErrors while validating or decoding.
type problems struct{ list Errors }

// addf records a problem with field.
func (p *problems) addf(field, format string, args ...any) {
	p.list = append(p.list, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// err returns the problems as an error, or nil when there are none.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return p.list
}
