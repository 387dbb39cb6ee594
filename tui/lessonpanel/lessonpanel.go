// Package lessonpanel is the dashboard's lesson panel, a component of its own: the current step
// of the lesson followed over a run (package lesson's Tracker), its goals with their values now
// and the hint, with the keys that act on it named from the key map.
package lessonpanel

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model shows a lesson's current step, its goals with their values now, and the hint. It is
// used from the Bubble Tea goroutine only.
type Model struct {
	common.Base
	keys keymap.KeyMap
}

// New returns an empty lesson panel drawn with st, naming the keys of keys.
func New(st common.Styles, keys keymap.KeyMap) *Model {
	return &Model{Base: common.Base{St: st}, keys: keys}
}

// Update does nothing: the panel draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Show draws the step tr (the lesson followed over a run of strategy) is at, with its hint
// when it is due or showHint asks for it; once the lesson is complete, the next lesson's title
// (next, "" after the last) and the key that opens it. A nil tr draws a blank panel.
func (p *Model) Show(tr *lesson.Tracker, strategy string, showHint bool, next string) {
	if p.W <= 0 || p.H <= 0 {
		p.Rendered = ""
		return
	}
	if tr == nil {
		p.Rendered = common.Blank(p.W, p.H)
		return
	}
	st := tr.Status(strategy)
	l := tr.Lesson()
	title := common.FitTitle(p.W, fmt.Sprintf("Lesson · %s · step %d/%d", l.Title, min(st.Step+1, st.Steps), st.Steps), fmt.Sprintf("Lesson · step %d/%d", min(st.Step+1, st.Steps), st.Steps))
	iw, ih := common.Inner(p.W, p.H)
	p.Rendered = common.Box(p.St, title, p.body(st, tr, showHint, next, max(iw, 1), max(ih, 1)), p.W, p.H)
}

// body is the step's text, its goals and the hint (or the key that shows it).
func (p *Model) body(st lesson.Status, tr *lesson.Tracker, showHint bool, next string, w, h int) string {
	s := p.St
	k := p.keys
	if st.Done {
		if next == "" {
			return common.Wrap(s.Bold.Render("Lesson complete. ")+s.Muted.Render("That was the last lesson: ")+s.Muted.Render(fmt.Sprintf("%s picks a scenario to explore · %s quit", common.KeyName(k.Load), common.KeyName(k.Quit))), w)
		}
		return common.Wrap(s.Bold.Render("Lesson complete. ")+s.Accent.Render(fmt.Sprintf("Next: %s (%s opens it, %s starts it)", next, common.KeyName(k.Load), common.KeyName(k.Select)))+
			s.Muted.Render(fmt.Sprintf(" · %s quit", common.KeyName(k.Quit))), w)
	}
	var goals []string
	for _, g := range st.Goals {
		mark, style := "✗", s.Muted
		switch {
		case g.Met:
			mark, style = "✓", s.Band[0]
		case g.Holding: // holds, not yet for its time: neither met nor failed
			mark, style = "…", s.Band[1]
		}
		now := " (now " + g.Value
		if g.Window > 0 { // not the chart's "now", its last whole second: say which
			now = fmt.Sprintf(" (last %.0fs %s", g.Window.Seconds(), g.Value)
		}
		if g.Holding {
			now += ", held " + common.FmtSecs(g.Held) + " of " + common.FmtSecs(g.For)
		}
		goals = append(goals, style.Render(mark+" "+g.Text)+s.Muted.Render(now+")"))
	}
	sep := s.Muted.Render(" · ")
	tail := packGoals(goals, sep, w) // every goal whole, on as many lines as they take
	switch {
	case st.Ended:
		tail = append(tail, s.Warn.Render(fmt.Sprintf("The run ended before this step: %s runs it again. Hint: %s", common.KeyName(k.Restart), stepHint(tr))))
	case st.Hint != "" || showHint:
		tail = append(tail, s.Accent.Render("Hint: "+stepHint(tr)))
	default: // the key that shows the hint, beside the goals when it fits, else on a line of its own if the text keeps one
		key := s.Muted.Render(fmt.Sprintf("%s shows a hint", common.KeyName(k.Hint)))
		last := len(tail) - 1
		if joined := tail[last] + sep + key; ansi.StringWidth(joined) <= w {
			tail[last] = joined
		} else if len(tail)+2 <= h {
			tail = append(tail, key)
		}
	}
	if len(tail) > h-1 { // the text keeps a line: the goals past the room are cut visibly
		tail = tail[:max(h-1, 1)]
		tail[len(tail)-1] = ansi.Truncate(tail[len(tail)-1], w-1, "") + "…"
	}
	for i, l := range tail { // a long hint (or goal) is cut visibly
		if ansi.StringWidth(l) > w {
			tail[i] = ansi.Truncate(l, w, "…")
		}
	}
	textH := max(h-len(tail), 1)
	lines := strings.Split(common.Wrap(st.Text, w), "\n")
	if len(lines) > textH { // too long for the room: say so rather than cut silently
		lines = lines[:textH]
		lines[textH-1] = common.FitLine(lines[textH-1], w-1) + "…"
	}
	return strings.Join(append(lines, tail...), "\n")
}

// packGoals lays the goals out on lines of at most w columns, joined by sep, each goal whole
// on the first line with room for it (so few lines as the room asks; a goal wider than w alone
// on its line, to be cut): a goal cut in the middle ("✗ t >=…") hid what a step asks for at
// 80x24.
func packGoals(goals []string, sep string, w int) []string {
	var lines []string
next:
	for _, g := range goals {
		for i, l := range lines {
			if ansi.StringWidth(l+sep+g) <= w {
				lines[i] += sep + g
				continue next
			}
		}
		lines = append(lines, g)
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	return lines
}

// stepHint is the current step's hint, whether due or asked for.
func stepHint(tr *lesson.Tracker) string {
	l := tr.Lesson()
	if i := tr.Step(); i < len(l.Steps) {
		return l.Steps[i].Hint
	}
	return ""
}
