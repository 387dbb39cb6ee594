package common

import (
	"fmt"
	"io"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/assert"
)

// Asserts that Box draws a panel byte for byte as lipgloss draws st.Panel's border around the
// fitted body, in every colour profile, for bodies shorter, longer, narrower and wider than the
// box, styled, of wide runes, with a tab, and at the smallest sizes.
func TestBoxAsLipgloss(t *testing.T) {
	bodies := []string{"", "a", "one\ntwo\nthree\nfour\nfive\nsix", "a line much wider than the box is, cut", "日本語の文字\nok",
		"\x1b[1mbold\x1b[0m and \x1b[38;2;255;0;0mred\x1b[0m", "a\ttab"}
	for _, p := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(p)
		st := NewStyles(r)
		for _, size := range [][2]int{{4, 3}, {5, 4}, {12, 5}, {30, 8}} {
			for i, body := range bodies {
				w, h := size[0], size[1]
				want := borderTop(st, "Title", w) + "\n" + st.Panel.Render(Fit(body, w-2, h-2))
				assert.Equal(t, want, Box(st, "Title", body, w, h), fmt.Sprintf("profile %v, %dx%d, body %d", p, w, h, i))
			}
		}
	}
}
