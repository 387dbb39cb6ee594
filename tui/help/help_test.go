package help

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that a help page taller than the window says how many lines are above and below
// what shows, and that the counts follow the scrolling (the title said "(9 more lines)"
// whatever the position).
func TestHelpScrollCounts(t *testing.T) {
	keys := keymap.Default()
	p := New(common.DefaultStyles(), keys)
	p.SetSize(80, 20)
	p.Update(tea.KeyMsg{Type: tea.KeyTab}) // the glossary: taller than 20 lines
	title := func() string { return strings.SplitN(ansi.Strip(p.View()), "\n", 2)[0] }
	require.Contains(t, title(), "(0 lines above,")
	below := func() string {
		t := title()
		return t[strings.Index(t, "above, ")+len("above, "):]
	}
	first := below()
	p.Update(tea.KeyMsg{Type: tea.KeyDown})
	p.Update(tea.KeyMsg{Type: tea.KeyDown})
	assert.Contains(t, title(), "(2 lines above,")
	assert.NotEqual(t, first, below(), "fewer below")
	for range 500 {
		p.Update(tea.KeyMsg{Type: tea.KeyDown})
	}
	assert.Contains(t, title(), " 0 below)", "at the end")
}
