package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// strategyMenu is the open strategy menu: the strategy highlighted (an index of
// strategy.Names()).
type strategyMenu struct{ sel int }

// menuPanel draws the strategy menu: every strategy with what it does, the run's own marked,
// the highlighted one with a marker that reads without colour.
type menuPanel struct{ common.Base }

// newMenu returns the strategy menu's panel.
func newMenu(st common.Styles) *menuPanel { return &menuPanel{common.Base{St: st}} }

// Update redraws the menu on a redraw.
func (p *menuPanel) Update(msg tea.Msg) (*menuPanel, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok {
		return p, nil
	}
	sel := -1 // closed: drawn without a highlight (the layout shows it only open)
	if f.f.menu != nil {
		sel = f.f.menu.sel
	}
	current := ""
	if len(f.f.runs) > 0 {
		current = f.f.runs[len(f.f.runs)-1].meta.Strategy
	}
	iw, _ := common.Inner(p.W, p.H)
	keys := f.f.keyMap()
	lines := []string{p.St.Muted.Render(fmt.Sprintf("%s/%s choose · %s switch from now on · %s back",
		keys.ClassUp.Help().Key, keys.ClassDown.Help().Key, keys.Select.Help().Key, keys.Back.Help().Key)), ""}
	for i, name := range strategy.Names() {
		mark, now := "  ", ""
		if i == sel {
			mark = "▸ "
		}
		if name == current {
			now = "(now)"
		}
		line := ansi.Truncate(fmt.Sprintf("%s%-15s %-5s %s", mark, name, now, strategy.Describe(name)), iw, "…")
		if i == sel {
			line = p.St.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	p.Rendered = common.Box(p.St, "Strategy · every client switches from now on", strings.Join(lines, "\n"), p.W, p.H)
	return p, nil
}

// openMenu opens the strategy menu on the run's strategy (the right side in compare mode).
func (m *Model) openMenu() tea.Cmd {
	if len(m.fr.runs) == 0 || m.over() {
		return nil
	}
	cur := m.fr.runs[len(m.fr.runs)-1].meta.Strategy
	m.fr.menu = &strategyMenu{sel: max(slices.Index(strategy.Names(), cur), 0)}
	m.redraw()
	return nil
}

// onMenuKey moves in the menu, switches to the strategy chosen, or closes it.
func (m *Model) onMenuKey(msg tea.KeyMsg) tea.Cmd {
	names := strategy.Names()
	switch {
	case key.Matches(msg, m.keys.ClassUp):
		m.fr.menu.sel = (m.fr.menu.sel + len(names) - 1) % len(names)
	case key.Matches(msg, m.keys.ClassDown):
		m.fr.menu.sel = (m.fr.menu.sel + 1) % len(names)
	case key.Matches(msg, m.keys.Select):
		name := names[m.fr.menu.sel]
		m.fr.menu = nil
		if len(m.fr.runs) > 0 && name != m.fr.runs[len(m.fr.runs)-1].meta.Strategy && !m.over() {
			r := m.fr.runs[len(m.fr.runs)-1]
			m.ctl.whenIdle(func() {
				if slices.Contains(m.fr.runs, r) {
					if err := m.switchStrategy(r, name); err != nil {
						m.setStatus(fmt.Sprintf("strategy %s: %v", name, err), true)
					}
				}
			})
		}
	case key.Matches(msg, m.keys.Back, m.keys.StrategyMenu):
		m.fr.menu = nil
	}
	m.redraw()
	return nil
}
