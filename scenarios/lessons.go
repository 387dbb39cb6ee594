package scenarios

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

//go:embed lessons/*.toml
var lessonFS embed.FS

// lessonOrder is the order of the built-in lessons: from the storm itself to its remedies.
var lessonOrder = []string{"retry-storm", "open-loop-backoff", "metastable", "budgets-breakers", "reading-cps", "priorities"}

// builtinLesson is one embedded lesson file, parsed once.
type builtinLesson struct {
	file string
	l    Lesson
	err  error
}

var builtinLessons = sync.OnceValue(func() []builtinLesson {
	entries, err := lessonFS.ReadDir("lessons")
	if err != nil {
		return nil
	}
	var out []builtinLesson
	for _, e := range entries {
		name := "lessons/" + e.Name()
		data, err := lessonFS.ReadFile(name)
		if err != nil {
			out = append(out, builtinLesson{file: name, err: err})
			continue
		}
		l, err := ParseLesson(name, data)
		out = append(out, builtinLesson{file: name, l: l, err: err})
	}
	rank := func(b builtinLesson) int {
		if i := slices.Index(lessonOrder, strings.TrimSuffix(path.Base(b.file), ".toml")); i >= 0 {
			return i
		}
		return len(lessonOrder)
	}
	slices.SortStableFunc(out, func(a, b builtinLesson) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.file, b.file)
	})
	return out
})

// Lessons returns the built-in lessons in teaching order. A file that fails to parse is left
// out (the package's tests make sure none does) and reported by LookupLesson. Each call returns
// fresh slices. Safe for concurrent use.
func Lessons() []Lesson {
	var out []Lesson
	for _, b := range builtinLessons() {
		if b.err == nil {
			out = append(out, b.l.clone())
		}
	}
	return out
}

// LookupLesson returns the built-in lesson called name; an unknown name is an error listing
// the valid ones.
func LookupLesson(name string) (Lesson, error) {
	var names []string
	for _, b := range builtinLessons() {
		base := strings.TrimSuffix(path.Base(b.file), ".toml")
		switch {
		case b.err == nil && b.l.Name == name:
			return b.l.clone(), nil
		case b.err != nil && base == name:
			return Lesson{}, fmt.Errorf("built-in lesson %q is broken: %w", name, b.err)
		}
		if b.err == nil {
			names = append(names, b.l.Name)
		}
	}
	return Lesson{}, fmt.Errorf("unknown lesson %q; valid names: %s", name, strings.Join(names, ", "))
}

// LessonFiles returns the built-in lesson files by name, as embedded (for validate's tests).
func LessonFiles() map[string][]byte {
	out := map[string][]byte{}
	for _, b := range builtinLessons() {
		if data, err := lessonFS.ReadFile(b.file); err == nil {
			out[b.file] = data
		}
	}
	return out
}

// clone returns a copy of l that shares no slices with it.
func (l Lesson) clone() Lesson {
	l.Steps = slices.Clone(l.Steps)
	for i := range l.Steps {
		l.Steps[i].Goals = slices.Clone(l.Steps[i].Goals)
		l.Steps[i].Actions = slices.Clone(l.Steps[i].Actions)
	}
	l.Controls = slices.Clone(l.Controls)
	return l
}

// lessonHeader matches the [[step]] header that every lesson file has and no scenario file.
var lessonHeader = regexp.MustCompile(`(?m)^[ \t]*\[\[[ \t]*step[ \t]*\]\]`)

// IsLesson reports whether data looks like a lesson file (it has a [[step]] table) rather than
// a scenario file: validate uses it to pick the parser.
func IsLesson(data []byte) bool { return lessonHeader.Match(data) }
