// Package summary is the dashboard's end-of-run room: the runs' figures as report.Recorder
// computes them (the same as the headless summary), one column per run and per baseline, the
// success of each priority with the classes that had it, and the keys that lead on.
package summary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cortex-tui/cortex-tui/source"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model is the end-of-run screen: the runs' numbers as report.Recorder computes them (the same
// as the headless summary), one column per run in compare mode, then the baselines beside a
// single run. It is used from the Bubble Tea goroutine only.
type Model struct {
	common.Base
	keys keymap.KeyMap
}

// New returns an empty summary screen drawn with st, naming the keys of keys.
func New(st common.Styles, keys keymap.KeyMap) *Model {
	return &Model{Base: common.Base{St: st}, keys: keys}
}

// Update does nothing: the screen draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Show draws the summaries of a run of meta's scenario and seed (one column each: the runs,
// then the baselines), the classes that had each priority (prioNames), and about, a line on the
// baselines ("" for none). With no summary it draws a blank screen.
func (p *Model) Show(meta source.Meta, sums []report.Summary, prioNames map[int][]string, about string) {
	if len(sums) == 0 {
		p.Rendered = common.Blank(p.W, p.H)
		return
	}
	iw, _ := common.Inner(p.W, p.H)
	if about != "" {
		about = p.St.Muted.Render(common.Wrap(about, max(iw, 1))) + "\n\n"
	}
	body := fmt.Sprintf("%s  %s\n\n%s\n\n%s%s", p.St.Bold.Render(meta.Scenario), p.St.Muted.Render(fmt.Sprintf("seed %d", meta.Seed)),
		p.table(sums, prioNames), about,
		p.St.Muted.Render(common.Wrap(hint(p.keys), max(iw, 1))))
	p.Rendered = common.Box(p.St, "Run summary", body, p.W, p.H)
}

// row is one line of the summary table: a label and a value per run (none for a heading).
type row struct {
	label string
	vals  []string
}

// table renders the runs' summaries as one table, a column per run right of the labels, so the
// numbers compare row by row: the strategy as the recorder names it ("cortex+naive" after a
// switch), each figure, and the success of each priority with the classes that had it.
func (p *Model) table(sums []report.Summary, prioNames map[int][]string) string {
	st := p.St
	each := func(label string, v func(report.Summary) string) row {
		r := row{label: label}
		for _, s := range sums {
			r.vals = append(r.vals, v(s))
		}
		return r
	}
	rows := []row{
		each("", func(s report.Summary) string { return ansi.Truncate(s.Strategy, maxStrategyLabel, "…") }),
		each("success rate", func(s report.Summary) string { return pct(s.SuccessRate) }),
		each("amplification", func(s report.Summary) string { return common.FmtAmp(s.Amplification) }),
		each("  peak over a second", func(s report.Summary) string { return common.FmtPeak(s.PeakAmplification) }),
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
	if slices.ContainsFunc(sums, func(s report.Summary) bool { return s.InFlightCapRefused > 0 }) {
		// Only a live run at its --max-inflight bound: new requests refused before any strategy saw
		// them, which the success rate counts as failures, so the room sees why.
		capped := each("refused at the in-flight cap", func(s report.Summary) string { return strconv.Itoa(s.InFlightCapRefused) })
		rows = slices.Insert(rows, slices.IndexFunc(rows, func(r row) bool { return r.label == "retries" }), capped)
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
		line := st.Muted.Render(common.FitLine(r.label, labelW)) // padded in cells: class names may be wide
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

// hint names the keys of the summary screen as bound.
func hint(k keymap.KeyMap) string {
	return fmt.Sprintf("%s back to the dashboard · %s run again · %s another scenario · %s export · %s quit",
		common.KeyName(k.Back), common.KeyName(k.Restart), common.KeyName(k.Load), common.KeyName(k.Export), common.KeyName(k.Quit))
}

// maxStrategyLabel is the widest strategy label of a summary column, in cells: a run switched
// through many strategies ("naive+backoff+...+cortex") is cut, so the columns beside it stay on
// screen.
const maxStrategyLabel = 24

// pct formats a ratio as a percentage with one decimal.
func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
