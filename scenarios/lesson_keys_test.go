package scenarios

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLessonDocs asserts that docs/lessons.md documents every key of a lesson file and every
// metric of the goal vocabulary, and lists every built-in lesson.
func TestLessonDocs(t *testing.T) {
	doc, err := os.ReadFile("../docs/lessons.md")
	require.NoError(t, err)
	text := string(doc)
	for _, m := range Metrics {
		name := m.Name
		if strings.HasPrefix(name, "signal.") || strings.HasPrefix(name, "weight.") {
			name = name[:len(name)-1] + "F` .. `" + name[:len(name)-1] + "C"
		}
		assert.Contains(t, text, "| `"+name+"` |", "docs/lessons.md documents the metric %s", m.Name)
	}
	for _, k := range slices.Concat(lessonKeys, stepKeys, goalKeys) {
		assert.Contains(t, text, "| `"+k+"` |", "docs/lessons.md documents the key %s", k)
	}
	for _, l := range Lessons() {
		assert.Contains(t, text, "`"+l.Name+"`", "docs/lessons.md lists %s", l.Name)
	}
}
