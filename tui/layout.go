package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// blank returns h lines of w spaces (nothing for a non-positive size).
func blank(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	line := strings.Repeat(" ", w)
	lines := make([]string, h)
	for i := range lines {
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// fit clips or pads s to exactly w cells by h lines, so a panel never overflows its slot.
func fit(s string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = fitLine(l, w)
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return strings.Join(lines, "\n")
}

// fitLine clips or pads one line to exactly w cells.
func fitLine(l string, w int) string {
	n := ansi.StringWidth(l)
	if n > w {
		l = ansi.Truncate(l, w, "")
		n = ansi.StringWidth(l)
	}
	if n < w {
		l += strings.Repeat(" ", w-n)
	}
	return l
}

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

// side joins blocks left to right, top-aligned.
func side(blocks ...string) string { return lipgloss.JoinHorizontal(lipgloss.Top, blocks...) }

// stack joins blocks top to bottom, left-aligned.
func stack(blocks ...string) string { return lipgloss.JoinVertical(lipgloss.Left, blocks...) }
