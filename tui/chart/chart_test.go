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
