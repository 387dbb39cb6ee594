package lesson_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/lesson"
)

// TestProgress asserts that a missing file is empty progress, that MarkDone writes a file
// LoadProgress reads back (creating the directory), and that a broken file gives a clear error
// and empty progress, and is replaced by the next MarkDone.
func TestProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cortex-tui", "progress.json")
	p, err := lesson.LoadProgress(path)
	require.NoError(t, err)
	assert.Empty(t, p.Done)

	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	require.NoError(t, lesson.MarkDone(path, "retry-storm", at))
	require.NoError(t, lesson.MarkDone(path, "metastable", at))
	p, err = lesson.LoadProgress(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"metastable", "retry-storm"}, p.Names())
	assert.True(t, p.Done["retry-storm"].Equal(at))

	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o644))
	p, err = lesson.LoadProgress(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a progress file")
	assert.Empty(t, p.Done, "a broken file is no progress")
	require.NoError(t, lesson.MarkDone(path, "priorities", at))
	p, err = lesson.LoadProgress(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"priorities"}, p.Names(), "the broken file was replaced")
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")
}
