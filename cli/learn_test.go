package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// configHome points os.UserConfigDir at a fresh directory and returns where the progress file goes.
func configHome(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv("AppData", dir)
	return filepath.Join(dir, "cortex-tui", "progress.json")
}

// TestLearnList asserts that `learn` lists every lesson in order, marks the completed ones from
// the progress file, and reports a broken progress file on stderr without failing.
func TestLearnList(t *testing.T) {
	path := configHome(t)
	code, out, errOut := execute("learn")
	require.Equal(t, 0, code, errOut)
	for i, l := range scenarios.Lessons() {
		assert.Contains(t, out, l.Name, "lesson %d listed", i+1)
	}
	assert.NotRegexp(t, `✓ \d`, out, "nothing completed yet")

	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(`{"done": {"metastable": "2026-12-01T09:00:00Z"}}`), 0o600))
	code, out, _ = execute("learn")
	require.Equal(t, 0, code)
	assert.Regexp(t, `✓ 3\s+metastable`, out, "the completed lesson is marked")

	require.NoError(t, os.WriteFile(path, []byte("garbage"), 0o600))
	code, out, errOut = execute("learn")
	assert.Equal(t, 0, code, "a broken progress file is not fatal")
	assert.Contains(t, errOut, "is not a progress file")
	assert.Contains(t, out, "retry-storm")
}

// TestLearnCheck asserts that `learn NAME --check` plays the lesson headless and says when each
// step was completed, and that an unknown name or a broken file is refused clearly.
func TestLearnCheck(t *testing.T) {
	configHome(t)
	code, out, errOut := execute("learn", "retry-storm", "--check")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "step 1 done at t=")
	assert.Contains(t, out, "step 3 done at t=")
	assert.Contains(t, out, "retry-storm: every step completed")

	code, _, errOut = execute("learn", "retry-strom")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown lesson "retry-strom"; valid names: retry-storm,`)

	bad := write(t, "bad.toml", "name = \"x\"\ntitle = \"X\"\nscenario = \"metastable\"\n\n[[step]]\ntext = \"t\"\nhint = \"h\"\ngoal = [{ metric = \"queu\", op = \">\", value = 1 }]\n")
	code, _, errOut = execute("learn", "--file", bad, "--check")
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(errOut, "cortex-tui: "+bad+`:8: step[1].goal[1].metric: unknown metric "queu" (did you mean "queue"?)`), errOut)

	code, _, errOut = execute("learn", "metastable")
	assert.Equal(t, 2, code, "no terminal: the dashboard is refused")
	assert.Contains(t, errOut, "cortex-tui learn metastable --check")
}

// TestValidateLesson asserts that validate recognises a lesson file, says ok for a valid one
// (every built-in lesson) and lists a broken one's problems as file:line: field: message.
func TestValidateLesson(t *testing.T) {
	var files []string
	for name, data := range scenarios.LessonFiles() {
		files = append(files, write(t, filepath.Base(name), string(data)))
	}
	code, out, errOut := execute(append([]string{"validate"}, files...)...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, len(files), strings.Count(out, ": ok (lesson "), out)

	own := write(t, "own.toml", "name = \"x\"\ntitle = \"X\"\nscenario = \"black-friday\"\n\n[[control]]\nat = \"20s\"\ndo = \"inject\"\nkind = \"outage\"\n\n[[step]]\ntext = \"t\"\nhint = \"h\"\ngoal = [{ metric = \"service\", op = \"==\", value = \"DOWN\" }]\n")
	code, out, errOut = execute("validate", own)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, own+": ok (lesson x on black-friday, 1 step, 1 control)\n", out, "a lesson's own controls are counted")
	code, out, errOut = execute("learn", "--file", own, "--check")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "step 1 done at t=20.1s: t", "the lesson's outage completes its step at its time")

	bad := write(t, "bad.toml", "name = \"x\"\ntitle = \"X\"\nscenario = \"black-friday\"\nstrategy = \"naiv\"\n\n[[step]]\ntext = \"t\"\nhint = \"h\"\ngoal = [{ metric = \"service\", op = \">\", value = \"UP\" }]\n")
	code, _, errOut = execute("validate", bad)
	assert.Equal(t, 1, code)
	assert.Equal(t, bad+`:4: strategy: unknown strategy "naiv" (did you mean "naive"?); valid: `+strings.Join(strategy.Names(), ", ")+"\n"+
		bad+`:9: step[1].goal[1].op: must be one of == != for service, got ">"`+"\n"+
		"cortex-tui: 1 of 1 file(s) invalid\n", errOut)
}
