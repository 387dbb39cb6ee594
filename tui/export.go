package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
)

// exportJob is one run's timeline and summary, copied in the Update loop (the Recorder is not
// safe for concurrent use) and written by the export command.
type exportJob struct {
	meta source.Meta
	rows []report.Row
	sum  report.Summary
}

// exportBase is the file name without extension: cortex-<scenario>-<strategy>-<seed>.
func exportBase(m source.Meta) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r == ' ' || r == os.PathSeparator {
				return '_'
			}
			return r
		}, s)
	}
	return fmt.Sprintf("cortex-%s-%s-%d", clean(m.Scenario), clean(m.Strategy), m.Seed)
}

// write writes the CSV and the JSON of the job into dir ("" = current directory), each
// atomically (a temporary file renamed into place), and returns their paths.
func (j exportJob) write(dir string) ([]string, error) {
	if dir == "" {
		dir = "."
	}
	base := filepath.Join(dir, exportBase(j.meta))
	var csv, js bytes.Buffer
	if err := report.WriteCSV(&csv, j.rows); err != nil {
		return nil, fmt.Errorf("export %s.csv: %w", base, err)
	}
	if err := report.WriteJSON(&js, j.meta, j.rows, j.sum); err != nil {
		return nil, fmt.Errorf("export %s.json: %w", base, err)
	}
	var paths []string
	for _, f := range []struct {
		path string
		data []byte
	}{{base + ".csv", csv.Bytes()}, {base + ".json", js.Bytes()}} {
		if err := writeAtomic(f.path, f.data); err != nil {
			return paths, err
		}
		paths = append(paths, f.path)
	}
	return paths, nil
}

// writeAtomic writes data to a temporary file beside path and renames it into place, so a
// reader never sees a half-written file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Chmod(0o644) // CreateTemp makes 0600; an export is an ordinary file
	}
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		_ = os.Remove(name)
		return fmt.Errorf("export %s: %w", path, werr)
	}
	return nil
}
