package chart

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/linechart/streamlinechart"
	"github.com/charmbracelet/lipgloss"

	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Line draws with ntcharts v0.4.0's streamlinechart: one arc rune per column per Series,
// newest value on the right, a Y axis with labels at the bottom, middle and top. Each Draw
// builds a fresh streamlinechart sized to the area and to the y range of the data, pushes the
// visible points and renders it: no ntcharts model is kept between draws or copied by value,
// and the chart's own unbounded auto-range never grows (the range covers every value pushed).
// Below MinW x MinH it draws nothing (ntcharts panics at about one cell). A Line keeps what it
// drew last: a spec that draws the same as the last one (the same values, marks, spans, labels
// and styles, at the same size) returns that string again without drawing, so a panel that
// draws its chart at every tick pays for it only when a point or a mark changed (the
// per-second series change once a simulated second, every tenth frame at x1). Not safe for
// concurrent use.
type Line struct {
	w, h int
	key  []byte // what the last draw drew, flattened (specKey); nil before any
	spec []byte // the spec being drawn, flattened (reused)
	out  string // the last draw
	// drawn counts the draws that rendered (not those that returned the last string again).
	drawn int
}

var _ Chart = (*Line)(nil)

// NewLine returns a chart of w x h cells.
func NewLine(w, h int) *Line { return &Line{w: max(w, 0), h: max(h, 0)} }

// Resize implements chart.
func (c *Line) Resize(w, h int) { c.w, c.h = max(w, 0), max(h, 0) }

// Draw implements chart. A panic inside ntcharts (it has a few at odd sizes) draws a blank
// area rather than taking the terminal down.
func (c *Line) Draw(spec Spec) string {
	if c.w < MinW || c.h < MinH {
		return common.Blank(c.w, c.h)
	}
	c.spec = c.specKey(c.spec[:0], spec)
	if c.key != nil && bytes.Equal(c.spec, c.key) {
		return c.out
	}
	c.out = c.draw(spec)
	c.drawn++
	c.key, c.spec = c.spec, c.key
	return c.out
}

// specKey appends to dst everything of spec that a draw at the chart's size depends on: the
// size, the values, marks, spans and labels, and each style as it renders (its colours under
// the renderer's profile). Two specs with the same key draw the same string.
func (c *Line) specKey(dst []byte, spec Spec) []byte {
	num := func(v float64) { dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v)) }
	str := func(s string) { dst = append(binary.AppendUvarint(dst, uint64(len(s))), s...) }
	style := func(st lipgloss.Style) { str(st.Render("x")) }
	for _, v := range []int{c.w, c.h, spec.Last, len(spec.Lines), len(spec.Marks), len(spec.Spans)} {
		dst = binary.AppendVarint(dst, int64(v))
	}
	dst = append(dst, btoa(spec.Labels), btoa(spec.Seconds))
	ymax := yTop(spec)
	num(ymax)
	style(spec.Muted)
	if spec.Format != nil { // its labels: 0, the top, the middle and the marks'
		str(spec.Format(0))
		str(spec.Format(ymax))
		str(spec.Format(ymax / 2))
		for _, m := range spec.Marks {
			str(spec.Format(m.Y))
		}
	}
	for _, m := range spec.Marks {
		num(m.Y)
		dst = binary.AppendVarint(dst, int64(m.Glyph))
		dst = binary.AppendVarint(dst, int64(m.Letter))
		style(m.Style)
	}
	for _, sp := range spec.Spans {
		dst = binary.AppendVarint(dst, int64(sp.From))
		dst = binary.AppendVarint(dst, int64(sp.To))
	}
	for _, l := range spec.Lines {
		dst = binary.AppendVarint(dst, int64(l.Glyph))
		dst = append(dst, btoa(l.Dotted))
		style(l.Style)
		dst = binary.AppendUvarint(dst, uint64(len(l.Values)))
		for _, v := range l.Values {
			num(v)
		}
	}
	return dst
}

// btoa is a bool as a byte of a key.
func btoa(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// draw renders spec with ntcharts.
func (c *Line) draw(spec Spec) (out string) {
	defer func() {
		if recover() != nil {
			out = common.Blank(c.w, c.h)
		}
	}()
	h := c.h
	axis := spec.Seconds && h > MinH // the last line is the time axis
	if axis {
		h--
	}
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
	top := h - 1
	rowOf := func(v float64) int { return int(math.Round(v * float64(top) / ymax)) }
	rowLabels := map[int]string{0: format(0), top: format(ymax)}
	onRow := placeMarks(spec.Marks, rowOf, top, ymax)
	levels := make([]float64, 0, len(spec.Marks)+1)
	for i, m := range spec.Marks {
		if onRow[i] {
			levels = append(levels, m.Y)
		}
	}
	if len(spec.Marks) == 0 {
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
		if c.w-labelW-1 < MinW/2 {
			yStep = 0 // no room for labels: the plot keeps the width
		}
	}
	labels := func(m *streamlinechart.Model) {
		m.YLabelFormatter = func(i int, _ float64) string { return rowLabels[i] }
	}
	lc := streamlinechart.New(c.w, h,
		labels,
		streamlinechart.WithXYSteps(0, yStep),
		streamlinechart.WithYRange(0, ymax),
		streamlinechart.WithAxesStyles(spec.Muted, spec.Muted),
	)
	if lc.GraphWidth() < 2 || lc.GraphHeight() < 2 {
		return common.Blank(c.w, c.h)
	}
	origin := lc.Origin()
	rowY := func(v float64) int { return origin.Y - int(math.Round(min(max(v, 0), ymax)*float64(origin.Y)/ymax)) }
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
		if m.Y < 0 || m.Y > ymax || m.Glyph != 0 || !onRow[i] {
			continue // a mark with a glyph is drawn after the lines, in the cells they leave
		}
		line := make([]float64, n)
		for j := range line {
			line[j] = m.Y
		}
		add("m"+strconv.Itoa(i), m.Style, runes.ThinLineStyle, line)
	}
	for i, s := range spec.Lines {
		if s.Dotted {
			continue // drawn after the lines, a glyph per point
		}
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
	c.overlay(&lc.Canvas, spec, onRow, origin, rowY)
	out = common.Fit(lc.View(), c.w, h)
	if axis {
		out += "\n" + timeAxis(spec, origin.X, c.w)
	}
	return out
}

// markEvery is how many columns apart a Series' glyph marks its line.
const markEvery = 8

// overlay draws what ntcharts cannot: the glyph marks (in the cells the lines left empty, the
// band's letter at the left end), the faults' vertical marks, the dotted Series and the
// glyphs on the lines, so a chart reads without colour.
func (c *Line) overlay(cv *canvas.Model, spec Spec, onRow []bool, origin canvas.Point, rowY func(float64) int) {
	left, right := origin.X+1, cv.Width()-1
	if origin.X == 0 && !spec.Labels {
		left = 0
	}
	empty := func(p canvas.Point) bool { r := cv.Cell(p).Rune; return r == 0 || r == ' ' }
	for i, m := range spec.Marks {
		if m.Glyph == 0 || !onRow[i] {
			continue
		}
		y := rowY(m.Y)
		for x := left; x <= right; x++ {
			if p := (canvas.Point{X: x, Y: y}); empty(p) {
				cv.SetCell(p, canvas.NewCellWithStyle(m.Glyph, m.Style))
			}
		}
		if m.Letter != 0 {
			cv.SetCell(canvas.Point{X: left, Y: y}, canvas.NewCellWithStyle(m.Letter, m.Style))
		}
	}
	if spec.Seconds {
		for _, sp := range spec.Spans {
			for _, sec := range []int{sp.From, sp.To} {
				x := right - (spec.Last - sec)
				if sec < 0 || x < left || x > right {
					continue
				}
				for y := 0; y <= origin.Y; y++ {
					if p := (canvas.Point{X: x, Y: y}); empty(p) {
						cv.SetCell(p, canvas.NewCellWithStyle('┊', spec.Muted))
					}
				}
			}
		}
	}
	n := right - left + 1
	for _, s := range spec.Lines {
		if s.Glyph == 0 {
			continue
		}
		vals := s.Values
		if len(vals) > n {
			vals = vals[len(vals)-n:]
		}
		for i, v := range vals {
			back := len(vals) - 1 - i // columns from the newest point
			if !s.Dotted && back%markEvery != 0 {
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			cv.SetCell(canvas.Point{X: right - back, Y: rowY(v)}, canvas.NewCellWithStyle(s.Glyph, s.Style))
		}
	}
}

// timeAxis is the line under a chart of one value per second: the time of the run every few
// columns ("30s", "1m", "1m30"), then a "▲" under each fault's start and "△" under its end
// (over a label's cell if need be), in the columns of the plot (gutter left of it), exactly w
// cells.
func timeAxis(spec Spec, gutter, w int) string {
	line := []rune(strings.Repeat(" ", max(w, 0)))
	right := w - 1
	put := func(x int, text string) bool {
		rs := []rune(text)
		start := x - len(rs) + 1 // right-aligned on the column of its second
		if start <= gutter || x > right {
			return false
		}
		for i := start - 1; i <= min(x+1, right); i++ {
			if i >= 0 && line[i] != ' ' {
				return false // keep a space between labels
			}
		}
		copy(line[start:], rs)
		return true
	}
	// The value of second s is drawn when the second has ended: its column is labelled s+1.
	for sec := spec.Last - (spec.Last+1)%axisStep; sec >= 0; sec -= axisStep {
		x := right - (spec.Last - sec)
		if x <= gutter {
			break
		}
		put(x, fmtAxis(sec+1))
	}
	for _, sp := range spec.Spans {
		for i, sec := range []int{sp.From, sp.To} {
			if x := right - (spec.Last - sec); sec >= 0 && x > gutter && x <= right {
				line[x] = []rune("▲△")[i]
			}
		}
	}
	return spec.Muted.Render(string(line))
}

// axisStep is the seconds between two time labels: at one column per second, room for the
// longest label ("10m30") and a space.
const axisStep = 10

// fmtAxis formats a time label: 30s, 1m, 1m30.
func fmtAxis(sec int) string {
	switch {
	case sec < 60:
		return strconv.Itoa(sec) + "s"
	case sec%60 == 0:
		return strconv.Itoa(sec/60) + "m"
	}
	return fmt.Sprintf("%dm%02d", sec/60, sec%60)
}

// placeMarks says which marks are drawn: each on the row its value rounds to (rowOf, 0 at the
// bottom, top at the top), labelled with that value, so a mark is drawn only on a row of its
// own strictly between the bottom and the top rows (labelled 0 and ymax), and of two marks that
// round to one row, the one nearer the row's value. A mark at or outside the range's ends (the
// queue's limit at its top) is drawn there. A chart too short for its marks drops some rather
// than draw one on a row labelled with another value.
func placeMarks(marks []Mark, rowOf func(float64) int, top int, ymax float64) []bool {
	on := make([]bool, len(marks))
	best := map[int]int{} // row -> the mark drawn on it
	for i, m := range marks {
		r := rowOf(m.Y)
		if m.Y <= 0 || m.Y >= ymax {
			on[i] = true // at an end of the range: on its end row, whose label is its value
			continue
		}
		if r <= 0 || r >= top {
			continue
		}
		if j, taken := best[r]; taken {
			rowValue := float64(r) * ymax / float64(top)
			if math.Abs(m.Y-rowValue) >= math.Abs(marks[j].Y-rowValue) {
				continue
			}
			on[j] = false
		}
		best[r], on[i] = i, true
	}
	return on
}

// yTop is the top of a chart's y axis: spec.YMax, or the largest value rounded up (at least 1).
func yTop(spec Spec) float64 {
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
	return NiceCeil(top)
}
