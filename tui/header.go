package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// header is the top line: scenario, virtual time and total, speed, strategy, paused or running,
// and the state badge on the right.
type header struct{ base }

// newHeader returns an empty header.
func newHeader(st Styles) *header { return &header{base{st: st}} }

// Update redraws the header on a full redraw and when the speed or pause changed.
func (p *header) Update(msg tea.Msg) (*header, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedPlay) {
		p.view = p.render(f.f)
	}
	return p, nil
}

func (p *header) render(f *frame) string {
	st := p.st
	if len(f.runs) == 0 {
		return fit(st.Bold.Render(" cortex-tui"), p.w, p.h)
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
	strat := st.Bold.Render(r.meta.Strategy)
	if len(f.runs) > 1 {
		strat = st.Bold.Render(r.meta.Strategy) + st.Muted.Render(" vs ") + st.Bold.Render(f.runs[1].meta.Strategy)
	}
	speed := "x" + fmtSpeed(f.speed)
	if f.slowed && !f.paused {
		speed += st.Warn.Render(" (slowed)") // the simulation cannot keep up with the speed
	}
	if r.meta.Live {
		speed = st.Warn.Render("LIVE") // real traffic in real time: no speed
	}
	parts := []string{
		st.Bold.Render(" " + r.meta.Scenario),
		fmt.Sprintf("t %s / %s", fmtClock(r.hist.last.T), fmtDur(r.meta.Total)),
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
		right = st.badge(cv.State)
	}
	gap := p.w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		if p.w-ansi.StringWidth(right)-1 > 10 {
			left = ansi.Truncate(left, p.w-ansi.StringWidth(right)-1, "…")
			gap = 1
		} else {
			return fit(right+" "+left, p.w, p.h)
		}
	}
	return fit(left+strings.Repeat(" ", gap)+right, p.w, p.h)
}

// fmtDur formats a virtual time: 42.3s, or 2m05s from 100 s on.
func fmtDur(d time.Duration) string {
	if d < 100*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// fmtClock formats the run's current time to the tenth of a second, 42.3s or 2m05.3s, so a
// step of one 100 ms tick ("." while paused) always changes the header.
func fmtClock(d time.Duration) string {
	if d < 100*time.Second {
		return fmtDur(d)
	}
	tenths := int64(d.Round(100*time.Millisecond) / (100 * time.Millisecond))
	return fmt.Sprintf("%dm%02d.%ds", tenths/600, tenths/10%60, tenths%10)
}

// fmtSpeed formats a speed factor: 0.25, 0.5, 1, 2 ... 64.
func fmtSpeed(s float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", s), ".0") }
