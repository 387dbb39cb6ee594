// Package stats is the key figures of one run, a component of its own, over each column of
// compare mode: strategy and state badge, success, amplification and its peak, service state,
// crashes and retries, in shorter words and counts in thousands when the column is narrow.
package stats

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// View is what the box shows of a run: its strategy's label, its latest CORTEX view (nil for
// none: no badge), its totals so far, its peak amplification (0 before any original) and its
// service's state.
type View struct {
	Label   string
	Cortex  *source.CortexView
	Totals  report.Totals
	Peak    float64
	Service source.ServiceState
}

// Model is the figures box. It is used from the Bubble Tea goroutine only.
type Model struct{ common.Base }

// New returns an empty figures box drawn with st.
func New(st common.Styles) *Model { return &Model{Base: common.Base{St: st}} }

// Show redraws the box from v.
func (p *Model) Show(v View) { p.Rendered = common.Box(p.St, "", p.numbers(v), p.W, p.H) }

// Hide draws the box empty (no run on its side).
func (p *Model) Hide() { p.Rendered = common.Box(p.St, "", "", p.W, p.H) }

// numbers is the key figures of v: success, amplification, service state, crashes.
func (p *Model) numbers(v View) string {
	st, t := p.St, v.Totals
	badge := ""
	if v.Cortex != nil {
		badge = "  " + st.StateBadge(v.Cortex.State)
	}
	peak := ""
	if v.Peak > 0 { // the summary's figure so far
		peak = " (peak " + common.FmtPeak(v.Peak) + ")"
	}
	w, _ := common.Inner(p.W, p.H)
	success := st.Bold.Render(fmt.Sprintf("%5.1f%%", 100*t.SuccessRate()))
	service := st.Service(v.Service)
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
	return st.Title.Render(v.Label) + badge + "\n" + strings.Join(lines, "\n")
}
