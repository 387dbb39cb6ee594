package tui

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/export"
)

// demoScenario is a short scenario for recordings: two classes, a service near its capacity.
const demoScenario = `name = "demo"
summary = "a rehearsal"
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
`

// jsonOf is a result as the export and --headless write it in JSON.
func jsonOf(t *testing.T, r report.Result) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, report.WriteJSON(&b, r.Meta, r.Timeline, r.Summary))
	return b.String()
}

// tuned is an engine file's configuration: no retry after the original, a smaller bucket.
var tuned = func() *engine.Config {
	c := engine.DefaultConfig()
	c.MaxRetryAttempts, c.TokenBucketCapacity = 0, 50
	return &c
}()

// simOracle is the oracle's bound as the command gives it to the dashboard (Options.Oracle)
// and run --headless prints it: none for a scenario with controls.
func simOracle(scn scenarios.Scenario, seed int64) (*report.Oracle, error) {
	b, err := sim.Oracle(scn, seed)
	if errors.Is(err, sim.ErrControlled) || errors.Is(err, sim.ErrClosedLoop) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return report.NewOracle(b.Rate(), b.PriorityRates()), nil
}

// headlessOf is what run --headless --format json prints of a recording: the run of its
// strategy and seed with the oracle's bound.
func headlessOf(t *testing.T, scn scenarios.Scenario) string {
	t.Helper()
	replay, err := sim.New(scn, scn.Strategy, scn.Seed)
	require.NoError(t, err)
	res := report.Run(replay)
	res.Summary.Oracle, err = simOracle(scn, scn.Seed)
	require.NoError(t, err)
	return jsonOf(t, res)
}

// Asserts that a run played with the dashboard's keys (a fault injected and cleared, a
// strategy switch, a weight, every fault cleared, a class's share and priority), or with none
// pressed, or on an engine of its own (--engine FILE, which the recording embeds), recorded with the record key, replays headless to the bytes of the recorded run's
// own export (the oracle's bound included: a run with no control has one, a run with controls
// none), and that the record key says where it wrote and never replaces a file.
func TestRecordReplaysTheRun(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	for _, c := range []struct {
		name     string
		keys     []string // "" lets three frames run
		controls string
		oracle   bool
		engine   *engine.Config // the engine cortex runs (--engine FILE): nil for the defaults
	}{
		{"nine controls", []string{"1", "", "s", "", "1", "]", "", "}", "+", "", "2", "", "right", "s", "", "0"}, "recorded 9 controls to ", false, nil},
		{"no control", nil, "recorded no control to ", true, nil},
		{"a tuned engine", []string{"1", "", "", "1"}, "recorded 2 controls to ", false, tuned},
	} {
		t.Run(c.name, func(t *testing.T) {
			scn, err := scenarios.Parse("demo.toml", []byte(demoScenario))
			require.NoError(t, err)
			dir := t.TempDir()
			factory := SourceFactory(sim.NewSource)
			if c.engine != nil {
				factory = func(scn scenarios.Scenario, strategy string, seed int64) (source.Source, error) {
					return sim.NewSourceWith(scn, strategy, seed, sim.Options{Engine: c.engine, EngineName: "tuned.toml"})
				}
			}
			m := New(Options{Keys: keymap.Default(), Factory: factory, Scenario: &scn, ExportDir: dir, Oracle: simOracle})
			m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
			defer m.ctl.closeAll()
			for _, k := range c.keys {
				if k == "" {
					fastForward(m, 3)
					continue
				}
				m.Update(keyMsg(k))
			}
			for frames := 0; frames < 1000 && !m.done(); frames++ {
				fastForward(m, 1)
			}
			require.True(t, m.done())
			exportOnce(t, m)
			files, err := filepath.Glob(filepath.Join(dir, "*.json"))
			require.NoError(t, err)
			require.Len(t, files, 1, "the export's JSON file")
			data, err := os.ReadFile(files[0])
			require.NoError(t, err)
			exported := string(data)
			assert.Equal(t, c.oracle, !strings.Contains(exported, `"oracle":null`), "the export's oracle bound")

			cmd := m.record()
			require.NotNil(t, cmd)
			msg, ok := cmd().(export.RecordedMsg)
			require.True(t, ok)
			require.NoError(t, msg.Err)
			m.Update(msg)
			assert.Equal(t, filepath.Join(dir, "cortex-demo-cortex-seed1.toml"), msg.Path)
			assert.Contains(t, m.footer.Status(), c.controls+msg.Path)

			back, err := scenarios.ParseFile(msg.Path)
			require.NoError(t, err)
			require.Len(t, back.Controls, msg.Controls)
			assert.Equal(t, exported, headlessOf(t, back), "the replay's export is the recorded run's, byte for byte")
			if c.engine != nil {
				require.NotNil(t, back.Engine, "the recording carries the engine")
				assert.Equal(t, *c.engine, *back.Engine)
				assert.Equal(t, "tuned.toml", back.EngineName)
				assert.Contains(t, exported, `"engine":"tuned.toml"`)
				back.Engine = nil
				assert.NotEqual(t, exported, headlessOf(t, back), "the default engine plays another run")
			} else {
				assert.Nil(t, back.Engine)
			}

			again, ok := m.record()().(export.RecordedMsg)
			require.True(t, ok)
			require.NoError(t, again.Err)
			assert.Equal(t, filepath.Join(dir, "cortex-demo-cortex-seed1-2.toml"), again.Path, "a second recording takes a new name")
		})
	}
}

// Asserts that Options.Record names the file, which the record key replaces and the end of the
// dashboard writes, and that a served dashboard records nothing.
func TestRecordOption(t *testing.T) {
	scn, err := scenarios.Parse("demo.toml", []byte(demoScenario))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "demo.toml")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, Scenario: &scn, Record: path})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	defer m.ctl.closeAll()
	m.Update(keyMsg("3"))
	fastForward(m, 2)
	require.NoError(t, m.recordOnQuit())
	back, err := scenarios.ParseFile(path)
	require.NoError(t, err)
	require.Len(t, back.Controls, 1)
	assert.Equal(t, scenarios.ControlInject, back.Controls[0].Control)

	m.opts.NoExport = true
	assert.Nil(t, m.record())
	assert.Contains(t, m.footer.Status(), "recording is off here")
}

// Asserts that the summary's baselines of a replayed demo each run their own strategy
// throughout: the recording's strategy switch (to naive at 5 s) is the presenter's, not the
// scenario's, so the "none" column never reads "none+naive"; its faults stay (the baselines
// play the injected throttle: their runs differ from the scenario without it).
func TestBaselinesKeepTheirStrategy(t *testing.T) {
	// Drives the dashboard through Update on the test's goroutine, its commands run in line (the
	// dashboard starts no goroutine): nothing for the race detector to check; make test's second
	// pass runs it without.
	racedetect.SkipWholeRuns(t)
	scn, err := scenarios.Parse("demo.toml", []byte(demoScenario+`
[[control]]
at = "3s"
do = "inject"
kind = "throttle"

[[control]]
at = "5s"
do = "strategy"
strategy = "naive"
`))
	require.NoError(t, err)
	m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, Scenario: &scn})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	defer m.ctl.closeAll()
	for frames := 0; frames < 1000 && !m.done(); frames++ {
		fastForward(m, 1)
	}
	require.True(t, m.done())
	require.Equal(t, screenSummary, m.screen)
	m.fr.baseline = nil
	cmd := m.startBaselines()
	require.NotNil(t, cmd)
	m.Update(cmd())
	sums, line := m.fr.baseline.Columns()
	require.NotEmpty(t, sums)
	for _, s := range sums {
		assert.NotContains(t, s.Strategy, "+", "a baseline runs one strategy: %s", s.Strategy)
	}
	assert.Contains(t, line, "each on its own strategy throughout")
	plain := scn
	plain.Controls = nil
	s, err := sim.New(plain, "none", scn.Seed)
	require.NoError(t, err)
	assert.NotEqual(t, report.Run(s).Summary.SuccessRate, sums[0].SuccessRate, "the baseline plays the recording's throttle")
}
