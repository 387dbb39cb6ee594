package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
)

// summaryPanel is the end-of-run screen: the run's numbers as report.Recorder computes them
// (the same as the headless summary), one column per run in compare mode.
type summaryPanel struct{ base }

// newSummary returns an empty summary screen.
func newSummary(st Styles) *summaryPanel { return &summaryPanel{base{st: st}} }

// Update redraws the summary on a frameMsg.
func (p *summaryPanel) Update(msg tea.Msg) (*summaryPanel, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok {
		return p, nil
	}
	if len(f.f.runs) == 0 {
		p.view = blank(p.w, p.h)
		return p, nil
	}
	cols := make([]string, len(f.f.runs))
	for i, r := range f.f.runs {
		cols[i] = p.column(r.rec.Summary(), r.prioNames)
		if i > 0 {
			cols[i] = "   " + strings.ReplaceAll(cols[i], "\n", "\n   ")
		}
	}
	m := f.f.runs[0].meta
	body := fmt.Sprintf("%s  %s\n\n%s\n\n%s", p.st.Bold.Render(m.Scenario), p.st.Muted.Render(fmt.Sprintf("seed %d", m.Seed)),
		side(cols...),
		p.st.Muted.Render(summaryHint(f.f.keyMap())))
	p.view = box(p.st, "Run summary", body, p.w, p.h)
	return p, nil
}

// column renders one run's summary: the strategy as the recorder names it ("cortex+naive" after
// a switch), and each priority with the classes that had it.
func (p *summaryPanel) column(s report.Summary, prioNames map[int][]string) string {
	st := p.st
	row := func(k, v string) string { return st.Muted.Render(fmt.Sprintf("%-24s", k)) + st.Bold.Render(v) }
	lines := []string{
		st.Title.Render(s.Strategy),
		row("success rate", pct(s.SuccessRate)),
		row("amplification", fmt.Sprintf("x%.2f (peak x%.1f)", s.Amplification, s.PeakAmplification)),
		row("retries", strconv.Itoa(s.Retries)),
		row("wasted retries", strconv.Itoa(s.WastedRetries)),
		row("recovery", report.RecoveryText(s.RecoverySeconds)),
		row("crashes", strconv.Itoa(s.Crashes)),
		st.Muted.Render("success by priority"),
	}
	prios := s.Priorities()
	for _, k := range prios {
		label := "  priority " + k
		if n, err := strconv.Atoi(k); err == nil && len(prioNames[n]) > 0 {
			label += " " + strings.Join(prioNames[n], ", ")
		}
		lines = append(lines, row(label, pct(s.PrioritySuccess[k])))
	}
	return strings.Join(lines, "\n")
}

// summaryHint names the keys of the summary screen as bound.
func summaryHint(k keymap.KeyMap) string {
	return fmt.Sprintf("%s back to the dashboard · %s run again · %s another scenario · %s export · %s quit",
		keyName(k.Back), keyName(k.Restart), keyName(k.Load), keyName(k.Export), keyName(k.Quit))
}

// pct formats a ratio as a percentage with one decimal.
func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
