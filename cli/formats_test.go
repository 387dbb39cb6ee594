package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// TestFormatHelp asserts how a --format flag's help is derived from a format table: every
// name, its note in brackets, the first format as the terminal's default.
func TestFormatHelp(t *testing.T) {
	assert.Equal(t, "table, json or csv (default table on a terminal, json otherwise)", formatHelp(headlessFormats))
	assert.Equal(t, "table, markdown, matrix (one row per scenario, one column per strategy: "+report.MatrixLegend+
		") or json (default table on a terminal, json otherwise)", formatHelp(benchFormats))
}

// TestPickFormat asserts that --format picks a format of the table whatever its case and
// spaces, defaults to json when the output is not a terminal, and refuses an unknown name with
// a usage error listing the table.
func TestPickFormat(t *testing.T) {
	var out bytes.Buffer
	f, err := pickFormat(" CSV ", &out, headlessFormats)
	require.NoError(t, err)
	assert.Equal(t, "csv", f.name)
	b, err := pickFormat("", &out, benchFormats)
	require.NoError(t, err)
	assert.Equal(t, pipeFormat, b.name)
	_, err = pickFormat("xml", &out, headlessFormats)
	var ee *exitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.code)
	assert.Equal(t, `invalid --format "xml" (valid: table, json, csv)`, err.Error())
}

// TestEveryFormatWrites asserts that every format of run --headless and bench prints something
// for a short run, and that the commands' --format help names each of them.
func TestEveryFormatWrites(t *testing.T) {
	scn, err := scenarios.Lookup("metastable")
	require.NoError(t, err)
	scn.Duration, scn.Drain, scn.Faults, scn.Notes = 5*time.Second, 0, nil, nil
	res, err := simulate(scn, "naive", 1)
	require.NoError(t, err)
	_, runHelp, _ := executeHelp(t, "run")
	for _, f := range headlessFormats {
		var b bytes.Buffer
		require.NoError(t, f.write(&b, res), f.name)
		assert.NotEmpty(t, b.String(), f.name)
		assert.Contains(t, runHelp, f.name)
	}
	_, benchHelp, _ := executeHelp(t, "bench")
	for _, cells := range []bool{false, true} {
		for _, f := range benchFormats {
			var b bytes.Buffer
			require.NoError(t, f.write(&b, benchResult{runs: []report.Summary{res.Summary, res.Summary}, cells: cells}), f.name)
			assert.NotEmpty(t, b.String(), f.name)
			assert.Contains(t, benchHelp, f.name)
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
