// Package chart is the dashboard's chart component: a Chart draws lines of per-second (or
// per-column) values, horizontal marks and a time axis with fault marks into a fixed area of
// cells, as one string a panel caches; Line implements it with ntcharts v0.4.0. Sparkline is
// the one-line variant for areas too small for a chart. Nothing here keeps data between draws:
// the panel that owns a chart pushes its series at each draw.
package chart

import (
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Chart draws data series into a fixed area of cells and returns the rendered string, exactly
// w cells wide and h lines high. Panels draw a chart once per data frame and cache the string.
// The interface keeps the drawing library replaceable; Line implements it with ntcharts
// v0.4.0's streamlinechart.
type Chart interface {
	// Resize sets the area in cells. Areas below MinW x MinH draw nothing.
	Resize(w, h int)
	// Draw renders the spec; it never panics, whatever the size or the data.
	Draw(spec Spec) string
}

// The smallest area a chart draws into; below it Draw returns blank lines of the right size.
const (
	MinW = 10
	MinH = 3
)

// Spec is what a chart draws: lines over a y range [0, YMax], and horizontal marks.
// Values are one per column, oldest first; the newest are kept when there are too many.
// With Seconds set, the values are one per simulated second, the newest being second Last:
// the bottom line becomes a time axis, and each span's start and end is a vertical mark.
type Spec struct {
	Lines  []Series
	Marks  []Mark  // horizontal lines drawn under the Series (e.g. band thresholds)
	YMax   float64 // top of the y axis; <= 0 means the largest value seen (at least 1)
	Labels bool    // draw y labels (top, middle, bottom) in a left gutter
	Format func(float64) string
	Muted  lipgloss.Style // style of the labels

	Seconds bool   // one value per second: draw a time axis under the plot
	Last    int    // the second of the newest value
	Spans   []Span // faults: marked where they start and end
}

// Series is one line of a chart: values oldest first, one per column. A Glyph marks the line
// every few columns and at its newest point, so lines can be told apart without colour;
// Dotted draws the glyph alone at every point, with no line.
type Series struct {
	Values []float64
	Style  lipgloss.Style
	Glyph  rune
	Dotted bool
}

// Mark is a horizontal line at Y, drawn with Glyph (a thin line without), with Letter at its
// left end (the band that begins there).
type Mark struct {
	Y      float64
	Style  lipgloss.Style
	Glyph  rune
	Letter rune
}

// Span is a time interval of a run in whole seconds, [From, To]; To < 0 while it lasts.
type Span struct {
	From, To int
}

// sparkBlocks are the eight heights of a one-line Sparkline. The signal sparklines are one line
// high, below the ~10x3 under which ntcharts' Sparkline must not be drawn, so they are text.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// Sparkline renders the newest w values of vals as one line of blocks scaled to [0, top],
// right-aligned and padded to w cells.
func Sparkline(vals []float64, w int, top float64) string {
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

// NiceCeil rounds v up to 1, 2 or 5 times a power of ten.
func NiceCeil(v float64) float64 {
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
