package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// Base holds what every panel has: its styles, its outer size in cells and its cached
// rendering. A panel embeds it, redraws Rendered during Update and lets View return it. The
// zero value has no size and draws nothing.
type Base struct {
	St       Styles
	W, H     int    // the outer size in cells, border included
	Rendered string // the panel as last drawn, exactly W x H cells
}

// SetSize sets the panel's outer size in cells (border included); negative sizes count as 0.
func (b *Base) SetSize(w, h int) { b.W, b.H = max(w, 0), max(h, 0) }

// View returns the panel as last drawn, exactly its size.
func (b *Base) View() string { return b.Rendered }

// Draw caches body in the panel's bordered box with title (Box at the panel's size): what a
// panel's Update, or a component's Show, does once it has its words.
func (b *Base) Draw(title, body string) { b.Rendered = Box(b.St, title, body, b.W, b.H) }

// KeyName is the key a binding shows in the help ("space", "q/ctrl+c"), so texts that name a
// key follow a remapped key file.
func KeyName(b key.Binding) string { return b.Help().Key }

// Box draws body inside the panel border with title set into the top border, exactly w x h
// cells. Too small for a border (under 4x3), it returns the clipped body alone.
func Box(st Styles, title, body string, w, h int) string {
	if w < 4 || h < 3 {
		return Fit(body, w, h)
	}
	iw, ih := w-2, h-2
	top := borderTop(st, title, w)
	inner := Fit(body, iw, ih)
	if strings.ContainsRune(inner, '\t') {
		return top + "\n" + st.Panel.Render(inner) // lipgloss widens tabs: let it
	}
	// The sides and the bottom as st.Panel draws them (the border's colour is BorderLine's),
	// joined by hand: every line of inner is iw cells already, and lipgloss measuring each
	// line again cost a fifth of a frame.
	side := st.BorderLine.Render("│")
	var b strings.Builder
	b.Grow(len(top) + len(inner) + (ih+1)*(2*len(side)+1) + 3*(iw+2) + 16)
	b.WriteString(top)
	for line := range strings.SplitSeq(inner, "\n") {
		b.WriteByte('\n')
		b.WriteString(side)
		b.WriteString(line)
		b.WriteString(side)
	}
	b.WriteByte('\n')
	b.WriteString(st.BorderLine.Render("╰" + strings.Repeat("─", iw) + "╯"))
	return b.String()
}

// borderTop is the top border of a box w cells wide (at least 4), with title set into it.
func borderTop(st Styles, title string, w int) string {
	iw := w - 2
	if title == "" || iw < 4 {
		return st.BorderLine.Render("╭" + strings.Repeat("─", iw) + "╮")
	}
	t := ansi.Truncate(st.Title.Render(title), iw-3, "…")
	rest := iw - 3 - ansi.StringWidth(t)
	return st.BorderLine.Render("╭─ ") + t + st.BorderLine.Render(" "+strings.Repeat("─", rest)+"╮")
}

// FitTitle returns the first of titles (longest wording first) that fits the top border of a
// box w cells wide without being cut, or the last one, which Box then cuts.
func FitTitle(w int, titles ...string) string {
	for _, t := range titles {
		if ansi.StringWidth(t) <= w-5 {
			return t
		}
	}
	return titles[len(titles)-1]
}

// Inner returns the content size of a box of w x h cells.
func Inner(w, h int) (int, int) {
	if w < 4 || h < 3 {
		return max(w, 0), max(h, 0)
	}
	return w - 2, h - 2
}
