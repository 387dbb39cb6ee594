// Package plots draws a run's charts as a picture for slides and posts (run --headless --plot):
// traffic against the service's capacity, the CPS with its bands, and the success of each
// priority, for one run or several strategies on one chart, as SVG or PNG, with gonum's plot.
// It reads report's results only: what it draws is what the export holds.
package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
)

// Formats are the picture formats Write draws, by the extension of the file they go to.
var Formats = []string{"svg", "png"}

// FormatOf returns the format of a picture file by its extension (".svg", ".png"; any case), or
// an error naming the formats.
func FormatOf(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if slices.Contains(Formats, ext) {
		return ext, nil
	}
	return "", fmt.Errorf("%s: a picture is .svg or .png, not %q", path, filepath.Ext(path))
}

// Size is the picture's size: 10 x 11 inches, 960 x 1056 pixels in PNG.
const (
	width  = 10 * vg.Inch
	height = 11 * vg.Inch
)

// Write draws the charts of results (runs of one scenario and seed; the first run's capacity and
// service states are drawn) in format ("svg" or "png") into w: traffic (each run's attempts
// per second, the originals, the capacity, the seconds the service was not serving shaded), the
// CPS of each run that has one with its bands, and the success rate of each priority per run.
// Nothing is written on an error.
func Write(w io.Writer, format string, results []report.Result) error {
	if len(results) == 0 || len(results[0].Timeline) == 0 {
		return errors.New("plot: no run to draw (a run of at least one second)")
	}
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(width, height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	default:
		return fmt.Errorf("plot: unknown format %q (valid: %s)", format, strings.Join(Formats, ", "))
	}
	plots := [][]*plot.Plot{{traffic(results)}, {cps(results)}, {priorities(results)}}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	_, err := c.WriteTo(w)
	return err
}

// palette colours the runs, in order (the first, usually cortex, in blue); the capacity and
// the originals are drawn in grey.
var palette = []color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, {R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, {R: 0x94, G: 0x67, B: 0xbd, A: 0xff}, {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, {R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

// colour is run i's colour.
func colour(i int) color.Color { return palette[i%len(palette)] }

var (
	grey  = color.RGBA{R: 0x66, G: 0x66, B: 0x66, A: 0xff}
	shade = color.RGBA{R: 0xdd, G: 0xdd, B: 0xdd, A: 0xff}
)

// newPlot is a chart with its title and axis labels, the time axis in seconds.
func newPlot(title, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = y
	p.Legend.Top, p.Legend.Left = true, true // the runs begin calm: the top left is free
	p.Legend.XOffs = vg.Points(8)
	p.Add(plotter.NewGrid())
	return p
}

// series is one column of a timeline as points: x the second, y what of reads.
func series(rows []report.Row, of func(report.Row) float64) plotter.XYs {
	xy := make(plotter.XYs, len(rows))
	for i, r := range rows {
		xy[i] = plotter.XY{X: float64(r.T), Y: of(r)}
	}
	return xy
}

// line adds a line of xy to p in colour c, dashed when dash, named in the legend.
func line(p *plot.Plot, name string, xy plotter.XYs, c color.Color, dash bool) {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return // no finite point: nothing to draw
	}
	l.Color, l.Width = c, vg.Points(1.5)
	if dash {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(l)
	p.Legend.Add(name, l)
}

// traffic charts each run's attempts per second, the first run's originals and capacity, and
// shades the seconds its service was not serving (down, crashed).
func traffic(results []report.Result) *plot.Plot {
	first := results[0]
	p := newPlot(fmt.Sprintf("%s, seed %d: traffic against capacity", first.Meta.Scenario, first.Meta.Seed), "requests/s")
	top := 1.0
	for _, r := range results {
		for _, row := range r.Timeline {
			top = max(top, float64(row.Attempts), row.Capacity)
		}
	}
	shadeDown(p, first.Timeline, top*1.05)
	line(p, "capacity", series(first.Timeline, func(r report.Row) float64 { return r.Capacity }), grey, true)
	line(p, "originals", series(first.Timeline, func(r report.Row) float64 { return float64(r.Originals) }), grey, false)
	for i, r := range results {
		line(p, r.Summary.Strategy+" attempts", series(r.Timeline, func(r report.Row) float64 { return float64(r.Attempts) }), colour(i), false)
	}
	p.Y.Min, p.Y.Max = 0, top*1.05
	return p
}

// shadeDown shades, up to top, every run of seconds in which the service was not serving.
func shadeDown(p *plot.Plot, rows []report.Row, top float64) {
	named := false
	for i := 0; i < len(rows); {
		if rows[i].Service.Serving() {
			i++
			continue
		}
		j := i
		for j < len(rows) && !rows[j].Service.Serving() {
			j++
		}
		x0, x1 := float64(rows[i].T), float64(rows[j-1].T+1)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: top}, {X: x0, Y: top}})
		if err == nil {
			poly.Color, poly.LineStyle.Width = shade, 0
			p.Add(poly)
			if !named {
				p.Legend.Add("service not serving", poly)
				named = true
			}
		}
		i = j
	}
}

// cps charts the CPS of every run that has one, with a dotted line where each band begins.
func cps(results []report.Result) *plot.Plot {
	p := newPlot("CPS (the CORTEX pressure score) and its bands", "CPS")
	p.Y.Min, p.Y.Max = 0, 1
	rows := results[0].Timeline
	x0, x1 := float64(rows[0].T), float64(rows[len(rows)-1].T+1)
	for i, from := range engine.BandStarts(engine.DefaultEmergencyThreshold) {
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: from}, {X: x1, Y: from}})
		if err != nil {
			continue
		}
		l.Color, l.Width, l.Dashes = grey, vg.Points(0.75), []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s from %.2f", engine.State(i+1), from), l)
	}
	drawn := false
	for i, r := range results {
		var xy plotter.XYs
		for _, row := range r.Timeline {
			if row.CPS != nil {
				xy = append(xy, plotter.XY{X: float64(row.T), Y: *row.CPS})
			}
		}
		if len(xy) > 0 {
			line(p, r.Summary.Strategy, xy, colour(i), false)
			drawn = true
		}
	}
	if !drawn {
		p.Title.Text += " (no run has a CORTEX engine)"
	}
	return p
}

// priorities charts the success rate of each priority's originals, one bar per run in each
// priority's group, highest priority first.
func priorities(results []report.Result) *plot.Plot {
	p := plot.New()
	p.Title.Text = "success of the originals by priority"
	p.Y.Label.Text = "success rate"
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var prios []int
	for _, r := range results {
		for k := range r.Summary.PrioritySuccess {
			if n, err := strconv.Atoi(k); err == nil && !slices.Contains(prios, n) {
				prios = append(prios, n)
			}
		}
	}
	slices.Sort(prios)
	slices.Reverse(prios)
	names := make([]string, len(prios))
	for i, n := range prios {
		names[i] = "priority " + strconv.Itoa(n)
	}
	w := vg.Points(float64(min(40, 240/max(1, len(results)))))
	for i, r := range results {
		vals := make(plotter.Values, len(prios))
		for j, n := range prios {
			vals[j] = r.Summary.PrioritySuccess[strconv.Itoa(n)]
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			continue
		}
		bars.Color, bars.LineStyle.Width = colour(i), 0
		bars.Offset = w * vg.Length(float64(i)-float64(len(results)-1)/2)
		p.Add(bars)
		p.Legend.Add(fmt.Sprintf("%s (%.1f%% overall)", r.Summary.Strategy, 100*r.Summary.SuccessRate), bars)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(prios))-0.5 // room for every group's bars
	return p
}
