package report

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/source"
)

// dirNames lists the files of dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// exportPaths are the files an export writes at base: one per format of ExportFormats, in
// their order.
func exportPaths(base string) []string {
	var out []string
	for _, f := range ExportFormats() {
		out = append(out, base+f.Ext)
	}
	return out
}

// Asserts that a pair takes the first suffix free for both of its files: an existing .json
// alone (or .csv alone) moves the pair on, and is left as it was.
func TestExportPairMovesOnWhenEitherExists(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "cortex-x-naive-seed1")
	for path, text := range map[string]string{base + ".json": "mine", base + "-2.csv": "mine too"} {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	}
	job := Result{Meta: source.Meta{Scenario: "x", Strategy: "naive", Seed: 1}}
	paths, err := Export(job, dir)
	require.NoError(t, err)
	assert.Equal(t, exportPaths(base+"-3"), paths)
	for path, text := range map[string]string{base + ".json": "mine", base + "-2.csv": "mine too"} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, text, string(data))
	}
	assert.NoFileExists(t, base+".csv", "the half-free name is not used")
	assert.NoFileExists(t, base+"-2.json")
}

// Asserts that exports racing for the same names (two dashboards in one directory) each get
// their own pair: O_EXCL creation lets exactly one of them have each name.
func TestExportRace(t *testing.T) {
	dir := t.TempDir()
	const n = 8
	job := Result{Meta: source.Meta{Scenario: "x", Strategy: "naive", Seed: 1}}
	var wg sync.WaitGroup
	got := make([][]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = Export(job, dir)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i])
		require.Len(t, got[i], len(ExportFormats()))
		for _, p := range got[i] {
			assert.False(t, seen[p], "%s handed to two exports", p)
			seen[p] = true
		}
	}
	assert.Len(t, dirNames(t, dir), len(ExportFormats())*n)
}

// Asserts that an export that cannot create its files says why, and that one whose every name
// is taken gives up with a message instead of overwriting.
func TestExportErrors(t *testing.T) {
	job := Result{Meta: source.Meta{Scenario: "x", Strategy: "naive", Seed: 1}}
	missing := filepath.Join(t.TempDir(), "gone")
	_, err := Export(job, missing)
	require.Error(t, err)
	assert.Equal(t, "export "+filepath.Join(missing, "cortex-x-naive-seed1.csv")+": no such file or directory", err.Error())

	dir := t.TempDir()
	base := filepath.Join(dir, "cortex-x-naive-seed1")
	require.NoError(t, os.WriteFile(base+".csv", nil, 0o600))
	for i := 2; i <= maxExportNames; i++ {
		require.NoError(t, os.WriteFile(base+"-"+strconv.Itoa(i)+".json", nil, 0o600))
	}
	_, err = Export(job, dir)
	require.Error(t, err)
	assert.Equal(t, "export "+base+": 1000 names taken (cortex-x-naive-seed1 to cortex-x-naive-seed1-1000), not overwriting any: move them away or set another directory", err.Error())
	assert.Len(t, dirNames(t, dir), maxExportNames, "nothing created, nothing removed")
}
