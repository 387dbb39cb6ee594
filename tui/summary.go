package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
)

// summaryPanel is the end-of-run screen: the run's numbers as report.Recorder computes them
// (the same as the headless summary), one column per run in compare mode.
type summaryPanel struct{ base }

// newSummary returns an empty summary screen.
func newSummary(st Styles) *summaryPanel { return &summaryPanel{base{st: st}} }

// Update redraws the summary on a full redraw.
func (p *summaryPanel) Update(msg tea.Msg) (*summaryPanel, tea.Cmd) {
	f, ok := msg.(frameMsg)
	if !ok || !f.full() {
		return p, nil
	}
	if len(f.f.runs) == 0 {
		p.view = blank(p.w, p.h)
		return p, nil
	}
	sums := make([]report.Summary, len(f.f.runs))
	names := map[int][]string{}
	for i, r := range f.f.runs {
		sums[i] = r.rec.Summary()
		for prio, ns := range r.prioNames {
			for _, n := range ns {
				if !slices.Contains(names[prio], n) {
					names[prio] = append(names[prio], n)
				}
			}
		}
	}
	m := f.f.runs[0].meta
	iw, _ := inner(p.w, p.h)
	extra, about := baselineColumns(f.f)
	sums = append(sums, extra...)
	if about != "" {
		about = p.st.Muted.Render(wrap(about, max(iw, 1))) + "\n\n"
	}
	body := fmt.Sprintf("%s  %s\n\n%s\n\n%s%s", p.st.Bold.Render(m.Scenario), p.st.Muted.Render(fmt.Sprintf("seed %d", m.Seed)),
		p.table(sums, names), about,
		p.st.Muted.Render(wrap(summaryHint(f.f.keyMap()), max(iw, 1))))
	p.view = box(p.st, "Run summary", body, p.w, p.h)
	return p, nil
}

// summaryRow is one line of the summary table: a label and a value per run (none for a heading).
type summaryRow struct {
	label string
	vals  []string
}

// table renders the runs' summaries as one table, a column per run right of the labels, so the
// numbers compare row by row: the strategy as the recorder names it ("cortex+naive" after a
// switch), each figure, and the success of each priority with the classes that had it.
func (p *summaryPanel) table(sums []report.Summary, prioNames map[int][]string) string {
	st := p.st
	each := func(label string, v func(report.Summary) string) summaryRow {
		r := summaryRow{label: label}
		for _, s := range sums {
			r.vals = append(r.vals, v(s))
		}
		return r
	}
	rows := []summaryRow{
		each("", func(s report.Summary) string { return ansi.Truncate(s.Strategy, maxStrategyLabel, "…") }),
		each("success rate", func(s report.Summary) string { return pct(s.SuccessRate) }),
		each("amplification", func(s report.Summary) string { return fmt.Sprintf("x%.2f", s.Amplification) }),
		each("  peak over a second", func(s report.Summary) string { return fmt.Sprintf("x%.1f", s.PeakAmplification) }),
		each("retries", func(s report.Summary) string { return strconv.Itoa(s.Retries) }),
		each("wasted retries", func(s report.Summary) string { return strconv.Itoa(s.WastedRetries) }),
		each("recovery", func(s report.Summary) string { return report.RecoveryText(s.RecoverySeconds) }),
		each("crashes", func(s report.Summary) string { return strconv.Itoa(s.Crashes) }),
		{label: "success by priority"},
	}
	if slices.ContainsFunc(sums, func(s report.Summary) bool { return s.OriginalsShed > 0 }) {
		// Only when a run shed new requests (Admit): a row of zeros would take a line for nothing.
		shed := each("new requests shed", func(s report.Summary) string { return strconv.Itoa(s.OriginalsShed) })
		rows = slices.Insert(rows, 4, shed)
	}
	var prios []string
	for _, s := range sums {
		for _, k := range s.Priorities() {
			if !slices.Contains(prios, k) {
				prios = append(prios, k)
			}
		}
	}
	for _, k := range prios {
		label := "  priority " + k
		if n, err := strconv.Atoi(k); err == nil && len(prioNames[n]) > 0 {
			label += " " + strings.Join(prioNames[n], ", ")
		}
		rows = append(rows, each(label, func(s report.Summary) string {
			if v, ok := s.PrioritySuccess[k]; ok {
				return pct(v)
			}
			return "-"
		}))
	}
	labelW := 0
	colW := make([]int, len(sums))
	for _, r := range rows {
		if len(r.vals) > 0 {
			labelW = max(labelW, ansi.StringWidth(r.label))
		}
		for i, v := range r.vals {
			colW[i] = max(colW[i], ansi.StringWidth(v))
		}
	}
	lines := make([]string, len(rows))
	for j, r := range rows {
		if len(r.vals) == 0 {
			lines[j] = st.Muted.Render(r.label)
			continue
		}
		line := st.Muted.Render(fitLine(r.label, labelW)) // padded in cells: class names may be wide
		for i, v := range r.vals {
			style := st.Bold
			if j == 0 {
				style = st.Title
			}
			line += "   " + style.Render(fmt.Sprintf("%*s", colW[i], v))
		}
		lines[j] = line
	}
	return strings.Join(lines, "\n")
}

// summaryHint names the keys of the summary screen as bound.
func summaryHint(k keymap.KeyMap) string {
	return fmt.Sprintf("%s back to the dashboard · %s run again · %s another scenario · %s export · %s quit",
		keyName(k.Back), keyName(k.Restart), keyName(k.Load), keyName(k.Export), keyName(k.Quit))
}

// maxStrategyLabel is the widest strategy label of a summary column, in cells: a run switched
// through many strategies ("naive+backoff+...+cortex") is cut, so the columns beside it stay on
// screen.
const maxStrategyLabel = 24

// pct formats a ratio as a percentage with one decimal.
func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
