// Package roster is the dashboard's class roster, a component of its own: on the teacher's
// screen of a class served over SSH, who is connected and what each does (following the class
// run, on a copy of their own, waiting for a run), with the lessons each has completed.
package roster

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Member is one session of a class.
type Member struct {
	Name  string // the user name, inert (the server makes it so)
	State State  // what the session does
	Done  int    // lessons the learner has completed
}

// State is what a session of a class does.
type State int

// The states of a class's sessions.
const (
	Following State = iota // a student following the class run
	Forked                 // a student on a copy of their own
	Waiting                // a student connected before the teacher opened a run
	Teacher                // the teacher
)

// glyphs mark each State, so the roster reads without colour.
var glyphs = [...]string{Following: "●", Forked: "◐", Waiting: "○", Teacher: "★"}

// MaxLines is the most lines of names the roster shows; the rest are counted.
const MaxLines = 3

// Model shows a class's roster. It is used from the Bubble Tea goroutine only.
type Model struct{ common.Base }

// New returns an empty roster drawn with st.
func New(st common.Styles) *Model { return &Model{common.Base{St: st}} }

// Update does nothing: the roster draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Lines returns how many lines of names members take in a roster w cells wide (at least one).
func Lines(members []Member, w int) int {
	iw, _ := common.Inner(w, 3)
	per := max(iw/cellW(members), 1)
	return min(max((students(members)+per-1)/per, 1), MaxLines)
}

// Show draws members, students only (the teacher is the one looking), with the lessons there
// are in all.
func (p *Model) Show(members []Member, lessons int) {
	st := p.St
	var counts [len(glyphs)]int
	for _, m := range members {
		counts[m.State]++
	}
	n := students(members)
	title := fmt.Sprintf("Class · %d connected: %d following, %d forked", n, counts[Following], counts[Forked])
	if counts[Waiting] > 0 {
		title += fmt.Sprintf(", %d waiting", counts[Waiting])
	}
	iw, ih := common.Inner(p.W, p.H)
	if n == 0 {
		p.Rendered = common.Box(st, title, st.Muted.Render("no student connected yet"), p.W, p.H)
		return
	}
	w := cellW(members)
	per := max(iw/w, 1)
	room := per * max(ih, 1)
	if n > room {
		room-- // the last cell counts the rest
	}
	var cells []string
	for _, m := range members {
		if m.State == Teacher {
			continue
		}
		if len(cells) == room {
			cells = append(cells, st.Muted.Render(fmt.Sprintf("+%d more", n-room)))
			break
		}
		glyph := st.Accent.Render(glyphs[m.State])
		if m.State != Following {
			glyph = st.Warn.Render(glyphs[m.State])
		}
		cell := glyph + " " + ansi.Truncate(m.Name, w-9, "…") + " " + st.Muted.Render(fmt.Sprintf("%d/%d", m.Done, lessons))
		cells = append(cells, cell+strings.Repeat(" ", max(w-ansi.StringWidth(cell), 0)))
	}
	var lines []string
	for i := 0; i < len(cells); i += per {
		lines = append(lines, strings.Join(cells[i:min(i+per, len(cells))], ""))
	}
	p.Rendered = common.Box(st, title, strings.Join(lines, "\n"), p.W, p.H)
}

// cellW is the width of one member's cell: the longest name with its glyph and lessons.
func cellW(members []Member) int {
	w := 4
	for _, m := range members {
		w = max(w, ansi.StringWidth(m.Name))
	}
	return min(w, 20) + 9 // "● " + name + " 10/10" + a space
}

// students counts the members that are not the teacher.
func students(members []Member) int {
	n := 0
	for _, m := range members {
		if m.State != Teacher {
			n++
		}
	}
	return n
}
