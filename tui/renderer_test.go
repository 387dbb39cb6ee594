package tui

import (
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that dashboards drawn for different terminals run side by side in one process, each
// with the colours of its own renderer whatever lipgloss's default one says (Ascii in these
// tests): one for a true-colour terminal draws colours, one whose environment says NO_COLOR
// draws none, on every screen (picker, dashboard, help), while both are driven at once (-race
// watches the shared state); with no colour the two draw the same text.
func TestRenderersPerDashboard(t *testing.T) {
	colour := lipgloss.NewRenderer(io.Discard)
	colour.SetColorProfile(termenv.TrueColor)
	colour.SetHasDarkBackground(true)
	plain := lipgloss.NewRenderer(io.Discard, termenv.WithUnsafe(),
		termenv.WithEnvironment(testEnviron{"TERM=xterm-256color", "COLORTERM=truecolor", "NO_COLOR=1"}))
	require.Equal(t, termenv.Ascii, plain.ColorProfile(), "NO_COLOR in the renderer's environment means no colour")

	scn := fakeScenario()
	views := make([][]string, 2)
	var wg sync.WaitGroup
	for i, r := range []*lipgloss.Renderer{colour, plain} {
		wg.Go(func() {
			ff := &fakeFactory{}
			m := New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, Renderer: r, Scenarios: []scenarios.Scenario{scn}})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
			advanceFrames(m, 20)
			views[i] = append(views[i], m.View())
			m.Update(keyMsg("?"))
			views[i] = append(views[i], m.View())
			m.Update(keyMsg("?"))
			m.Update(keyMsg("l"))
			views[i] = append(views[i], m.View())
			m.Close()
		})
	}
	wg.Wait()
	for j, screen := range []string{"dashboard", "help", "picker"} {
		assert.Contains(t, views[0][j], "\x1b[38;2;", "the true-colour dashboard's %s has 24-bit colours", screen)
		assert.NotContains(t, views[1][j], "\x1b[", "the NO_COLOR dashboard's %s has no escape sequence", screen)
		assert.Equal(t, ansi.Strip(views[0][j]), views[1][j], "the same %s without its colours", screen)
	}
	assert.True(t, strings.Contains(views[1][2], scn.Name), "the picker offers Options.Scenarios")
}

// testEnviron is a terminal's environment for termenv, as an SSH session hands it over.
type testEnviron []string

func (e testEnviron) Environ() []string { return e }

func (e testEnviron) Getenv(k string) string {
	for _, kv := range e {
		if v, ok := strings.CutPrefix(kv, k+"="); ok {
			return v
		}
	}
	return ""
}

// Asserts that with NoExport the export key writes nothing and says why in the footer.
func TestNoExport(t *testing.T) {
	ff := &fakeFactory{}
	scn := fakeScenario()
	dir := t.TempDir()
	m := New(Options{Keys: keymap.Default(), Factory: ff.build, Scenario: &scn, ExportDir: dir, NoExport: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	advanceFrames(m, 5)
	_, cmd := m.Update(keyMsg("e"))
	assert.Nil(t, cmd, "no export command")
	assert.Contains(t, m.footer.Status(), "export is off")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
