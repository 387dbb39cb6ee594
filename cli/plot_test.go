package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that run --headless --plot draws the run's charts with the strategies of --plot-with
// beside its own (each switched by the scenario's controls as the run is), prints the run's result as without it, and that a bad picture name, a
// --plot-with without --plot, an unknown strategy and --plot without --headless are usage
// errors naming the flag, with no file written.
func TestHeadlessPlot(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rehearsal.toml")
	require.NoError(t, os.WriteFile(file, []byte(controlledScenario), 0o644))
	svg := filepath.Join(dir, "out.svg")
	code, out, errOut := execute("run", "--scenario-file", file, "--headless", "--plot", svg, "--plot-with", "naive,backoff,cortex", "--format", "json")
	require.Equal(t, 0, code, errOut)
	_, plain, _ := execute("run", "--scenario-file", file, "--headless", "--format", "json")
	assert.Equal(t, plain, out, "the printed result is the run's own")
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	for _, want := range []string{"rehearsal, seed 1: traffic against capacity", "cortex+naive attempts", "naive attempts", "backoff+naive attempts", "priority 9"} {
		assert.Contains(t, string(data), want)
	}

	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--headless", "--plot", filepath.Join(dir, "out.gif")}, "--plot " + filepath.Join(dir, "out.gif") + `: a picture is .svg or .png, not ".gif"`},
		{[]string{"--headless", "--plot-with", "naive"}, "--plot-with draws beside --plot: give --plot FILE.svg or FILE.png too"},
		{[]string{"--headless", "--plot", filepath.Join(dir, "x.png"), "--plot-with", "naiv"}, `--plot-with: unknown strategy "naiv"`},
		{[]string{"--plot", filepath.Join(dir, "x.png")}, "--plot draws a headless run: add --headless"},
	} {
		code, _, errOut := execute(append([]string{"run", "--scenario-file", file}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errOut, c.err)
	}
	_, err = os.Stat(filepath.Join(dir, "x.png"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
