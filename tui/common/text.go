package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The text helpers every panel draws with: cells, not runes or bytes, are the unit (a CJK
// name or an emoji is two cells wide, a styled string carries ANSI sequences of no width).

// Blank returns h lines of w spaces (nothing for a non-positive size).
func Blank(w, h int) string {
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

// Fit clips or pads s to exactly w cells by h lines, so a panel never overflows its slot.
func Fit(s string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = FitLine(l, w)
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return strings.Join(lines, "\n")
}

// FitLine clips or pads one line to exactly w cells.
func FitLine(l string, w int) string {
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

// Wrap wraps text to w cells, keeping its paragraphs (blank lines) and hard-wrapping
// words longer than the width.
func Wrap(text string, w int) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, para := range paras {
		para = strings.Join(strings.Fields(para), " ")
		paras[i] = ansi.Hardwrap(ansi.Wordwrap(para, w, "-"), w, true)
	}
	return strings.Join(paras, "\n\n")
}

// Ellipsis cuts one line to w cells, ending it with "…" when it was longer.
func Ellipsis(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}
