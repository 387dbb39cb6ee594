package plots

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// result is a run of strategy over 30 s: 100 originals a second, its attempts amplified by amp
// while the service is down (seconds 10 to 14), a CPS when cps.
func result(strategy string, amp float64, cps bool, success map[string]float64) report.Result {
	var rows []report.Row
	for t := range 30 {
		r := report.Row{T: t, Originals: 100, Attempts: 100, Capacity: 120, Service: scenarios.ServiceUp}
		if t >= 10 && t < 15 {
			r.Service, r.Capacity, r.Attempts = scenarios.ServiceDown, 0, int(100*amp)
		}
		if cps {
			v := float64(t) / 30
			r.CPS = &v
		}
		rows = append(rows, r)
	}
	return report.Result{Meta: source.Meta{Scenario: "demo", Strategy: strategy, Seed: 1}, Timeline: rows,
		Summary: report.Summary{Scenario: "demo", Strategy: strategy, SuccessRate: 0.9, PrioritySuccess: success}}
}

// Asserts that the SVG holds the three charts, a line per strategy named in the legend, the
// capacity, the bands, the shaded outage and a bar group per priority, highest first.
func TestWriteSVG(t *testing.T) {
	runs := []report.Result{
		result("cortex", 1.2, true, map[string]float64{"9": 0.99, "1": 0.6}),
		result("naive", 4, false, map[string]float64{"9": 0.5, "1": 0.5}),
	}
	var b bytes.Buffer
	require.NoError(t, Write(&b, "svg", runs))
	svg := b.String()
	require.True(t, strings.HasPrefix(strings.TrimSpace(svg), "<?xml"), "an SVG document")
	for _, want := range []string{"demo, seed 1: traffic against capacity", "capacity", "originals", "cortex attempts", "naive attempts",
		"service not serving", "CPS (the CORTEX pressure score) and its bands", "DEGRADED from 0.25", "CRITICAL from 0.50",
		"EMERGENCY from 0.75", "success of the originals by priority", "priority 9", "priority 1", "cortex (90.0% overall)"} {
		assert.Contains(t, svg, want)
	}
	assert.Less(t, strings.Index(svg, "priority 9"), strings.Index(svg, "priority 1"), "highest priority first")
	assert.Contains(t, svg, "#1F77B4", "the first run's colour")
	assert.Contains(t, svg, "#D62728", "the second run's colour")

	b.Reset()
	require.NoError(t, Write(&b, "svg", runs[1:]))
	assert.Contains(t, b.String(), "(no run has a CORTEX engine)")
	assert.NotContains(t, b.String(), "cortex attempts")
}

// Asserts that the PNG decodes at the picture's size and shows both runs' colours.
func TestWritePNG(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, "png", []report.Result{
		result("cortex", 1.2, true, map[string]float64{"5": 0.9}),
		result("naive", 4, false, map[string]float64{"5": 0.4}),
	}))
	img, err := png.Decode(&b)
	require.NoError(t, err)
	assert.Equal(t, 960, img.Bounds().Dx())
	assert.Equal(t, 1056, img.Bounds().Dy())
	seen := map[color.RGBA]int{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: 0xff}]++
		}
	}
	assert.Positive(t, seen[palette[0]], "cortex's blue is drawn")
	assert.Positive(t, seen[palette[1]], "naive's red is drawn")
	assert.Positive(t, seen[shade], "the outage is shaded")
}

// Asserts the errors: no run, an unknown format, a file name's format.
func TestWriteErrors(t *testing.T) {
	var b bytes.Buffer
	assert.EqualError(t, Write(&b, "svg", nil), "plot: no run to draw (a run of at least one second)")
	assert.EqualError(t, Write(&b, "gif", []report.Result{result("none", 1, false, nil)}), "plot: unknown format \"gif\" (valid: svg, png)")
	assert.Zero(t, b.Len())
	for _, c := range []struct{ path, format, err string }{
		{"out.svg", "svg", ""}, {"OUT.PNG", "png", ""},
		{"out.gif", "", `out.gif: a picture is .svg or .png, not ".gif"`}, {"out", "", `out: a picture is .svg or .png, not ""`},
	} {
		f, err := FormatOf(c.path)
		assert.Equal(t, c.format, f)
		if c.err == "" {
			assert.NoError(t, err)
		} else {
			assert.EqualError(t, err, c.err)
		}
	}
}
