package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/tui/common"
)

// header is the top line: scenario, virtual time and total, speed, strategy, paused or running,
// and the state badge on the right.
type header struct{ common.Base }

// newHeader returns an empty header.
func newHeader(st common.Styles) *header { return &header{common.Base{St: st}} }

// Update redraws the header on a full redraw and when the speed or pause changed.
func (p *header) Update(msg tea.Msg) (*header, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedPlay) {
		p.Rendered = p.render(f.f)
	}
	return p, nil
}

func (p *header) render(f *frame) string {
	st := p.St
	if len(f.runs) == 0 {
		return common.Fit(st.Bold.Render(" cortex-tui"), p.W, p.H)
	}
	r := f.runs[0]
	sep := st.Muted.Render(" │ ")
	state := st.Accent.Render("▶ running")
	switch {
	case r.hist.last.Done:
		state = st.Muted.Render("■ finished")
	case f.paused:
		state = st.Warn.Render("|| paused")
	}
	strat := st.Bold.Render(r.meta.StrategyLabel())
	if len(f.runs) > 1 {
		strat = st.Bold.Render(r.meta.StrategyLabel()) + st.Muted.Render(" vs ") + st.Bold.Render(f.runs[1].meta.StrategyLabel())
	}
	speed := "x" + common.FmtSpeed(f.speed)
	if f.slowed && !f.paused {
		speed += st.Warn.Render(" (slowed)") // the simulation cannot keep up with the speed
	}
	if r.meta.Live {
		speed = st.Warn.Render("LIVE") // real traffic in real time: no speed
	}
	parts := []string{
		st.Bold.Render(" " + r.meta.Scenario),
		fmt.Sprintf("t %s / %s", common.FmtClock(r.hist.last.T), common.FmtDur(r.meta.Total)),
		speed,
		strat,
		state,
	}
	if fs := r.hist.last.Faults; len(fs) > 0 && !r.hist.last.Done {
		labels := make([]string, len(fs))
		for i, f := range fs {
			labels[i] = f.Kind.Label(f.Value)
		}
		slices.Sort(labels) // a stable order, whatever the source's
		parts = append(parts, st.Warn.Render("fault: "+strings.Join(labels, ", ")))
	}
	left := strings.Join(parts, sep)
	right := ""
	if cv := r.hist.last.Cortex; cv != nil {
		right = st.StateBadge(cv.State)
	}
	gap := p.W - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		if p.W-ansi.StringWidth(right)-1 > 10 {
			left = ansi.Truncate(left, p.W-ansi.StringWidth(right)-1, "…")
			gap = 1
		} else {
			return common.Fit(right+" "+left, p.W, p.H)
		}
	}
	return common.Fit(left+strings.Repeat(" ", gap)+right, p.W, p.H)
}
