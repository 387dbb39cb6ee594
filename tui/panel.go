package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// component is what every panel of the layout table is (soft-serve's common.Component is the
// model): it takes its outer size in cells, updates on a message and returns its view, exactly
// its size. On a frameMsg it redraws its cached view from the frame (a full redraw, or a partial
// change it shows: see frameMsg.shows); a panel with keys of its own (the help screen) handles
// them too. Update returns the panel's own type P, as glow's and bubbles' components do, so a
// panel used on its own (in a test) reads naturally; the layout table holds it through mount.
type component[P any] interface {
	SetSize(w, h int)
	Update(msg tea.Msg) (P, tea.Cmd)
	View() string
}

// panel is a component as the layout table holds it, its type erased by mount: the root model
// sizes, updates and draws every panel through this interface, with no switch over types.
type panel interface {
	SetSize(w, h int)
	Update(msg tea.Msg) tea.Cmd
	View() string
}

// mount returns p as a panel of the layout table. A type that lacks a method of component
// fails to compile where the table mounts it.
func mount[P component[P]](p P) panel { return &mounted[P]{p} }

// mounted adapts a component of type P to panel.
type mounted[P component[P]] struct{ p P }

func (m *mounted[P]) SetSize(w, h int) { m.p.SetSize(w, h) }
func (m *mounted[P]) View() string     { return m.p.View() }
func (m *mounted[P]) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.p, cmd = m.p.Update(msg)
	return cmd
}

// base holds what every panel has: its styles, its size in cells and its cached rendering.
// Panels redraw into view during Update; View only returns it.
type base struct {
	st   Styles
	w, h int
	view string
}

// SetSize sets the panel's outer size in cells (border included).
func (b *base) SetSize(w, h int) { b.w, b.h = max(w, 0), max(h, 0) }

// View returns the panel as last drawn, exactly its size.
func (b *base) View() string { return b.view }

// keyName is the key a binding shows in the help ("space", "q/ctrl+c"), so texts that name a
// key follow a remapped key file.
func keyName(b keyBinding) string { return b.Help().Key }

// keyBinding is a key binding of the keymap (bubbles/key).
type keyBinding = key.Binding

// box draws body inside the panel border with title set into the top border, exactly w x h
// cells. Too small for a border (under 4x3), it returns the clipped body alone.
func box(st Styles, title, body string, w, h int) string {
	if w < 4 || h < 3 {
		return fit(body, w, h)
	}
	iw, ih := w-2, h-2
	top := st.BorderLine.Render("╭" + strings.Repeat("─", iw) + "╮")
	if title != "" && iw >= 4 {
		t := ansi.Truncate(st.Title.Render(title), iw-3, "…")
		rest := iw - 3 - ansi.StringWidth(t)
		top = st.BorderLine.Render("╭─ ") + t + st.BorderLine.Render(" "+strings.Repeat("─", rest)+"╮")
	}
	return top + "\n" + st.Panel.Render(fit(body, iw, ih))
}

// fitTitle returns the first of titles (longest wording first) that fits the top border of a box
// w cells wide without being cut, or the last one, which box then cuts.
func fitTitle(w int, titles ...string) string {
	for _, t := range titles {
		if ansi.StringWidth(t) <= w-5 {
			return t
		}
	}
	return titles[len(titles)-1]
}

// inner returns the content size of a box of w x h cells.
func inner(w, h int) (int, int) {
	if w < 4 || h < 3 {
		return max(w, 0), max(h, 0)
	}
	return w - 2, h - 2
}
