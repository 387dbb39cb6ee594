package tui

import (
	"math"
	"strconv"

	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/linechart/streamlinechart"
	"github.com/charmbracelet/lipgloss"
)

// ntLineChart draws with ntcharts v0.4.0's streamlinechart: one arc rune per column per series,
// newest value on the right, a Y axis with labels at the bottom, middle and top. Each Draw
// builds a fresh streamlinechart sized to the area and to the y range of the data, pushes the
// visible points and renders it: no ntcharts model is kept between draws or copied by value,
// and the chart's own unbounded auto-range never grows (the range covers every value pushed).
// Below minChartW x minChartH it draws nothing (ntcharts panics at about one cell). Not safe
// for concurrent use.
type ntLineChart struct{ w, h int }

var _ chart = (*ntLineChart)(nil)

// newNTLineChart returns a chart of w x h cells.
func newNTLineChart(w, h int) *ntLineChart { return &ntLineChart{w: max(w, 0), h: max(h, 0)} }

// Resize implements chart.
func (c *ntLineChart) Resize(w, h int) { c.w, c.h = max(w, 0), max(h, 0) }

// Draw implements chart. A panic inside ntcharts (it has a few at odd sizes) draws a blank
// area rather than taking the terminal down.
func (c *ntLineChart) Draw(spec chartSpec) (out string) {
	if c.w < minChartW || c.h < minChartH {
		return blank(c.w, c.h)
	}
	defer func() {
		if recover() != nil {
			out = blank(c.w, c.h)
		}
	}()
	ymax := yTop(spec)
	format := spec.Format
	if format == nil {
		format = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	}
	// Labels on the bottom and top rows, and on the row of each mark (the CPS chart's band
	// thresholds), or of ymax/2 when there are no marks. ntcharts draws a value v on row
	// round(v*(h-1)/ymax) but labels row i with i*ymax/h: label the row a value is drawn on
	// with that value instead, so every label is a round number that says where its line is;
	// the other rows get an empty label.
	top := c.h - 1
	rowOf := func(v float64) int { return int(math.Round(v * float64(top) / ymax)) }
	rowLabels := map[int]string{0: format(0), top: format(ymax)}
	levels := make([]float64, 0, len(spec.Marks)+1)
	for _, m := range spec.Marks {
		levels = append(levels, m.Y)
	}
	if len(levels) == 0 {
		levels = append(levels, ymax/2)
	}
	for _, v := range levels {
		if r := rowOf(v); v > 0 && v < ymax && r > 0 && r < top {
			rowLabels[r] = format(v)
		}
	}
	yStep := 0
	if spec.Labels {
		yStep = 1
		labelW := 0
		for _, l := range rowLabels {
			labelW = max(labelW, len(l))
		}
		if c.w-labelW-1 < minChartW/2 {
			yStep = 0 // no room for labels: the plot keeps the width
		}
	}
	labels := func(m *streamlinechart.Model) {
		m.YLabelFormatter = func(i int, _ float64) string { return rowLabels[i] }
	}
	lc := streamlinechart.New(c.w, c.h,
		labels,
		streamlinechart.WithXYSteps(0, yStep),
		streamlinechart.WithYRange(0, ymax),
		streamlinechart.WithAxesStyles(spec.Muted, spec.Muted),
	)
	if lc.GraphWidth() < 2 || lc.GraphHeight() < 2 {
		return blank(c.w, c.h)
	}
	n := lc.GraphWidth()
	names := make([]string, 0, len(spec.Marks)+len(spec.Lines))
	add := func(name string, style lipgloss.Style, ls runes.LineStyle, vals []float64) {
		lc.SetDataSetStyles(name, ls, style)
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			lc.PushDataSet(name, min(max(v, 0), ymax))
		}
		names = append(names, name)
	}
	for i, m := range spec.Marks {
		if m.Y < 0 || m.Y > ymax {
			continue
		}
		line := make([]float64, n)
		for j := range line {
			line[j] = m.Y
		}
		add("m"+strconv.Itoa(i), m.Style, runes.ThinLineStyle, line)
	}
	for i, s := range spec.Lines {
		vals := s.Values
		if len(vals) > n {
			vals = vals[len(vals)-n:]
		}
		if len(vals) == 0 {
			continue
		}
		add("s"+strconv.Itoa(i), s.Style, runes.ArcLineStyle, vals)
	}
	if len(names) == 0 {
		lc.DrawXYAxisAndLabel()
	} else {
		lc.DrawDataSets(names)
	}
	return fit(lc.View(), c.w, c.h)
}

// yTop is the top of a chart's y axis: spec.YMax, or the largest value rounded up (at least 1).
func yTop(spec chartSpec) float64 {
	if spec.YMax > 0 {
		return spec.YMax
	}
	top := 1.0
	for _, s := range spec.Lines {
		for _, v := range s.Values {
			if v > top && !math.IsInf(v, 1) {
				top = v
			}
		}
	}
	return niceCeil(top)
}
