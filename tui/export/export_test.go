package export

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Asserts that Summary names the directory once and each run's files once, with every
// extension after the first joined to its name, and says so when nothing was written.
func TestSummary(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		paths []string
		want  string
	}{
		{nil, "nothing exported"},
		{[]string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "a.json")}, "exported to " + dir + ": a.csv + .json"},
		{[]string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.csv")}, "exported to " + dir + ": a.csv + .json, b.csv"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Summary(tc.paths))
	}
}
