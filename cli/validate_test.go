package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cli"
)

// validScenario is a small valid scenario file with one fault.
const validScenario = `name = "mine"
summary = "my own"
duration = "60s"

[[class]]
name = "api"
priority = 5
rate = 10

[service]
workers = 2
service_time = "100ms"

[[fault]]
kind = "outage"
at = "10s"
duration = "5s"
`

// write creates a file named name with content in a fresh directory and returns its path.
func write(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// TestValidate asserts what `validate` prints and its exit status for valid, invalid and
// unreadable files: an ok line on stdout per valid file, every problem on stderr per invalid
// one, and status 1 if any file is invalid.
func TestValidate(t *testing.T) {
	good := write(t, "good.toml", validScenario)
	noFault := write(t, "nofault.toml", strings.Split(validScenario, "[[fault]]")[0])
	bad := write(t, "bad.toml", strings.Replace(strings.Replace(validScenario, "workers = 2", "workers = 0", 1), "rate = 10", "rate = -1", 1))
	syntax := write(t, "syntax.toml", "name = \"x\"\nsummary = = 1\n")
	missing := filepath.Join(t.TempDir(), "missing.toml")

	tests := []struct {
		name         string
		files        []string
		code         int
		stdout       string
		stderrPrefix string
	}{
		{
			name:   "one valid file",
			files:  []string{good},
			stdout: good + ": ok (mine, 60s, 1 fault; up to 2792 attempts, 19 MB)\n",
		},
		{
			name:   "two valid files",
			files:  []string{good, noFault},
			stdout: good + ": ok (mine, 60s, 1 fault; up to 2792 attempts, 19 MB)\n" + noFault + ": ok (mine, 60s, 0 faults; up to 2792 attempts, 19 MB)\n",
		},
		{
			name:   "an invalid file among valid ones",
			files:  []string{good, bad},
			code:   1,
			stdout: good + ": ok (mine, 60s, 1 fault; up to 2792 attempts, 19 MB)\n",
			stderrPrefix: bad + ":8: class[1].rate: must be a number >= 0, got -1\n" +
				bad + ":11: service.workers: must be between 1 and 100000, got 0\n" +
				"cortex-tui: 1 of 2 file(s) invalid\n",
		},
		{
			name:         "a syntax error shows the parser's context",
			files:        []string{syntax},
			code:         1,
			stderrPrefix: syntax + ":2: invalid TOML: ",
		},
		{
			name:         "a missing file",
			files:        []string{missing},
			code:         1,
			stderrPrefix: missing + ": cannot read: no such file or directory\ncortex-tui: 1 of 1 file(s) invalid\n",
		},
		{
			name:         "no file",
			code:         2,
			stderrPrefix: "cortex-tui: validate needs at least one FILE\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := execute(append([]string{"validate"}, tt.files...)...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Equal(t, tt.stdout, out)
			if tt.stderrPrefix == "" {
				assert.Empty(t, errOut)
			} else {
				assert.True(t, strings.HasPrefix(errOut, tt.stderrPrefix), "stderr:\n%s", errOut)
			}
		})
	}
}

// TestValidateBuiltinFiles asserts that `validate` accepts every built-in scenario file.
func TestValidateBuiltinFiles(t *testing.T) {
	files, err := filepath.Glob("../scenarios/builtin/*.toml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	code, out, errOut := execute(append([]string{"validate"}, files...)...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, len(files), strings.Count(out, ": ok ("))
}

// TestValidateStdin asserts that a FILE of "-" validates the standard input, so the output of
// `scenarios NAME --toml` can be piped in.
func TestValidateStdin(t *testing.T) {
	var out, errOut bytes.Buffer
	code := cli.Execute([]string{"validate", "-"}, strings.NewReader(validScenario), &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Equal(t, "-: ok (mine, 60s, 1 fault; up to 2792 attempts, 19 MB)\n", out.String())

	out.Reset()
	errOut.Reset()
	code = cli.Execute([]string{"validate", "-"}, strings.NewReader("name = 3\n"), &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), "-:1: name: must be a string, got the integer 3\n")
}
