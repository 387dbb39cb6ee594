package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that Write replaces a file whole with the permissions asked for, leaving no
// temporary file behind, and that concurrent writers leave one of their contents whole.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	require.NoError(t, Write(path, []byte("old"), 0o644))
	require.NoError(t, Write(path, []byte("new"), 0o600))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	var wg sync.WaitGroup
	contents := []string{"aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"}
	for _, c := range contents {
		wg.Go(func() { assert.NoError(t, Write(path, []byte(c), 0o600)) })
	}
	wg.Wait()
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, contents, string(data))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")
}

// Asserts that Create writes a new file with its permissions and refuses, changing nothing,
// when the name is taken; and that a write into a missing directory fails cleanly.
func TestCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	require.NoError(t, Create(path, []byte("first"), 0o600))
	err := Create(path, []byte("second"), 0o600)
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrExist)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "first", string(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	assert.Error(t, Write(filepath.Join(dir, "no", "such", "dir"), nil, 0o600))
	assert.Error(t, Create(filepath.Join(dir, "no", "such", "dir"), nil, 0o600))
}
