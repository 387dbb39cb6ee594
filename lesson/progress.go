package lesson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/internal/load"
)

// Progress is which lessons a learner has completed, and when. It is kept as JSON in the
// user's configuration directory (ProgressPath). The zero value is empty and usable.
type Progress struct {
	Done map[string]time.Time `json:"done"` // lesson name -> when it was completed
}

// progressKind bounds what LoadProgress reads: a progress file is a few hundred bytes.
var progressKind = load.Kind{Name: "progress file", MaxBytes: 64 << 10}

// ProgressPath is os.UserConfigDir()/cortex-tui/progress.json.
func ProgressPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration directory to keep lesson progress in: %w", err)
	}
	return filepath.Join(dir, "cortex-tui", "progress.json"), nil
}

// LoadProgress reads the progress file at path. A missing file is no progress and no error. A
// broken one (unreadable, too large, not the JSON Save writes) gives empty progress and an
// error saying so: the caller shows it and goes on; the next Save replaces the file.
func LoadProgress(path string) (Progress, error) {
	p := Progress{Done: map[string]time.Time{}}
	data, err := load.File(path, progressKind)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		return p, fmt.Errorf("lesson progress ignored: %w", err)
	}
	var read Progress
	if err := json.Unmarshal(data, &read); err != nil {
		return p, fmt.Errorf("lesson progress ignored: %s is not a progress file (%v); it is replaced when a lesson is completed", path, err)
	}
	for name, at := range read.Done {
		p.Done[name] = at
	}
	return p, nil
}

// Save writes p to path atomically (a temporary file in the same directory, then a rename),
// creating the directory if needed, so a crash never leaves half a file.
func (p Progress) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot save lesson progress: %w", err)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot save lesson progress: %w", err)
	}
	return nil
}

// MarkDone records lesson name as completed at now in the file at path (a broken file is
// replaced).
func MarkDone(path, name string, now time.Time) error {
	p, _ := LoadProgress(path)
	p.Done[name] = now.UTC()
	return p.Save(path)
}

// Names returns the completed lessons' names, sorted.
func (p Progress) Names() []string {
	out := make([]string, 0, len(p.Done))
	for n := range p.Done {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
