package report

import (
	"cmp"
	"io"
	"slices"
)

// Format is one way to print a command's result, a T: its name (the value of --format), a
// note for the flag's help ("" for none), the file extension the dashboard's export writes it
// with ("" for a format the export leaves out), and its writer. A command lists its formats
// in one table; the flag's help, its validation, the output and the export come from it.
type Format[T any] struct {
	Name  string
	Note  string
	Ext   string
	Write func(w io.Writer, result T) error
}

// ResultFormats are the outputs of a run's result, the default on a terminal first: run
// --headless and live --headless print one, the dashboard's export writes every one that has
// an extension (ExportFormats). A new format is its writer and its row here.
var ResultFormats = []Format[Result]{
	{Name: "table", Write: func(w io.Writer, r Result) error { return WriteTable(w, r.Meta, r.Timeline, r.Summary) }},
	{Name: "json", Ext: ".json", Write: func(w io.Writer, r Result) error { return WriteJSON(w, r.Meta, r.Timeline, r.Summary) }},
	{Name: "csv", Ext: ".csv", Write: func(w io.Writer, r Result) error { return WriteCSV(w, r.Timeline) }},
}

// ExportFormats are the formats of ResultFormats the dashboard's export writes (those with an
// extension), in the order of their extensions: .csv, .json.
func ExportFormats() []Format[Result] {
	var out []Format[Result]
	for _, f := range ResultFormats {
		if f.Ext != "" {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b Format[Result]) int { return cmp.Compare(a.Ext, b.Ext) })
	return out
}
