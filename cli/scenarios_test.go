package cli_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cli"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// execute runs the command line args through cli.Execute and returns the exit status and the
// captured standard output and error.
func execute(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = cli.Execute(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestScenariosList asserts that `scenarios` prints the whole catalog, one aligned line per
// scenario with its name, duration and summary, in catalog order.
func TestScenariosList(t *testing.T) {
	code, out, errOut := execute("scenarios")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	catalog := scenarios.Catalog()
	require.Len(t, lines, len(catalog))
	summaryCol := -1
	for i, s := range catalog {
		fields := strings.Fields(lines[i])
		require.GreaterOrEqual(t, len(fields), 3, lines[i])
		assert.Equal(t, s.Name, fields[0])
		assert.Equal(t, scenarios.FormatDuration(s.Duration), fields[1])
		col := strings.Index(lines[i], s.Summary)
		require.Positive(t, col, "summary on the line: %q", lines[i])
		if summaryCol < 0 {
			summaryCol = col
		}
		assert.Equal(t, summaryCol, col, "summaries aligned in one column")
	}
}

// TestScenariosShow asserts that `scenarios NAME` shows the scenario's summary, story words,
// classes, faults and every note.
func TestScenariosShow(t *testing.T) {
	s, err := scenarios.Lookup("spotty-network")
	require.NoError(t, err)
	code, out, errOut := execute("scenarios", s.Name)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, s.Name+": "+s.Summary)
	assert.Contains(t, out, strings.Fields(s.Story)[0])
	for _, c := range s.Classes {
		assert.Contains(t, out, c.Name)
	}
	for _, f := range s.Faults {
		assert.Contains(t, out, string(f.Kind))
	}
	for _, n := range s.Notes {
		assert.Contains(t, out, n.Text)
	}
	require.Positive(t, s.Service.CrashFactor)
	assert.Contains(t, out, "(a refusal counts "+strconv.FormatFloat(s.Service.RefusalCost, 'g', -1, 64)+")", "the crash rule's refusal cost")
	blocks := strings.Split(out, "\n\n")
	require.GreaterOrEqual(t, len(blocks), 2)
	story := blocks[1]
	assert.Equal(t, s.Story, strings.ReplaceAll(story, "\n", " "), "the second block is the whole story")
	for _, line := range strings.Split(story, "\n") {
		assert.LessOrEqual(t, len(line), 80, "story wrapped at 80 columns: %q", line)
	}
}

// TestScenariosTOML asserts that `scenarios NAME --toml` prints a file that parses back to the
// built-in scenario.
func TestScenariosTOML(t *testing.T) {
	for _, name := range []string{"black-friday", "closed-loop", "spotty-network"} {
		want, err := scenarios.Lookup(name)
		require.NoError(t, err)
		code, out, errOut := execute("scenarios", name, "--toml")
		require.Equal(t, 0, code, errOut)
		got, err := scenarios.Parse(name+".toml", []byte(out))
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.Contains(t, out, "\nrefusal_cost = "+strconv.FormatFloat(want.Service.RefusalCost, 'g', -1, 64)+"\n", "every key is explicit")
	}
}

// TestScenariosErrors asserts the exit status and message of each misuse of `scenarios`: 2, as
// for every usage error, including an unknown name (as `run --scenario` and `bench` do).
func TestScenariosErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		message string
	}{
		{"unknown name", []string{"scenarios", "nope"}, 2, `cortex-tui: unknown scenario "nope"; valid names: ` + strings.Join(scenarios.Names(), ", ") + "\n"},
		{"two names", []string{"scenarios", "a", "b"}, 2, "cortex-tui: scenarios takes at most one NAME, got 2 arguments\n"},
		{"--toml without a name", []string{"scenarios", "--toml"}, 2, "cortex-tui: --toml needs a scenario NAME\n"},
		{"unknown flag", []string{"scenarios", "--colour"}, 2, "cortex-tui: unknown flag: --colour\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := execute(tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Empty(t, out)
			assert.Equal(t, tt.message, errOut)
		})
	}
}

// TestScenarioCommandsHelp asserts that --help works on both commands and shows their usage.
func TestScenarioCommandsHelp(t *testing.T) {
	for _, cmd := range []string{"scenarios", "validate"} {
		code, out, errOut := execute(cmd, "--help")
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "Usage:")
		assert.Contains(t, out, "cortex-tui "+cmd)
	}
}

// TestUnknownCommand asserts that a command the program does not have is a usage error
// (status 2, like an unknown flag) that names it.
func TestUnknownCommand(t *testing.T) {
	code, out, errOut := execute("benchh")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `unknown command "benchh" for "cortex-tui"`)
}
