package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
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

// Asserts that a run played with the dashboard's keys (a fault injected and cleared, a
// strategy switch, a weight, every fault cleared, a class's share and priority), recorded with the record key,
// replays headless to the bytes of the recorded run's own export, and that the record key
// says where it wrote and never replaces a file.
func TestRecordReplaysTheRun(t *testing.T) {
	scn, err := scenarios.Parse("demo.toml", []byte(demoScenario))
	require.NoError(t, err)
	dir := t.TempDir()
	m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, Scenario: &scn, ExportDir: dir})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	defer m.ctl.closeAll()
	for _, k := range []string{"1", "", "s", "", "1", "]", "", "}", "+", "", "2", "", "right", "s", "", "0"} {
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
	exported := m.results()[0]

	cmd := m.record()
	require.NotNil(t, cmd)
	msg, ok := cmd().(recordedMsg)
	require.True(t, ok)
	require.NoError(t, msg.err)
	m.Update(msg)
	assert.Equal(t, filepath.Join(dir, "cortex-demo-cortex-seed1.toml"), msg.path)
	assert.Contains(t, m.footer.status, "recorded 9 controls to "+msg.path)

	back, err := scenarios.ParseFile(msg.path)
	require.NoError(t, err)
	require.Len(t, back.Controls, msg.controls)
	replay, err := sim.New(back, back.Strategy, back.Seed)
	require.NoError(t, err)
	assert.Equal(t, jsonOf(t, exported), jsonOf(t, report.Run(replay)), "the replay's export is the recorded run's, byte for byte")

	again, ok := m.record()().(recordedMsg)
	require.True(t, ok)
	require.NoError(t, again.err)
	assert.Equal(t, filepath.Join(dir, "cortex-demo-cortex-seed1-2.toml"), again.path, "a second recording takes a new name")
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
	assert.Contains(t, m.footer.status, "recording is off here")
}
