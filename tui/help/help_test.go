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

// Asserts that the keys page fits a 100x30 window (the help's 100x29 above the footer) without
// scrolling, the closing line shown, by stacking each column's groups and leaving out the blank
// lines it does not have room for; and that a window the page cannot fit even so keeps them
// and scrolls.
func TestHelpFitsWithoutScrolling(t *testing.T) {
	tests := []struct {
		w, h   int
		scroll bool
	}{
		{100, 29, false},
		{140, 39, false},
		{100, 20, true},
	}
	for _, tc := range tests {
		p := New(common.DefaultStyles(), keymap.Default())
		p.SetSize(tc.w, tc.h)
		v := ansi.Strip(p.View())
		title := strings.SplitN(v, "\n", 2)[0]
		if tc.scroll {
			assert.Contains(t, title, "scroll", "%dx%d", tc.w, tc.h)
			continue
		}
		assert.NotContains(t, title, "scroll", "%dx%d", tc.w, tc.h)
		assert.Contains(t, v, "Press ? or esc to close", "%dx%d", tc.w, tc.h)
	}
	assert.Equal(t, "a\n\nb\n\nc", squeeze([]string{"a", "b", "c"}, 5), "room for both blank lines")
	assert.Equal(t, "a\n\nb\nc", squeeze([]string{"a", "b", "c"}, 4), "the last blank line goes first")
	assert.Equal(t, "a\n\nb\n\nc", squeeze([]string{"a", "b", "c"}, 2), "too tall anyway: scrolls with them")
}
