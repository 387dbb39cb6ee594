package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/engine"
)

// decisionOrder lists the actions most telling first, so a short panel clips the rare ones.
var decisionOrder = []engine.Action{engine.Retry, engine.Reject, engine.CircuitOpen, engine.MaxRetriesExceeded, engine.NotRetryable}

// decisionBand is the band colour of each action: retry green, reject red, circuit orange.
var decisionBand = map[engine.Action]engine.State{
	engine.Retry: engine.Healthy, engine.Reject: engine.Emergency, engine.CircuitOpen: engine.Critical,
	engine.MaxRetriesExceeded: engine.Degraded, engine.NotRetryable: engine.Degraded,
}

// decisionsPanel counts the retry decisions per action, this tick and since the start.
type decisionsPanel struct{ base }

// newDecisions returns an empty decisions panel.
func newDecisions(st Styles) *decisionsPanel { return &decisionsPanel{base{st: st}} }

// Update redraws the panel on a full redraw.
func (p *decisionsPanel) Update(msg tea.Msg) (*decisionsPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		title := "Decisions"
		if len(f.f.runs) > 0 {
			title = fitTitle(p.w, "Decisions · last "+fmtTick(f.f.runs[0].meta.Tick)+" tick · total", "Decisions · tick · total")
		}
		p.view = box(p.st, title, p.body(f.f), p.w, p.h)
	}
	return p, nil
}

func (p *decisionsPanel) body(f *frame) string {
	st := p.st
	if len(f.runs) == 0 {
		return ""
	}
	h := f.runs[0].hist
	iw, _ := inner(p.w, p.h)
	nameW := min(max(iw-16, 8), 20)
	var lines []string
	for _, a := range decisionOrder {
		name := a.String()
		if len(name) > nameW && a == engine.MaxRetriesExceeded {
			name = "MAX_RETRIES"
		}
		lines = append(lines, st.Band[decisionBand[a]].Render(fmt.Sprintf("%-*.*s", nameW, nameW, name))+
			fmt.Sprintf(" %6d %8d", h.last.Counts.Decisions[a], h.totals().Decisions[a]))
	}
	t := h.totals()
	lines = append(lines, st.Muted.Render(fmt.Sprintf("shed %d · budget %d · not sent %d", t.Shed, t.BudgetRejected, t.LocalRejects)))
	return strings.Join(lines, "\n")
}
