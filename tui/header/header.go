// Package header is the dashboard's top line, a component of its own: scenario, virtual time
// and total, speed, strategy (both in compare mode), paused or running, a live run's
// refusals at its in-flight cap, the faults on, a class's part, and the CORTEX state badge on
// the right; in a narrow window the fullest
// wording that fits. The root model hands it what the runs show (View); it caches the line.
package header

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// View is what the header shows of the runs.
type View struct {
	Scenario   string   // the scenario's name ("" with no run)
	Strategies []string // the runs' strategy labels, the left one first; none: no run
	T, Total   time.Duration
	Speed      float64 // virtual seconds per wall second
	Done       bool    // the first run is over
	Paused     bool
	Slowed     bool // the last frame ran out of time
	Live       bool // live traffic: no speed
	// Capped is how many originals live mode has refused so far at its bound on requests
	// alive at once (--max-inflight: Counts.InFlightCapRefused); shown while above 0.
	Capped int
	Cortex *source.CortexView // the first run's latest, for the state badge; nil: none
	Faults []source.ActiveFault
	Class  *Class // the dashboard's part in a class; nil: none
}

// Class is the header's part of a class: a student following sees the class's speed and
// pauses, and each side what it is (the teacher, following, a copy).
type Class struct {
	Teacher   bool
	Following int           // the teacher's: how many students follow
	Forked    bool          // a student on a copy of their own
	ForkedAt  time.Duration // the class run's time when it was forked
	Speed     float64       // the class's speed
	Paused    bool          // paused by the teacher
	Away      bool          // the teacher is away
}

// Model is the header: its line drawn from the last View. It is used from the Bubble Tea
// goroutine only.
type Model struct{ common.Base }

// New returns an empty header drawn with st.
func New(st common.Styles) *Model { return &Model{common.Base{St: st}} }

// Show redraws the header from v.
func (p *Model) Show(v View) { p.Rendered = p.render(v) }

// classParts are the header's speed, state and class parts in a class.
func (p *Model) classParts(v View, speed, state string) (string, string, string) {
	st, c := p.St, v.Class
	switch {
	case c.Teacher:
		return speed, state, st.Accent.Render(fmt.Sprintf("teacher · %d following", c.Following))
	case c.Forked:
		return speed, state, st.Warn.Render("your copy from " + common.FmtClock(c.ForkedAt))
	}
	if v.Done {
		return speed, state, st.Accent.Render("following")
	}
	speed = "x" + common.FmtSpeed(c.Speed)
	switch {
	case c.Away:
		state = st.Warn.Render("|| teacher away")
	case c.Paused:
		state = st.Warn.Render("|| paused by teacher")
	}
	return speed, state, st.Accent.Render("following")
}

func (p *Model) render(v View) string {
	st := p.St
	if len(v.Strategies) == 0 {
		head := st.Bold.Render(" cortex-tui")
		if v.Class != nil && !v.Class.Teacher {
			head += st.Muted.Render(" │ ") + st.Accent.Render("class: waiting for the teacher to open a scenario")
		}
		return common.Fit(head, p.W, p.H)
	}
	right := ""
	if v.Cortex != nil {
		right = st.StateBadge(v.Cortex.State)
	}
	room := p.W - ansi.StringWidth(right) - 1
	// The fullest wording that fits: then the faults' values go, the total time, the speed,
	// the words of the state (its glyph stays); names (scenario, strategy, faults) stay last.
	var left string
	for detail := headerFull; detail >= headerLeast; detail-- {
		if left = p.line(v, detail); ansi.StringWidth(left) <= room {
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
func (p *Model) line(v View, detail int) string {
	st := p.St
	sep := st.Muted.Render(" │ ")
	glyph, word, style := "▶", "running", st.Accent
	switch {
	case v.Done:
		glyph, word, style = "■", "finished", st.Muted
	case v.Paused:
		glyph, word, style = "||", "paused", st.Warn
	}
	state := style.Render(glyph + " " + word)
	if detail <= headerLeast {
		state = style.Render(glyph)
	}
	strat := st.Bold.Render(v.Strategies[0])
	if len(v.Strategies) > 1 {
		strat = st.Bold.Render(v.Strategies[0]) + st.Muted.Render(" vs ") + st.Bold.Render(v.Strategies[1])
	}
	speed := "x" + common.FmtSpeed(v.Speed)
	if v.Slowed && !v.Paused {
		speed += st.Warn.Render(" (slowed)") // the simulation cannot keep up with the speed
	}
	if v.Live {
		speed = st.Warn.Render("LIVE") // real traffic in real time: no speed
	}
	var class string
	if v.Class != nil {
		speed, state, class = p.classParts(v, speed, state)
	}
	clock := "t " + common.FmtClock(v.T)
	if detail >= headerFull || detail == headerNoFaultVals {
		clock += " / " + common.FmtDur(v.Total)
	}
	parts := []string{st.Bold.Render(" " + v.Scenario), clock}
	if detail >= headerNoTotal || v.Live {
		parts = append(parts, speed)
	}
	parts = append(parts, strat, state)
	if class != "" {
		parts = append(parts, class)
	}
	if v.Live && v.Capped > 0 {
		capped := fmt.Sprintf("%d refused at the in-flight cap", v.Capped)
		if detail < headerFull {
			capped = fmt.Sprintf("%d refused (cap)", v.Capped)
		}
		parts = append(parts, st.Warn.Render(capped))
	}
	if len(v.Faults) > 0 && !v.Done {
		labels := make([]string, len(v.Faults))
		for i, f := range v.Faults {
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
