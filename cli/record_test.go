package cli_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// controlledScenario is a short scenario whose timeline holds controls: a throttle injected and
// cleared, a strategy switch, a class's priority.
const controlledScenario = `name = "rehearsal"
summary = "a short demo with controls"
duration = "20s"
drain = "5s"

[[class]]
name = "payment"
priority = 9
rate = 60

[[class]]
name = "analytics"
priority = 1
rate = 60

[service]
workers = 12
service_time = "100ms"
queue_limit = 100

[[control]]
at = "3s"
do = "inject"
kind = "throttle"

[[control]]
at = "8s"
do = "strategy"
strategy = "naive"

[[control]]
at = "10s"
do = "class"
class = "analytics"
priority = 0

[[control]]
at = "14s"
do = "clear"
kind = "throttle"
`

// Asserts that run --headless --record writes the scenario as run (its strategy and seed
// with it) and that running the recording prints the same bytes without a flag, an engine
// file's too (embedded: the replay runs it with the file gone); that a run
// with controls names every strategy it used and has no oracle bound (the controls change what
// the bound is computed from); and that an unwritable --record is an error naming it.
func TestHeadlessRecordReplays(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rehearsal.toml")
	require.NoError(t, os.WriteFile(file, []byte(controlledScenario), 0o644))
	rec := filepath.Join(dir, "rec.toml")
	code, first, errOut := execute("run", "--scenario-file", file, "--headless", "--strategy", "cortex-article", "--seed", "4", "--record", rec, "--format", "json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, first, `"strategy":"cortex-article+naive"`)
	assert.Contains(t, first, `"oracle":null`)

	code, out, errOut := execute("validate", rec)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "rec.toml: ok (rehearsal, 20s, 0 faults, 4 controls; up to")

	code, again, errOut := execute("run", "--scenario-file", rec, "--headless", "--format", "json")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, first, again, "the recording replays the run byte for byte")

	eng := filepath.Join(dir, "tuned.toml")
	require.NoError(t, os.WriteFile(eng, []byte("[retry]\nmax_attempts = 0\n"), 0o644))
	code, tunedRun, errOut := execute("run", "--scenario-file", file, "--headless", "--seed", "4", "--engine", eng, "--record", rec, "--format", "json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, tunedRun, `"engine":"tuned.toml"`)
	require.NoError(t, os.Remove(eng), "the recording needs no other file")
	code, out, errOut = execute("validate", rec)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "4 controls, engine tuned.toml;", "the recording carries the engine")
	code, again, errOut = execute("run", "--scenario-file", rec, "--headless", "--format", "json")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, tunedRun, again, "the recording replays the run on its engine, byte for byte")

	code, _, errOut = execute("run", "--scenario-file", file, "--headless", "--record", filepath.Join(dir, "no", "such", "dir.toml"), "--format", "json")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--record "+filepath.Join(dir, "no", "such", "dir.toml"))
}

// Asserts that --start-at is checked before the terminal is touched: a duration outside the run,
// a word, or --headless are usage errors naming the flag; a time inside the run passes on to the
// dashboard (which then wants a terminal).
func TestStartAtFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--start-at", "5m"}, "--start-at: 5m is outside the run (3m30s of arrivals and drain: give 0s to 3m29.9s)"},
		{[]string{"--start-at", "-1s"}, "--start-at: -1s is outside the run"},
		{[]string{"--start-at", "soon"}, `--start-at: "soon" is not a duration (e.g. 55s, 1m30s)`},
		{[]string{"--start-at", "55s", "--headless"}, "--start-at opens the dashboard part way through"},
		{[]string{"--start-at", "55s"}, "the dashboard needs a terminal"},
		{[]string{"--present", "--headless"}, "--present opens the dashboard in presenter mode: headless, --plot draws"},
	} {
		code, _, errOut := execute(append([]string{"run", "--scenario", "black-friday"}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errOut, c.err, "%v", c.args)
	}
}

// Asserts that --present without the dashboard (live --headless, live --compare-sim) is a
// usage error that names what draws a headless run's charts, before any traffic is sent.
func TestPresentHeadless(t *testing.T) {
	for _, args := range [][]string{{"--headless"}, {"--compare-sim"}} {
		code, _, errOut := execute(append([]string{"live", "--scenario", "black-friday", "--present"}, args...)...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Contains(t, errOut, "--present opens the dashboard in presenter mode", "%v", args)
	}
}
