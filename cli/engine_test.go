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
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
)

// TestEngineTOML asserts that engine --toml prints the defaults as a file that parses back to
// engine.DefaultConfig, and --article the article's parameters.
func TestEngineTOML(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want engine.Config
	}{
		{[]string{"engine", "--toml"}, engine.DefaultConfig()},
		{[]string{"engine", "--toml", "--article"}, engine.ArticleConfig()},
	} {
		code, out, errOut := execute(tc.args...)
		require.Equal(t, 0, code, errOut)
		got, err := engineconf.Parse("out.toml", []byte(out))
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%v", tc.args)
	}
}

// TestEngineFile asserts that engine --file shows a file's keys with those that differ from the
// defaults marked, reads the standard input for -, and refuses a bad file with every problem
// at once (exit status 2), its escapes made inert.
func TestEngineFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "cortex.toml")
	require.NoError(t, os.WriteFile(good, []byte("[budget]\ncapacity = 300\n"), 0o600))
	code, out, errOut := execute("engine", "--file", good)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^budget\.capacity +300 \* +500 `, out)
	assert.Regexp(t, `(?m)^budget\.reserve +0\.9 +0\.9 `, out, "an unchanged key is not marked")

	var stdout, stderr bytes.Buffer
	code = cli.Execute([]string{"engine", "--file", "-", "--toml"}, strings.NewReader("[retry]\nmax_attempts = 7\n"), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "max_attempts = 7 ")

	bad := filepath.Join(dir, "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("[budget]\ncapacty = 3\n\"\\u001b]0;owned\\u0007\" = 1\n[breaker]\nfailure_threshold = 2\n"), 0o600))
	code, out, errOut = execute("engine", "--file", bad)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, bad+":2: budget.capacty: unknown key (did you mean \"capacity\"?)")
	assert.NotContains(t, errOut, "\x1b", "the file's escape is made inert")

	code, _, errOut = execute("engine", "--file", bad[:len(bad)-8]+"nothere.toml")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "nothere.toml: cannot read: no such file or directory")
	code, _, errOut = execute("engine", "--file", good, "--article")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "not both")
}

// TestEngineDocs asserts that docs/engine.md holds the table engine --markdown prints, so that
// the defaults and ranges it documents are the program's (make engine-table regenerates it).
func TestEngineDocs(t *testing.T) {
	data, err := os.ReadFile("../docs/engine.md")
	require.NoError(t, err)
	doc := string(data)
	start := strings.Index(doc, "<!-- engine-keys:start -->\n")
	end := strings.Index(doc, "<!-- engine-keys:end -->")
	require.True(t, start >= 0 && end > start, "docs/engine.md has the engine-keys markers")
	code, out, errOut := execute("engine", "--markdown")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, doc[start+len("<!-- engine-keys:start -->\n"):end], "docs/engine.md's table of cortex.toml's keys is stale: run make engine-table")
	for _, p := range engineconf.Params {
		assert.Contains(t, out, "`"+p.Path()+"`")
	}
}
