package common

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/assert"
)

// index is the colour a profile shows for s, as a number (-1 for none or true colour).
func index(p termenv.Profile, s string) int {
	switch c := p.Color(s).(type) {
	case termenv.ANSI256Color:
		return int(c)
	case termenv.ANSIColor:
		return int(c)
	}
	return -1
}

// Asserts that converting the palette once to a 256- or 16-colour profile gives every colour
// the index lipgloss would find at each Render, on light and dark backgrounds; that a
// true-colour or colourless profile keeps the hex colours; and that the styles built on a
// 256-colour renderer carry the indexes, not the hex colours.
func TestInProfile(t *testing.T) {
	palette := []lipgloss.AdaptiveColor{colText, colMuted, colBorder, colAccent, colHealthy, colDegraded,
		colCritical, colEmergency, colInk, colOriginals, colRetries, {Light: "#909090", Dark: "#626262"}}
	for _, p := range []termenv.Profile{termenv.ANSI256, termenv.ANSI} {
		for _, c := range palette {
			got := inProfile(p, c)
			assert.Equal(t, index(p, c.Light), index(p, got.Light), "profile %v, %s", p, c.Light)
			assert.Equal(t, index(p, c.Dark), index(p, got.Dark), "profile %v, %s", p, c.Dark)
			assert.NotContains(t, got.Light+got.Dark, "#")
		}
	}
	for _, p := range []termenv.Profile{termenv.TrueColor, termenv.Ascii} {
		assert.Equal(t, colAccent, inProfile(p, colAccent))
	}
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI256)
	st := NewStyles(r)
	assert.Equal(t, lipgloss.AdaptiveColor{Light: fmt.Sprint(index(termenv.ANSI256, colAccent.Light)),
		Dark: fmt.Sprint(index(termenv.ANSI256, colAccent.Dark))}, st.Accent.GetForeground())
}
