package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cli"
)

// executeBounded runs the command line args like execute, with stdin as standard input, and
// asserts that it allocated under 64 MB and took under a second (loosely: the machines running
// the tests are shared).
func executeBounded(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	code = cli.Execute(args, strings.NewReader(stdin), &out, &errOut)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated bytes")
	assert.Less(t, took, time.Second, "time")
	return code, out.String(), errOut.String()
}

// hostileScenario is a valid scenario's first lines: a hostile line added after them is line 4.
const hostileScenario = "name = \"hostile\"\nsummary = \"x\"\nduration = \"60s\"\n"

// writeHostile writes the hostile files that are too big to keep in testdata into dir and
// returns their paths by name.
func writeHostile(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"nested-10000.toml": hostileScenario + "x = " + strings.Repeat("{a=", 10000) + "1" + strings.Repeat("}", 10000) + "\n",
		"dotted-20000.toml": hostileScenario + strings.Repeat("a.", 19999) + "a = 1\n",
		"header-50000.toml": hostileScenario + "[" + strings.Repeat("a.", 49999) + "a]\n",
		"values-30000.toml": hostileScenario + "x = [" + strings.Repeat("1,", 30000) + "]\n",
	}
	paths := map[string]string{}
	for name, text := range files {
		paths[name] = filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(paths[name], []byte(text), 0o600))
	}
	huge := filepath.Join(dir, "huge.toml")
	f, err := os.Create(huge)
	require.NoError(t, err)
	_, err = f.WriteString("pause = [\"p\"]\n")
	require.NoError(t, err)
	require.NoError(t, f.Truncate(100<<20)) // 100 MB, the rest zero bytes
	require.NoError(t, f.Close())
	paths["huge.toml"] = huge
	return paths
}

// TestHostileScenarioFiles asserts that every command reading a scenario file (validate, run
// --scenario-file, bench --scenario-file, and validate - on the standard input) refuses the
// hostile corpus (testdata/hostile and the big files generated here) with the exact message:
// the file, the line and the limit, within the time and memory bound. Before the loader, the
// generated files took 2.5 to 5 GB and 13 to 25 s each.
func TestHostileScenarioFiles(t *testing.T) {
	big := writeHostile(t, t.TempDir())
	corpus := "testdata/hostile/"
	tests := []struct {
		path, want string // want: the message after "path" (":line: ..." or ": ...")
	}{
		{corpus + "nested-inline.toml", ":5: key nested deeper than 16 levels of tables (the limit for a scenario file)"},
		{corpus + "nested-arrays.toml", ":5: arrays and inline tables nested deeper than 32 (the limit for a scenario file)"},
		{corpus + "dotted-key.toml", ":5: dotted key with more than 16 parts (the limit for a scenario file)"},
		{corpus + "table-header.toml", ":14: table header with more than 16 parts (the limit for a scenario file)"},
		{big["nested-10000.toml"], ":4: key nested deeper than 16 levels of tables (the limit for a scenario file)"},
		{big["dotted-20000.toml"], ":4: dotted key with more than 16 parts (the limit for a scenario file)"},
		{big["header-50000.toml"], ":4: table header with more than 16 parts (the limit for a scenario file)"},
		{big["values-30000.toml"], ":4: more than 20000 keys and values (the limit for a scenario file)"},
		{big["huge.toml"], ": larger than 1 MiB (the limit for a scenario file)"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			msg := tt.path + tt.want
			code, out, errOut := executeBounded(t, "", "validate", tt.path)
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, msg+"\ncortex-tui: 1 of 1 file(s) invalid\n", errOut)

			code, out, errOut = executeBounded(t, "", "run", "--scenario-file", tt.path, "--headless")
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, "cortex-tui: "+msg+"\n", errOut)

			code, out, errOut = executeBounded(t, "", "bench", "--scenario-file", tt.path, "--strategy", "naive")
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, "cortex-tui: "+msg+"\n", errOut)

			if tt.path == big["huge.toml"] {
				return // the standard input gets its own test below
			}
			data, err := os.ReadFile(tt.path)
			require.NoError(t, err)
			code, out, errOut = executeBounded(t, string(data), "validate", "-")
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Equal(t, "-"+tt.want+"\ncortex-tui: 1 of 1 file(s) invalid\n", errOut)
		})
	}
	t.Run("2 MiB on the standard input", func(t *testing.T) {
		code, _, errOut := executeBounded(t, strings.Repeat("#", 2<<20), "validate", "-")
		assert.Equal(t, 1, code)
		assert.Equal(t, "-: larger than 1 MiB (the limit for a scenario file)\ncortex-tui: 1 of 1 file(s) invalid\n", errOut)
	})
	t.Run("brackets in strings are not structure", func(t *testing.T) {
		path := corpus + "brackets-in-strings.toml"
		code, out, errOut := executeBounded(t, "", "validate", path)
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, path+": ok (strings, 60s, 0 faults; up to 2792 attempts, 19 MB)\n", out)
	})
}

// TestHostileKeyFiles asserts that --keys refuses the hostile corpus with exit status 2 and the
// exact message, within the time and memory bound, on the picker, on run and on a headless run;
// a 100 MB key file is refused after reading 64 KiB (it used to load, taking 435 MB).
func TestHostileKeyFiles(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no default key file
	t.Setenv("HOME", t.TempDir())
	big := writeHostile(t, t.TempDir())
	tests := []struct {
		path, want string
	}{
		{"testdata/hostile/keys-nested.toml", ":3: arrays and inline tables nested deeper than 32 (the limit for a key file)"},
		{big["nested-10000.toml"], ":4: key nested deeper than 16 levels of tables (the limit for a key file)"},
		{big["dotted-20000.toml"], ":4: dotted key with more than 16 parts (the limit for a key file)"},
		{big["header-50000.toml"], ": larger than 64 KiB (the limit for a key file)"},
		{big["huge.toml"], ": larger than 64 KiB (the limit for a key file)"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			for _, args := range [][]string{
				{"--keys", tt.path},
				{"run", "--scenario", "black-friday", "--keys", tt.path},
				{"run", "--scenario", "black-friday", "--keys", tt.path, "--headless"},
			} {
				code, out, errOut := executeBounded(t, "", args...)
				assert.Equal(t, 2, code, args)
				assert.Empty(t, out, args)
				assert.Equal(t, "cortex-tui: bad key file: "+tt.path+tt.want+"\n", errOut, args)
			}
		})
	}
}
