// Package strategymenu is the dashboard's strategy menu, a component of its own: every retry
// strategy with what it does, the run's own marked, the highlighted one with a marker that
// reads without colour, its keys from the key map (up and down move, select switches, back
// closes) and its styles from tui/common. The dashboard opens it on the run's strategy, routes
// the keys to it while it is open, and switches the run to the strategy chosen.
package strategymenu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model is the strategy menu: open or closed, the strategy highlighted (an index of
// strategy.Names()) and the run's own. It redraws itself when it is shown, moves or resizes;
// its View is that cached drawing. It is used from the Bubble Tea goroutine only.
type Model struct {
	common.Base
	keys    keymap.KeyMap
	open    bool
	sel     int    // the strategy highlighted, an index of strategy.Names()
	current string // the run's strategy, marked (now)
	chosen  string // the strategy the last select chose, until Chosen reads it
}

// New returns a closed menu drawn with st, whose keys are keys'.
func New(st common.Styles, keys keymap.KeyMap) *Model {
	return &Model{Base: common.Base{St: st}, keys: keys}
}

// Open opens the menu on current, the run's strategy, highlighted.
func (p *Model) Open(current string) {
	p.open, p.current, p.chosen = true, current, ""
	p.sel = max(slices.Index(strategy.Names(), current), 0)
	p.render()
}

// Opened reports whether the menu is open.
func (p *Model) Opened() bool { return p.open }

// Chosen returns the strategy the last select chose, once, and "" after that or for none.
func (p *Model) Chosen() string {
	c := p.chosen
	p.chosen = ""
	return c
}

// Show marks current as the run's strategy and redraws the menu.
func (p *Model) Show(current string) {
	p.current = current
	p.render()
}

// SetSize sets the menu's outer size in cells and redraws it.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	p.render()
}

// Update handles the menu's keys: up and down move the highlight (wrapping), select closes the
// menu with the highlighted strategy chosen (Chosen), back or the menu's own key close it.
// Other messages change nothing.
func (p *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	names := strategy.Names()
	switch {
	case key.Matches(km, p.keys.ClassUp):
		p.sel = (p.sel + len(names) - 1) % len(names)
	case key.Matches(km, p.keys.ClassDown):
		p.sel = (p.sel + 1) % len(names)
	case key.Matches(km, p.keys.Select):
		p.open, p.chosen = false, names[p.sel]
	case key.Matches(km, p.keys.Back, p.keys.StrategyMenu):
		p.open = false
	}
	p.render()
	return p, nil
}

// render draws the menu into its cached view; closed, without a highlight.
func (p *Model) render() {
	sel := -1
	if p.open {
		sel = p.sel
	}
	iw, _ := common.Inner(p.W, p.H)
	lines := []string{p.St.Muted.Render(fmt.Sprintf("%s/%s choose · %s switch from now on · %s back",
		p.keys.ClassUp.Help().Key, p.keys.ClassDown.Help().Key, p.keys.Select.Help().Key, p.keys.Back.Help().Key)), ""}
	for i, name := range strategy.Names() {
		mark, now := "  ", ""
		if i == sel {
			mark = "▸ "
		}
		if name == p.current {
			now = "(now)"
		}
		line := ansi.Truncate(fmt.Sprintf("%s%-15s %-5s %s", mark, name, now, strategy.Describe(name)), iw, "…")
		if i == sel {
			line = p.St.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	p.Rendered = common.Box(p.St, "Strategy · every client switches from now on", strings.Join(lines, "\n"), p.W, p.H)
}
