package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/tui/common"
)

// statsPanel is the key figures of one run, over its column in compare mode: strategy and state
// badge, success, amplification and its peak, service state, crashes and retries.
type statsPanel struct {
	common.Base
	run int // which run of the frame (0 left, 1 right)
}

// newStats returns an empty figures box of run index run.
func newStats(st common.Styles, run int) *statsPanel {
	return &statsPanel{Base: common.Base{St: st}, run: run}
}

// Update redraws the box on a full redraw.
func (p *statsPanel) Update(msg tea.Msg) (*statsPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		p.Rendered = common.Box(p.St, "", p.numbers(f.f, p.run), p.W, p.H)
	}
	return p, nil
}

// numbers is the key figures of run i: success, amplification, service state, crashes.
func (p *statsPanel) numbers(f *frame, i int) string {
	st := p.St
	if i >= len(f.runs) {
		return ""
	}
	r := f.runs[i]
	t := r.hist.Totals()
	badge := ""
	if cv := r.hist.Last.Cortex; cv != nil {
		badge = "  " + st.StateBadge(cv.State)
	}
	peak := ""
	if p := r.rec.PeakAmplification(); p > 0 { // the summary's figure so far; 0 before any original
		peak = " (peak " + common.FmtPeak(p) + ")"
	}
	w, _ := common.Inner(p.W, p.H)
	success := st.Bold.Render(fmt.Sprintf("%5.1f%%", 100*t.SuccessRate()))
	service := st.Service(r.hist.Last.Service.State)
	wasted := fmt.Sprintf(" (%d wasted)", t.RetryFailures)
	lines := []string{
		fmt.Sprintf("%s %s   %s %s%s", st.Muted.Render("success"), success, st.Muted.Render("amplification"), common.FmtAmp(t.Amplification()), st.Muted.Render(peak)),
		fmt.Sprintf("%s %s   %s %d   %s %d%s", st.Muted.Render("service"), service, st.Muted.Render("crashes"), t.Crashes,
			st.Muted.Render("retries"), t.Retries, st.Muted.Render(wasted)),
	}
	if ansi.StringWidth(lines[0]) > w { // narrow: shorter words, counts in thousands
		lines[0] = fmt.Sprintf("%s %s · %s %s%s", st.Muted.Render("success"), success, st.Muted.Render("amp"), common.FmtAmp(t.Amplification()), st.Muted.Render(peak))
	}
	if ansi.StringWidth(lines[1]) > w {
		lines[1] = fmt.Sprintf("%s · %s %d · %s %s", service, st.Muted.Render("crashes"), t.Crashes,
			st.Muted.Render("retries"), common.FmtRate(float64(t.Retries)))
		if more := st.Muted.Render(fmt.Sprintf(" (%s wasted)", common.FmtRate(float64(t.RetryFailures)))); ansi.StringWidth(lines[1]+more) <= w {
			lines[1] += more
		}
	}
	return st.Title.Render(r.meta.StrategyLabel()) + badge + "\n" + strings.Join(lines, "\n")
}
