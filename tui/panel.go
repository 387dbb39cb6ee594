package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

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
