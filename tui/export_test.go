package tui

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
)

// exportOnce presses e on m and delivers the export's result, returning the footer's status.
func exportOnce(t *testing.T, m *Model) string {
	t.Helper()
	_, cmd := m.Update(keyMsg("e"))
	require.NotNil(t, cmd)
	m.Update(cmd())
	return m.footer.status
}

// Asserts that `e` never replaces a file: a second and a third export of the same run go to
// -2 and -3 (the same suffix for the .csv and .json of a pair), the footer names the files
// written, and the earlier files keep their content.
func TestExportNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: dir})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 10)

	assert.Equal(t, "exported to "+dir+": cortex-fake-storm-cortex-seed7.csv + .json", exportOnce(t, m))
	first, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7.csv"))
	require.NoError(t, err)
	advanceFrames(m, 10)
	assert.Equal(t, "exported to "+dir+": cortex-fake-storm-cortex-seed7-2.csv + .json", exportOnce(t, m))
	assert.Equal(t, "exported to "+dir+": cortex-fake-storm-cortex-seed7-3.csv + .json", exportOnce(t, m))

	again, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7.csv"))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(again), "the first export is untouched")
	later, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7-2.csv"))
	require.NoError(t, err)
	assert.Greater(t, len(later), len(first), "the second export has the later rows")
	assert.ElementsMatch(t, []string{
		"cortex-fake-storm-cortex-seed7.csv", "cortex-fake-storm-cortex-seed7.json",
		"cortex-fake-storm-cortex-seed7-2.csv", "cortex-fake-storm-cortex-seed7-2.json",
		"cortex-fake-storm-cortex-seed7-3.csv", "cortex-fake-storm-cortex-seed7-3.json",
	}, names(t, dir), "no temporary file is left behind")
}

// names lists the files of dir.
func names(t *testing.T, dir string) []string {
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

// Asserts that a pair takes the first suffix free for both of its files: an existing .json
// alone (or .csv alone) moves the pair on, and is left as it was.
func TestExportPairMovesOnWhenEitherExists(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "cortex-x-naive-seed1")
	for path, text := range map[string]string{base + ".json": "mine", base + "-2.csv": "mine too"} {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	}
	job := report.Result{Meta: source.Meta{Scenario: "x", Strategy: "naive", Seed: 1}}
	paths, err := writeExport(job, dir)
	require.NoError(t, err)
	assert.Equal(t, []string{base + "-3.csv", base + "-3.json"}, paths)
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
	job := report.Result{Meta: source.Meta{Scenario: "x", Strategy: "naive", Seed: 1}}
	var wg sync.WaitGroup
	got := make([][]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = writeExport(job, dir)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i])
		require.Len(t, got[i], 2)
		for _, p := range got[i] {
			assert.False(t, seen[p], "%s handed to two exports", p)
			seen[p] = true
		}
	}
	assert.Len(t, names(t, dir), 2*n)
}

// Asserts that an export that cannot create its files says why, and that one whose every name
// is taken gives up with a message instead of overwriting.
func TestExportErrors(t *testing.T) {
	job := report.Result{Meta: source.Meta{Scenario: "x", Strategy: "naive", Seed: 1}}
	missing := filepath.Join(t.TempDir(), "gone")
	_, err := writeExport(job, missing)
	require.Error(t, err)
	assert.Equal(t, "export "+filepath.Join(missing, "cortex-x-naive-seed1.csv")+": no such file or directory", err.Error())

	dir := t.TempDir()
	base := filepath.Join(dir, "cortex-x-naive-seed1")
	require.NoError(t, os.WriteFile(base+".csv", nil, 0o600))
	for i := 2; i <= maxExportNames; i++ {
		require.NoError(t, os.WriteFile(base+"-"+strconv.Itoa(i)+".json", nil, 0o600))
	}
	_, err = writeExport(job, dir)
	require.Error(t, err)
	assert.Equal(t, "export "+base+": 1000 names taken (cortex-x-naive-seed1 to cortex-x-naive-seed1-1000), not overwriting any: move them away or set another directory", err.Error())
	assert.Len(t, names(t, dir), maxExportNames, "nothing created, nothing removed")
}

// Asserts that the export writes every format of report.ExportFormats (each one with an
// extension in report.ResultFormats), each file what that format's writer prints for the run.
func TestExportWritesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	ff := &fakeFactory{}
	scn := fakeScenario()
	m := New(Options{Keys: testKeys(), Factory: ff.build, Scenario: &scn, ExportDir: dir})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	advanceFrames(m, 10)
	exportOnce(t, m)
	formats := report.ExportFormats()
	require.NotEmpty(t, formats)
	for _, f := range formats {
		got, err := os.ReadFile(filepath.Join(dir, "cortex-fake-storm-cortex-seed7"+f.Ext))
		require.NoError(t, err, "the %s file", f.Name)
		assert.NotEmpty(t, got, f.Name)
	}
	assert.Len(t, names(t, dir), len(formats), "one file per format")
}
