package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/cps"
	"github.com/cortex-tui/cortex-tui/tui/traffic"
)

// chartRun is a run of n seconds whose traffic climbs, with a fault from second 10 to 20.
func chartRun(n int) *run {
	tick := time.Second
	r := &run{meta: source.Meta{Tick: tick, Strategy: "cortex"}, hist: testHistory()}
	for i := 1; i <= n; i++ {
		var evs []source.Event
		switch i {
		case 11:
			evs = []source.Event{{T: 10 * time.Second, Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultStarted, Kind: scenarios.FaultOutage}}}
		case 21:
			evs = []source.Event{{T: 20 * time.Second, Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultEnded, Kind: scenarios.FaultOutage}}}
		}
		cps := float64(i) / float64(n)
		r.hist.Add(source.Snapshot{T: time.Duration(i) * tick, Dt: tick, Events: evs,
			Counts:  source.Counts{Originals: 100, Attempts: 100 + 4*i, Retries: 4 * i, Successes: 100 - 2*i},
			Service: source.Service{State: source.ServiceUp, Capacity: 150},
			Cortex:  &source.CortexView{CPS: cps, State: engine.StateFor(cps, engine.DefaultEmergencyThreshold)}})
	}
	return r
}

// Asserts that with no colour at all (the Ascii profile of the tests, as under NO_COLOR) the
// charts can be read: each traffic series has its own glyph on its line and the same glyph in
// the legend (o, r, s, and capacity dotted), the CPS chart's three band lines each have their
// own glyph and their band's letter at the left end, and both charts have a time axis with the
// fault's start (▲) and end (△) under the columns of its seconds, marked up the plot too.
func TestChartsReadWithoutColour(t *testing.T) {
	r := chartRun(40)
	f := &frame{runs: []*run{r}}
	tr := trafficCell{traffic.New(common.DefaultStyles()), 0}
	tr.SetSize(80, 16)
	tr, _ = tr.Update(frameMsg{f: f})
	v := ansi.Strip(tr.View())
	lines := strings.Split(v, "\n")
	legend := lines[1]
	for i, name := range []string{"originals", "retries", "successes", "capacity"} {
		assert.Contains(t, legend, string(traffic.Glyphs[i])+" "+name, "the legend marks %s with its glyph", name)
	}
	plot := strings.Join(lines[2:len(lines)-2], "\n")
	for _, g := range traffic.Glyphs {
		assert.Contains(t, plot, string(g), "the glyph %q is on its line", g)
	}
	axis := lines[len(lines)-2]
	assert.Contains(t, axis, "10s▲", "the fault began at 10 s: its mark right of the label of the column that ends at 10 s")
	assert.Contains(t, axis, "30s")
	start, end := strings.IndexRune(axis, '▲'), strings.IndexRune(axis, '△')
	require.True(t, start >= 0 && end > start, "the fault's start and end are marked on the axis: %q", axis)
	assert.Equal(t, 10, len([]rune(axis[start:end])), "ten columns (seconds) apart")
	assert.Contains(t, plot, "┊", "marked up the plot")

	cp := cpsCell{cps.New(common.DefaultStyles()), 0}
	cp.SetSize(80, 14)
	cp, _ = cp.Update(frameMsg{f: f})
	v = ansi.Strip(cp.View())
	for i, letter := range []string{"D", "C", "E"} {
		line := ""
		for _, l := range strings.Split(v, "\n") {
			if strings.Contains(l, letter+strings.Repeat(string(cps.BandGlyphs[i+1]), 3)) {
				line = l
			}
		}
		assert.NotEmpty(t, line, "the %s line starts with its letter and is drawn in %q", letter, cps.BandGlyphs[i+1])
	}
	assert.Contains(t, v, "▲")
}

// Asserts that without colour the inspector's selected decision is still marked (▸, on its
// line only), as the selected weight and class are: reverse video alone vanishes under
// NO_COLOR.
func TestInspectorSelectionWithoutColour(t *testing.T) {
	m, _ := newTestModel(t, 140, 40, "cortex")
	fastForward(m, 31)
	m.Update(keyMsg("i"))
	m.Update(keyMsg("up"))
	marked := 0
	for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		if strings.HasPrefix(l, "│▸ ") {
			marked++
		}
	}
	assert.Equal(t, 1, marked, "one decision marked")
}
