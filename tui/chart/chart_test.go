package chart

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
