package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
)

// Asserts that a key file cannot take quitting away: with quit = ["f20"] (a key many keyboards
// lack), ctrl+c still quits, on the dashboard and in the picker, and the footer's help says so.
func TestCtrlCAlwaysQuits(t *testing.T) {
	km, err := keymap.Parse("keys.toml", []byte(`quit = ["f20"]`))
	require.NoError(t, err)
	for _, onPicker := range []bool{false, true} {
		ff := &fakeFactory{}
		scn := fakeScenario()
		opts := Options{Keys: km, Factory: ff.build, ExportDir: t.TempDir()}
		if !onPicker {
			opts.Scenario = &scn
		}
		m := New(opts)
		m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
		assert.Contains(t, m.View(), "f20/ctrl+c", "the help shows ctrl+c")
		_, cmd := m.Update(keyMsg("ctrl+c"))
		require.NotNil(t, cmd, "picker: %v", onPicker)
		assert.Equal(t, tea.QuitMsg{}, cmd(), "picker: %v", onPicker)
	}
}
