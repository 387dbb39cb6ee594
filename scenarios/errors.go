package scenarios

import "github.com/cortex-tui/cortex-tui/internal/tomlfile"

// FieldError is one problem with one field of a scenario (or a lesson). File and Line are filled
// by Parse (Line 0 when the field has no line, e.g. a required key that is missing); Validate
// leaves them empty. Its Error formats it as "file:line: field: message".
type FieldError = tomlfile.FieldError

// Errors is every problem found in one scenario, in the order of the file where known.
// Parse and Validate return it (as error) when there is at least one problem; use errors.As
// to reach the individual FieldErrors.
type Errors = tomlfile.Errors

// problems collects FieldErrors while validating or decoding.
type problems = tomlfile.Problems
