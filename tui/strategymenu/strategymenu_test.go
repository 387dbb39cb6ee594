package strategymenu

import (
	"slices"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that the menu opens on the run's strategy, that up and down wrap around the catalog,
// that select closes it with the highlighted strategy chosen exactly once, and that back
// closes it with nothing chosen.
func TestMenuKeys(t *testing.T) {
	names := strategy.Names()
	start := slices.Index(names, "naive")
	require.GreaterOrEqual(t, start, 0)
	up, down := tea.KeyMsg{Type: tea.KeyUp}, tea.KeyMsg{Type: tea.KeyDown}
	tests := []struct {
		name string
		keys []tea.KeyMsg
		want string // chosen, "" for none
	}{
		{"select at once", []tea.KeyMsg{{Type: tea.KeyEnter}}, "naive"},
		{"down then select", []tea.KeyMsg{down, {Type: tea.KeyEnter}}, names[(start+1)%len(names)]},
		{"up past the top wraps", slices.Repeat([]tea.KeyMsg{up}, start+1), ""},
		{"back chooses nothing", []tea.KeyMsg{down, {Type: tea.KeyEsc}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(common.DefaultStyles(), keymap.Default())
			p.SetSize(80, 20)
			p.Open("naive")
			require.True(t, p.Opened())
			for _, k := range tc.keys {
				p, _ = p.Update(k)
			}
			assert.Equal(t, tc.want, p.Chosen())
			assert.Empty(t, p.Chosen(), "a choice is read once")
			if tc.name == "up past the top wraps" {
				assert.True(t, p.Opened())
				assert.Contains(t, p.View(), "▸ "+names[len(names)-1], "the highlight wrapped to the last strategy")
			} else {
				assert.False(t, p.Opened(), "select and back close the menu")
			}
		})
	}
}
