// Package tuitest holds what the tests of the dashboard's packages share: the hostile scenario
// they draw, the checks that a view is inert and exactly its size, and the sizes they sweep. It
// is imported by tests only.
package tuitest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// HostileFile is a valid scenario whose name, summary, story, class names and notes are full
// of escape sequences, bidi controls, zero-width characters and combining-mark stacks.
var HostileFile = func() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata", "hostile", "escapes.toml")
}()

// HostileScenario parses HostileFile.
func HostileScenario(tb testing.TB) scenarios.Scenario {
	tb.Helper()
	scn, err := scenarios.ParseFile(HostileFile)
	require.NoError(tb, err)
	require.Contains(tb, scn.Classes[0].Name, "\x1b]0;", "the file still holds its escapes")
	return scn
}

// CheckInert asserts that view, drawn with the ASCII colour profile, holds no escape byte at
// all and no other rune a terminal would act on or draw at another width (safetext.Unsafe),
// but line breaks and the joiners inside an emoji; and that it is exactly w x h cells.
func CheckInert(t *testing.T, view string, w, h int, what string) {
	t.Helper()
	assert.NotContains(t, view, "\x1b", "%s: an escape byte", what)
	for i, r := range view {
		if safetext.Unsafe(r) && r != '\n' && r != '\u200d' {
			assert.Fail(t, "unsafe rune", "%s: %U at byte %d", what, r, i)
			break
		}
	}
	for _, l := range strings.Split(view, "\n") {
		if strings.ContainsRune(l, '\u200d') {
			assert.Contains(t, l, "👨\u200d👩\u200d👧", "%s: a joiner outside the family emoji: %q", what, l)
		}
	}
	CheckExact(t, view, w, h, what)
}

// CheckExact asserts that view is exactly h lines of exactly w cells.
func CheckExact(t *testing.T, view string, w, h int, what string) {
	t.Helper()
	lines := strings.Split(view, "\n")
	require.Len(t, lines, h, "%s at %dx%d: line count", what, w, h)
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			assert.Equal(t, w, n, "%s at %dx%d: width of line %d %q", what, w, h, i, l)
			return
		}
	}
}

// SweepSizes are the window sizes the size sweeps render at: around every layout threshold.
func SweepSizes() [][2]int {
	var out [][2]int
	ws := []int{20, 21, 33, 46, 79, 80, 81, 120, 163, 250}
	hs := []int{5, 6, 11, 23, 24, 25, 35, 36, 48, 80}
	for _, w := range ws {
		for _, h := range hs {
			out = append(out, [2]int{w, h})
		}
	}
	return out
}

// Main runs a package's tests (call it from TestMain) with lipgloss drawing without colour, as
// the goldens and the assertions that read views are written.
func Main(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	os.Exit(m.Run())
}
