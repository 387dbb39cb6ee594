package chart

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/internal/tuitest"
)

// Asserts the chart's drawing: a rising line ends at the top right, labels show 0, the middle
// and the top of the range, a mark draws a horizontal line, and a flat series at 0 stays on the
// bottom row.
func TestLineChartDraws(t *testing.T) {
	st := common.DefaultStyles()
	c := NewLine(20, 5)
	rising := make([]float64, 40)
	for i := range rising {
		rising[i] = float64(i) / 39
	}
	format := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	out := ansi.Strip(c.Draw(Spec{Lines: []Series{{Values: rising}}, YMax: 1, Labels: true, Format: format, Muted: st.Muted}))
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 5)
	assert.True(t, strings.HasPrefix(lines[0], "1.0"), lines[0])
	assert.True(t, strings.HasPrefix(lines[2], "0.5"), lines[2])
	assert.True(t, strings.HasPrefix(lines[4], "0.0"), lines[4])
	top := []rune(lines[0])
	assert.NotEqual(t, ' ', top[len(top)-1], "the newest value (1) is at the top right")
	assert.Equal(t, ' ', []rune(lines[0])[6], "old values are low, on the left")

	flat := strings.Split(ansi.Strip(c.Draw(Spec{Lines: []Series{{Values: []float64{0, 0, 0}}}, YMax: 1})), "\n")
	assert.Equal(t, strings.Repeat(" ", 20), flat[0])
	assert.NotEqual(t, strings.Repeat(" ", 20), flat[4])

	marked := ansi.Strip(c.Draw(Spec{Marks: []Mark{{Y: 0.5}}, YMax: 1}))
	assert.Contains(t, marked, strings.Repeat("─", 15), "a line across the chart")
}

// Asserts NiceCeil's rounding to 1, 2, 5 x 10^n, and the sparkline's scaling and padding.
func TestNiceCeilAndSparkline(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 0.3: 0.5, 1: 1, 1.1: 2, 3: 5, 7: 10, 120: 200, 501: 1000} {
		assert.Equal(t, want, NiceCeil(v), "NiceCeil(%v)", v)
	}
	assert.Equal(t, "  ▁█", Sparkline([]float64{0, 1}, 4, 1))
	assert.Equal(t, "▁▅█", Sparkline([]float64{9, 0, 0.5, 1}, 3, 1), "only the newest fit")
	assert.Equal(t, "", Sparkline([]float64{1}, 0, 1))
}

// Asserts that the chart never panics and always fills its area, for any size and any data
// (empty, NaN, infinite, negative, huge).
func TestChartAnySizeAnyData(t *testing.T) {
	data := [][]float64{nil, {1}, {0, 0, 0}, {-5, 3, 1e12}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	nan := []float64{0, 1, 2}
	nan[1] = nan[1] / 0 * 0 // NaN without a constant expression
	data = append(data, nan)
	c := NewLine(0, 0)
	for w := 0; w <= 60; w += 3 {
		for h := 0; h <= 12; h++ {
			for i, d := range data {
				c.Resize(w, h)
				var out string
				require.NotPanics(t, func() {
					out = c.Draw(Spec{Lines: []Series{{Values: d}}, Marks: []Mark{{Y: 0.5}}, Labels: true})
				}, "%dx%d data %d", w, h, i)
				if w == 0 || h == 0 {
					continue
				}
				tuitest.CheckExact(t, out, w, h, fmt.Sprintf("chart data %d", i))
			}
		}
	}
}

// Asserts the time labels: seconds under a minute, then minutes and seconds.
func TestFmtAxis(t *testing.T) {
	for sec, want := range map[int]string{10: "10s", 60: "1m", 90: "1m30", 600: "10m", 605: "10m05"} {
		assert.Equal(t, want, fmtAxis(sec))
	}
}

// Asserts that a chart of band thresholds (the CPS chart's) draws each mark on the row its
// label names, or not at all: at every height, a row holding a mark's letter is labelled with
// that mark's value, no row holds two marks, and no mark lands on the top or bottom row,
// labelled 1.00 and 0.00 (at 80x24 the EMERGENCY line sat on the row labelled 1.00, and 0.25
// had none). From five plot rows up, every mark is drawn.
func TestMarksOnTheirRows(t *testing.T) {
	st := common.DefaultStyles()
	marks := []Mark{{Y: 0.25, Glyph: '┈', Letter: 'D'}, {Y: 0.5, Glyph: '╌', Letter: 'C'}, {Y: 0.75, Glyph: '━', Letter: 'E'}}
	want := map[rune]string{'D': "0.25", 'C': "0.50", 'E': "0.75"}
	format := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	c := NewLine(0, 0)
	for h := MinH; h <= 14; h++ {
		c.Resize(40, h)
		out := ansi.Strip(c.Draw(Spec{Lines: []Series{{Values: []float64{0.1, 0.2}}}, Marks: marks, YMax: 1, Labels: true,
			Format: format, Muted: st.Muted, Seconds: true, Last: 1}))
		drawn := 0
		for _, line := range strings.Split(out, "\n") {
			label, plot, ok := strings.Cut(line, "│")
			if !ok {
				continue
			}
			letters := 0
			for letter, value := range want {
				if strings.HasPrefix(plot, string(letter)) {
					letters++
					drawn++
					assert.Equal(t, value, strings.TrimSpace(label), "height %d: the %c line is on its row", h, letter)
				}
			}
			assert.LessOrEqual(t, letters, 1, "height %d: one mark a row", h)
		}
		if plotRows := h - 1; plotRows >= 5 {
			assert.Equal(t, 3, drawn, "height %d: every mark drawn\n%s", h, out)
		}
	}
}

// Asserts that a Line draws again only when what it draws changed: the same spec at the same
// size returns the last string without rendering, while a changed value (in the caller's own
// buffer, as panels reuse theirs), a new point, a span, a mark, a style's colour or a size
// renders afresh, each time the same string as a chart that never drew before.
func TestLineDrawsOnlyWhatChanged(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	red, blue := r.NewStyle().Foreground(lipgloss.Color("#ff0000")), r.NewStyle().Foreground(lipgloss.Color("#0000ff"))
	vals := []float64{1, 2, 3, 4}
	spec := Spec{Lines: []Series{{Values: vals, Style: red, Glyph: 'o'}}, Labels: true, Seconds: true, Last: 3,
		Format: func(v float64) string { return fmt.Sprintf("%.0f", v) }}
	c := NewLine(40, 8)
	fresh := func(s Spec) string { f := NewLine(c.w, c.h); return f.Draw(s) }
	first := c.Draw(spec)
	require.Equal(t, 1, c.drawn)
	assert.Equal(t, first, c.Draw(spec), "the same spec")
	assert.Equal(t, 1, c.drawn, "the same spec is not drawn again")

	steps := []struct {
		name   string
		change func()
	}{
		{"a value changed in place", func() { vals[3] = 9 }},
		{"a new point", func() { spec.Lines[0].Values = append(vals, 5); spec.Last = 4 }},
		{"a fault's span", func() { spec.Spans = []Span{{From: 2, To: -1}} }},
		{"a mark", func() { spec.Marks = []Mark{{Y: 2, Glyph: '┈', Style: red}} }},
		{"a style's colour", func() { spec.Lines[0].Style = blue }},
		{"another size", func() { c.Resize(50, 9) }},
	}
	for i, s := range steps {
		before := c.Draw(spec)
		s.change()
		got := c.Draw(spec)
		assert.Equal(t, i+2, c.drawn, "%s: drawn again", s.name)
		assert.NotEqual(t, before, got, s.name)
		assert.Equal(t, fresh(spec), got, "%s: as a chart that never drew", s.name)
	}
}
