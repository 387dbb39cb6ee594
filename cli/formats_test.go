package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

// TestFormatHelp asserts how a --format flag's help is derived from a format table: every
// name, its note in brackets, the first format as the terminal's default.
func TestFormatHelp(t *testing.T) {
	table := []report.Format[int]{{Name: "table"}, {Name: "matrix", Note: "one row per scenario"}, {Name: "json"}}
	assert.Equal(t, "table, matrix (one row per scenario) or json (default table on a terminal, json otherwise)", formatHelp(table))
	assert.Equal(t, "json (default json on a terminal, json otherwise)", formatHelp(table[2:]))
}

// TestPickFormat asserts that --format picks a format of the table whatever its case and
// spaces, defaults to json when the output is not a terminal, and refuses an unknown name with
// a usage error listing the table.
func TestPickFormat(t *testing.T) {
	var out bytes.Buffer
	f, err := pickFormat(" CSV ", &out, headlessFormats)
	require.NoError(t, err)
	assert.Equal(t, "csv", f.Name)
	b, err := pickFormat("", &out, benchFormats)
	require.NoError(t, err)
	assert.Equal(t, pipeFormat, b.Name)
	_, err = pickFormat("xml", &out, headlessFormats)
	var ee *exitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.code)
	names := make([]string, len(headlessFormats))
	for i, f := range headlessFormats {
		names[i] = f.Name
	}
	assert.Equal(t, `invalid --format "xml" (valid: `+strings.Join(names, ", ")+")", err.Error())
}

// TestEveryFormatWrites asserts that every format of run --headless and bench prints something
// for a short run, that the commands' --format help is the one formatHelp derives from their
// table, and that json is one of them (the output when not on a terminal).
func TestEveryFormatWrites(t *testing.T) {
	scn, err := scenarios.Lookup("metastable")
	require.NoError(t, err)
	scn.Duration, scn.Drain, scn.Faults, scn.Notes = 5*time.Second, 0, nil, nil
	res, err := simulate(scn, "naive", 1, sim.Options{})
	require.NoError(t, err)
	_, runHelp, _ := executeHelp(t, "run")
	assert.Contains(t, runHelp, "headless output: "+formatHelp(headlessFormats))
	_, err = pickFormat(pipeFormat, io.Discard, headlessFormats)
	require.NoError(t, err)
	for _, f := range headlessFormats {
		var b bytes.Buffer
		require.NoError(t, f.Write(&b, res), f.Name)
		assert.NotEmpty(t, b.String(), f.Name)
		assert.Contains(t, runHelp, f.Name)
	}
	_, benchHelp, _ := executeHelp(t, "bench")
	assert.Contains(t, strings.Join(strings.Fields(benchHelp), " "), "output: "+formatHelp(benchFormats))
	_, err = pickFormat(pipeFormat, io.Discard, benchFormats)
	require.NoError(t, err)
	for _, cells := range []bool{false, true} {
		for _, f := range benchFormats {
			var b bytes.Buffer
			require.NoError(t, f.Write(&b, benchResult{runs: []report.Summary{res.Summary, res.Summary}, cells: cells}), f.Name)
			assert.NotEmpty(t, b.String(), f.Name)
			assert.Contains(t, benchHelp, f.Name)
		}
	}
}

// executeHelp returns the --help of a command.
func executeHelp(t *testing.T, command string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute([]string{command, "--help"}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	return code, out.String(), errOut.String()
}
