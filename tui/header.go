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

// Update redraws the header on a full redraw, when the speed or pause changed and when the
// class's roster did (the teacher's header counts the students following).
func (p *header) Update(msg tea.Msg) (*header, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedPlay|changedRoster) {
		p.Rendered = p.render(f.f)
	}
	return p, nil
}

// classParts are the header's speed, state and class parts in a class: a student following
// sees the class's speed and pauses, and each side what it is (the teacher, following, a copy).
func (p *header) classParts(f *frame, c *classState, speed, state string) (string, string, string) {
	st := p.St
	switch {
	case c.teacher:
		following := 0
		for _, mb := range c.roster {
			if mb.State == MemberFollowing {
				following++
			}
		}
		return speed, state, st.Accent.Render(fmt.Sprintf("teacher · %d following", following))
	case c.forked:
		return speed, state, st.Warn.Render("your copy from " + common.FmtClock(c.forkedAt))
	}
	if f.runs[0].hist.Last.Done {
		return speed, state, st.Accent.Render("following")
	}
	speed = "x" + common.FmtSpeed(c.play.Speed)
	switch {
	case c.play.Away:
		state = st.Warn.Render("|| teacher away")
	case c.play.Paused:
		state = st.Warn.Render("|| paused by teacher")
	}
	return speed, state, st.Accent.Render("following")
}

func (p *header) render(f *frame) string {
	st := p.St
	if len(f.runs) == 0 {
		head := st.Bold.Render(" cortex-tui")
		if f.class != nil && !f.class.teacher {
			head += st.Muted.Render(" │ ") + st.Accent.Render("class: waiting for the teacher to open a scenario")
		}
		return common.Fit(head, p.W, p.H)
	}
	r := f.runs[0]
	right := ""
	if cv := r.hist.Last.Cortex; cv != nil {
		right = st.StateBadge(cv.State)
	}
	room := p.W - ansi.StringWidth(right) - 1
	// The fullest wording that fits: then the faults' values go, the total time, the speed,
	// the words of the state (its glyph stays); names (scenario, strategy, faults) stay last.
	var left string
	for detail := headerFull; detail >= headerLeast; detail-- {
		if left = p.line(f, detail); ansi.StringWidth(left) <= room {
			break
		}
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

// How much the header says, from all of it to the least; each step drops one more detail.
const (
	headerLeast       = iota // names and the state's glyph
	headerNoSpeed            // ... and the speed
	headerNoTotal            // ... and the run's total time
	headerNoFaultVals        // ... and the faults' names only, without their values
	headerFull               // everything
)

// line is the header's left part at a level of detail.
func (p *header) line(f *frame, detail int) string {
	st := p.St
	r := f.runs[0]
	sep := st.Muted.Render(" │ ")
	glyph, word, style := "▶", "running", st.Accent
	switch {
	case r.hist.Last.Done:
		glyph, word, style = "■", "finished", st.Muted
	case f.paused:
		glyph, word, style = "||", "paused", st.Warn
	}
	state := style.Render(glyph + " " + word)
	if detail <= headerLeast {
		state = style.Render(glyph)
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
	var class string
	if c := f.class; c != nil {
		speed, state, class = p.classParts(f, c, speed, state)
	}
	clock := "t " + common.FmtClock(r.hist.Last.T)
	if detail >= headerFull || detail == headerNoFaultVals {
		clock += " / " + common.FmtDur(r.meta.Total)
	}
	parts := []string{st.Bold.Render(" " + r.meta.Scenario), clock}
	if detail >= headerNoTotal || r.meta.Live {
		parts = append(parts, speed)
	}
	parts = append(parts, strat, state)
	if class != "" {
		parts = append(parts, class)
	}
	if fs := r.hist.Last.Faults; len(fs) > 0 && !r.hist.Last.Done {
		labels := make([]string, len(fs))
		for i, f := range fs {
			labels[i] = f.Kind.Label(f.Value)
			if detail < headerFull {
				labels[i] = string(f.Kind)
			}
		}
		slices.Sort(labels) // a stable order, whatever the source's
		labels = slices.Compact(labels)
		parts = append(parts, st.Warn.Render("fault: "+strings.Join(labels, ", ")))
	}
	return strings.Join(parts, sep)
}
