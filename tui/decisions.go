package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/engine"
)

// decisionsPanel counts the retry decisions per action, this tick and since the start.
type decisionsPanel struct{ base }

// newDecisions returns an empty decisions panel.
func newDecisions(st Styles) *decisionsPanel { return &decisionsPanel{base{st: st}} }

// Update redraws the panel on a frameMsg.
func (p *decisionsPanel) Update(msg tea.Msg) (*decisionsPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok {
		p.view = box(p.st, "Decisions", p.body(f.f), p.w, p.h)
	}
	return p, nil
}

func (p *decisionsPanel) body(f *frame) string {
	st := p.st
	if len(f.runs) == 0 {
		return ""
	}
	h := f.runs[0].hist
	lines := []string{st.Muted.Render(fmt.Sprintf("%-20s %6s %9s", "action", "tick", "total"))}
	styles := []int{0, 3, 2, 1, 1} // band colour per action: retry green, reject red ...
	for i, a := range engine.Actions {
		lines = append(lines, st.Band[styles[i]].Render(fmt.Sprintf("%-20s", a))+
			fmt.Sprintf(" %6d %9d", h.last.Counts.Decisions[i], h.totals.Decisions[i]))
	}
	t := h.totals
	lines = append(lines, st.Muted.Render(fmt.Sprintf("shed %d · budget %d · local %d", t.Shed, t.BudgetRejected, h.last.Counts.LocalRejects)))
	return strings.Join(lines, "\n")
}
