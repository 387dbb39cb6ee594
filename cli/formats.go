package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/cortex-tui/cortex-tui/report"
)

// formatHelp words formats for a --format flag's help: "table, json or csv (default table on
// a terminal, json otherwise)", each name followed by its note in brackets if it has one. The
// first format is the default on a terminal.
func formatHelp[T any](formats []report.Format[T]) string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.Name
		if f.Note != "" {
			names[i] += " (" + f.Note + ")"
		}
	}
	list := names[len(names)-1]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " or " + names[n-1]
	}
	return fmt.Sprintf("%s (default %s on a terminal, %s otherwise)", list, formats[0].Name, pipeFormat)
}

// pipeFormat is the format used when --format is not given and the output is not a terminal.
const pipeFormat = "json"

// pickFormat returns the format named by --format (case and spaces ignored), or a usage error
// naming the valid ones (exit 2); "" means the first format on a terminal and pipeFormat
// elsewhere.
func pickFormat[T any](format string, out io.Writer, formats []report.Format[T]) (report.Format[T], error) {
	want := strings.ToLower(strings.TrimSpace(format))
	if format == "" {
		want = pipeFormat
		if isTerminal(out) {
			want = formats[0].Name
		}
	}
	names := make([]string, len(formats))
	for i, f := range formats {
		if f.Name == want {
			return f, nil
		}
		names[i] = f.Name
	}
	return report.Format[T]{}, &exitError{code: 2, err: fmt.Errorf("invalid --format %q (valid: %s)", format, strings.Join(names, ", "))}
}
