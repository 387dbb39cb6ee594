package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/atomicfile"
	"github.com/cortex-tui/cortex-tui/internal/load"
)

// progressName is the progress file in the data directory.
const progressName = "progress.json"

// progressKind bounds what the server reads of its progress file: a line or two per learner.
var progressKind = load.Kind{Name: "progress file", MaxBytes: 8 << 20}

// maxLearners is the most learners the progress keeps; a key past it is served but not recorded.
const maxLearners = 20000

// Learner is one SSH user's progress: the lessons they completed, by the key they connect
// with (its SHA256 fingerprint), shown by the name they last connected as.
type Learner struct {
	Key  string               `json:"-"`    // the key's fingerprint, "SHA256:..."
	Name string               `json:"name"` // the user name of the latest session, made inert
	Done map[string]time.Time `json:"done"` // lesson name -> when it was completed
	Seen time.Time            `json:"seen"` // when the latest session began
}

// progressFile is the file's JSON.
type progressFile struct {
	Learners map[string]*Learner `json:"learners"` // by key fingerprint
}

// progress is the class's progress, kept in the data directory and written atomically after
// every change (mode 0600: it names the class's keys). It is safe for concurrent use.
type progress struct {
	path string
	mu   sync.Mutex
	file progressFile
}

// openProgress reads the progress in dir (none yet is no error). A broken file is an error:
// the server does not start over a class's record it would replace.
func openProgress(dir string) (*progress, error) {
	p := &progress{path: filepath.Join(dir, progressName), file: progressFile{Learners: map[string]*Learner{}}}
	data, err := load.File(p.path, progressKind)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, nil
	case err != nil:
		return nil, err
	}
	if err := json.Unmarshal(data, &p.file); err != nil {
		return nil, fmt.Errorf("%s is not a progress file (%v): move it away to start a new one", p.path, err)
	}
	if p.file.Learners == nil {
		p.file.Learners = map[string]*Learner{}
	}
	for fp, l := range p.file.Learners {
		if l == nil {
			delete(p.file.Learners, fp)
			continue
		}
		l.Key = fp
		if l.Done == nil {
			l.Done = map[string]time.Time{}
		}
	}
	return p, nil
}

// ReadProgress returns the progress kept in the data directory dir, one Learner per key,
// sorted by name then key (none when there is no file yet).
func ReadProgress(dir string) ([]Learner, error) {
	p, err := openProgress(dir)
	if err != nil {
		return nil, err
	}
	return p.learners(), nil
}

// learners returns a copy of every learner, sorted by name then key.
func (p *progress) learners() []Learner {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Learner, 0, len(p.file.Learners))
	for _, l := range p.file.Learners {
		c := *l
		c.Done = maps.Clone(l.Done)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Learner) int {
		if a.Name != b.Name {
			if a.Name < b.Name {
				return -1
			}
			return 1
		}
		if a.Key < b.Key {
			return -1
		}
		if a.Key > b.Key {
			return 1
		}
		return 0
	})
	return out
}

// seen records that key connected as name at now.
func (p *progress) seen(key, name string, now time.Time) error {
	return p.update(key, func(l *Learner) { l.Name, l.Seen = name, now.UTC() })
}

// markDone records lesson as completed by key at now (the first time only).
func (p *progress) markDone(key, lesson string, now time.Time) error {
	return p.update(key, func(l *Learner) {
		if _, ok := l.Done[lesson]; !ok {
			l.Done[lesson] = now.UTC()
		}
	})
}

// done returns the lessons key has completed.
func (p *progress) done(key string) map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]bool{}
	if l := p.file.Learners[key]; l != nil {
		for n := range l.Done {
			out[n] = true
		}
	}
	return out
}

// update applies change to key's learner (a new one if needed) and writes the file.
func (p *progress) update(key string, change func(*Learner)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.file.Learners[key]
	if l == nil {
		if len(p.file.Learners) >= maxLearners {
			return fmt.Errorf("the progress keeps %d learners at most: %s is not recorded", maxLearners, key)
		}
		l = &Learner{Key: key, Done: map[string]time.Time{}}
		p.file.Learners[key] = l
	}
	change(l)
	data, err := json.MarshalIndent(p.file, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(p.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("cannot save the progress: %w", err)
	}
	return nil
}
