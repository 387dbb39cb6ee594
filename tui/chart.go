package tui

import (
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// chart draws data series into a fixed area of cells and returns the rendered string, exactly
// w cells wide and h lines high. Panels draw a chart once per data frame and cache the string.
//
// The interface exists so the drawing library stays replaceable: the plan was ntcharts v0.4.0
// (streamlinechart, sparkline), but every ntcharts chart package imports
// github.com/lrstanley/bubblezone, which go.mod and go.sum of this module do not list, so it
// cannot be built here without changing them. brailleChart is a small native implementation of
// the same idea (a streaming line chart, newest value on the right).
type chart interface {
	// Resize sets the area in cells. Areas below minChartW x minChartH draw nothing.
	Resize(w, h int)
	// Draw renders the spec; it never panics, whatever the size or the data.
	Draw(spec chartSpec) string
}

// The smallest area a chart draws into; below it Draw returns blank lines of the right size.
const (
	minChartW = 10
	minChartH = 3
)

// chartSpec is what a chart draws: lines over a y range [0, YMax], and horizontal marks.
type chartSpec struct {
	Lines  []series
	Marks  []mark  // horizontal lines drawn under the series (e.g. band thresholds)
	YMax   float64 // top of the y axis; <= 0 means the largest value seen (at least 1)
	Labels bool    // draw y labels (top, middle, bottom) in a left gutter
	Format func(float64) string
	Muted  lipgloss.Style // style of the labels
}

// series is one line of a chart: values oldest first, one per half cell.
type series struct {
	Values []float64
	Style  lipgloss.Style
}

// mark is a horizontal line at Y.
type mark struct {
	Y     float64
	Style lipgloss.Style
}

// brailleChart draws lines with braille dots: each cell holds 2x4 dots, so a w-cell chart shows
// 2*w values. It keeps its grids between draws to avoid allocating per frame. Not safe for
// concurrent use.
type brailleChart struct {
	w, h  int
	dots  []uint8 // per cell: braille bits
	owner []int8  // per cell: index of the style that drew last (-1 none)
}

// newBrailleChart returns a chart of w x h cells.
func newBrailleChart(w, h int) *brailleChart {
	c := &brailleChart{}
	c.Resize(w, h)
	return c
}

// Resize implements chart.
func (c *brailleChart) Resize(w, h int) {
	c.w, c.h = max(w, 0), max(h, 0)
}

// brailleBits maps (dot column, dot row) to the bit of the braille pattern.
var brailleBits = [2][4]uint8{{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}

// Draw implements chart.
func (c *brailleChart) Draw(spec chartSpec) string {
	if c.w < minChartW || c.h < minChartH {
		return blank(c.w, c.h)
	}
	ymax := spec.YMax
	if ymax <= 0 {
		ymax = 1
		for _, s := range spec.Lines {
			for _, v := range s.Values {
				if v > ymax && !math.IsInf(v, 1) {
					ymax = v
				}
			}
		}
		ymax = niceCeil(ymax)
	}
	format := spec.Format
	if format == nil {
		format = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	}
	gutter := 0
	var top, mid, bottom string
	if spec.Labels {
		top, mid, bottom = format(ymax), format(ymax/2), format(0)
		gutter = max(len(top), len(mid), len(bottom)) + 1
		if c.w-gutter < minChartW {
			gutter = 0
		}
	}
	pw := c.w - gutter
	cells := pw * c.h
	if cap(c.dots) < cells {
		c.dots = make([]uint8, cells)
		c.owner = make([]int8, cells)
	}
	c.dots, c.owner = c.dots[:cells], c.owner[:cells]
	for i := range c.dots {
		c.dots[i], c.owner[i] = 0, -1
	}
	styles := make([]lipgloss.Style, 0, len(spec.Marks)+len(spec.Lines))
	rows := c.h * 4
	toRow := func(v float64) int { // dot row from the top
		if math.IsNaN(v) {
			v = 0
		}
		r := int(math.Round(v / ymax * float64(rows-1)))
		r = min(max(r, 0), rows-1)
		return rows - 1 - r
	}
	for _, m := range spec.Marks {
		if m.Y < 0 || m.Y > ymax {
			continue
		}
		styles = append(styles, m.Style)
		r := toRow(m.Y)
		for x := 0; x < pw*2; x += 2 { // every other dot: a dotted line
			c.set(x, r, int8(len(styles)-1))
		}
	}
	for _, s := range spec.Lines {
		styles = append(styles, s.Style)
		idx := int8(len(styles) - 1)
		vals := s.Values
		if len(vals) > pw*2 {
			vals = vals[len(vals)-pw*2:]
		}
		x0 := pw*2 - len(vals)
		prev := -1
		for i, v := range vals {
			r := toRow(v)
			if prev < 0 {
				prev = r
			}
			lo, hi := min(prev, r), max(prev, r)
			for y := lo; y <= hi; y++ {
				c.set(x0+i, y, idx)
			}
			prev = r
		}
	}
	var b strings.Builder
	b.Grow(cells * 4)
	for row := range c.h {
		if gutter > 0 {
			label := ""
			switch row {
			case 0:
				label = top
			case c.h / 2:
				label = mid
			case c.h - 1:
				label = bottom
			}
			b.WriteString(spec.Muted.Render(padLeft(label, gutter-1)))
			b.WriteByte(' ')
		}
		c.writeRow(&b, row, pw, styles)
		if row < c.h-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// set lights the dot at dot column x, dot row y, owned by style idx.
func (c *brailleChart) set(x, y int, idx int8) {
	pw := len(c.dots) / c.h
	cx, cy := x/2, y/4
	if cx < 0 || cx >= pw || cy < 0 || cy >= c.h {
		return
	}
	i := cy*pw + cx
	c.dots[i] |= brailleBits[x%2][y%4]
	c.owner[i] = idx
}

// writeRow renders one row of cells, grouping runs of one style into one Render call.
func (c *brailleChart) writeRow(b *strings.Builder, row, pw int, styles []lipgloss.Style) {
	var run strings.Builder
	cur := int8(-2)
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if cur >= 0 {
			b.WriteString(styles[cur].Render(run.String()))
		} else {
			b.WriteString(run.String())
		}
		run.Reset()
	}
	for x := range pw {
		i := row*pw + x
		o := c.owner[i]
		if c.dots[i] == 0 {
			o = -1
		}
		if o != cur {
			flush()
			cur = o
		}
		if c.dots[i] == 0 {
			run.WriteByte(' ')
		} else {
			run.WriteRune(rune(0x2800 + int(c.dots[i])))
		}
	}
	flush()
}

// sparkBlocks are the eight heights of a one-line sparkline.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline renders the newest w values of vals as one line of blocks scaled to [0, top],
// right-aligned and padded to w cells.
func sparkline(vals []float64, w int, top float64) string {
	if w <= 0 {
		return ""
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	if top <= 0 {
		top = 1
	}
	var b strings.Builder
	b.Grow(w * 3)
	b.WriteString(strings.Repeat(" ", w-len(vals)))
	for _, v := range vals {
		f := v / top
		if math.IsNaN(f) || f < 0 {
			f = 0
		}
		i := min(int(f*float64(len(sparkBlocks)-1)+0.5), len(sparkBlocks)-1)
		b.WriteRune(sparkBlocks[i])
	}
	return b.String()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
