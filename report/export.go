package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/source"
)

// ExportName is the file name of a run's export without extension: cortex-<scenario>-<strategy>-seed<seed>
// (the seed named, so that a second export's suffix, -2, never reads as a seed).
func ExportName(m source.Meta) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '/' || r == '\\' || r == ' ' || r == os.PathSeparator {
				return '_'
			}
			return r
		}, s)
	}
	return fmt.Sprintf("cortex-%s-%s-seed%d", clean(m.Scenario), clean(m.Strategy), m.Seed)
}

// maxExportNames is how many names export tries for one run (the plain one, then -1, -2, ...)
// before giving up.
const maxExportNames = 1000

// Export writes a run's result into dir ("" = current directory) in every format of
// ExportFormats (the CSV and the JSON) and returns their paths. It never replaces a
// file: when cortex-<scenario>-<strategy>-seed<seed> with one of the extensions exists it tries
// -2, -3, ... before the extension, the same suffix for every file of the run (see reserve).
// Each file's content appears at once (a temporary file renamed onto the name reserved for
// it), so a reader never sees a half-written export.
func Export(j Result, dir string) ([]string, error) {
	if dir == "" {
		dir = "."
	}
	base := filepath.Join(dir, ExportName(j.Meta))
	formats := ExportFormats()
	data := make([][]byte, len(formats))
	exts := make([]string, len(formats))
	for i, f := range formats {
		var b bytes.Buffer
		if err := f.Write(&b, j); err != nil {
			return nil, fmt.Errorf("export %s%s: %w", base, f.Ext, err)
		}
		data[i], exts[i] = b.Bytes(), f.Ext
	}
	return ExportFiles(dir, ExportName(j.Meta), exts, data)
}

// ExportFiles writes one file per ext (".toml", or ".svg" and ".txt") with its data into dir
// ("" = current directory) named base (ExportName, or more after it) and the ext, never
// replacing a file (the same suffix -2, -3, ... for all of them when one is taken, as Export
// does), and returns their paths: the dashboard's recording and its pictures of the screen.
func ExportFiles(dir, base string, exts []string, data [][]byte) ([]string, error) {
	if dir == "" {
		dir = "."
	}
	paths, err := reserve(filepath.Join(dir, base), exts...)
	if err != nil {
		return nil, err
	}
	for i := range paths {
		if err := writeAtomic(paths[i], data[i]); err != nil {
			for _, p := range paths[i:] {
				_ = os.Remove(p)
			}
			return paths[:i], err
		}
	}
	return paths, nil
}

// reserve creates empty files base+ext for every ext, each with O_EXCL so that no existing file
// (nor one created meanwhile by another program) is ever opened, and returns their paths. When
// any of them exists it removes those it created and tries base-1, base-2, ..., up to
// maxExportNames names.
func reserve(base string, exts ...string) ([]string, error) {
	for n := 0; n < maxExportNames; n++ {
		name := base
		if n > 0 {
			name = fmt.Sprintf("%s-%d", base, n+1) // the second export is -2
		}
		paths, err := reserveAll(name, exts)
		if err == nil {
			return paths, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("export %s: %w", pe.Path, pe.Err)
			}
			return nil, fmt.Errorf("export %s: %w", name, err)
		}
	}
	return nil, fmt.Errorf("export %s: %d names taken (%s to %s-%d), not overwriting any: move them away or set another directory",
		base, maxExportNames, filepath.Base(base), filepath.Base(base), maxExportNames)
}

// reserveAll creates name+ext for every ext with O_EXCL; on the first failure it removes the
// ones it created and returns the error (fs.ErrExist when a name is taken).
func reserveAll(name string, exts []string) ([]string, error) {
	var paths []string
	for _, ext := range exts {
		f, err := os.OpenFile(name+ext, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			err = f.Close()
			paths = append(paths, name+ext)
		}
		if err != nil {
			for _, p := range paths {
				_ = os.Remove(p)
			}
			return nil, err
		}
	}
	return paths, nil
}

// writeAtomic writes data to a temporary file beside path and renames it onto path, which
// reserve created empty for this export, so a reader sees either nothing or the whole file.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	return nil
}
