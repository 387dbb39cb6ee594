package cli

import (
	"fmt"
	"io"
	"strings"
)

// outputFormat is one value of a command's --format: its name, a note for the flag's help and
// how it prints the command's result (a T). Each command lists its formats in one table
// (headlessFormats, benchFormats); the flag's help, its validation and the output all come
// from that table.
type outputFormat[T any] struct {
	name  string
	note  string // said in brackets after the name in the flag's help; "" for none
	write func(w io.Writer, result T) error
}

// formatHelp words formats for a --format flag's help: "table, json or csv (default table on
// a terminal, json otherwise)", each name followed by its note in brackets if it has one. The
// first format is the default on a terminal.
func formatHelp[T any](formats []outputFormat[T]) string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
		if f.note != "" {
			names[i] += " (" + f.note + ")"
		}
	}
	list := names[len(names)-1]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " or " + names[n-1]
	}
	return fmt.Sprintf("%s (default %s on a terminal, %s otherwise)", list, formats[0].name, pipeFormat)
}

// pipeFormat is the format used when --format is not given and the output is not a terminal.
const pipeFormat = "json"

// pickFormat returns the format named by --format (case and spaces ignored), or a usage error
// naming the valid ones (exit 2); "" means the first format on a terminal and pipeFormat
// elsewhere.
func pickFormat[T any](format string, out io.Writer, formats []outputFormat[T]) (outputFormat[T], error) {
	want := strings.ToLower(strings.TrimSpace(format))
	if format == "" {
		want = pipeFormat
		if isTerminal(out) {
			want = formats[0].name
		}
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		if f.name == want {
			return f, nil
		}
		names[i] = f.name
	}
	return outputFormat[T]{}, &exitError{code: 2, err: fmt.Errorf("invalid --format %q (valid: %s)", format, strings.Join(names, ", "))}
}
