package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/caption"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/queue"
	"github.com/cortex-tui/cortex-tui/tui/traffic"
)

// Asserts that the traffic panel's title is never cut: at every width it drops the queue, then
// words, instead of ending in "…", and the amplification stays in it.
func TestTrafficTitleNotCut(t *testing.T) {
	tick := 100 * time.Millisecond
	r := &run{meta: source.Meta{Tick: tick}, hist: testHistory()}
	for n := 1; n <= 12; n++ {
		r.hist.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick,
			Counts:  source.Counts{Originals: 50, Attempts: 120, Retries: 70},
			Service: source.Service{State: source.ServiceWarming, Capacity: 150, Queue: 4500, QueueLimit: 5000}})
	}
	f := &frame{runs: []*run{r}}
	for w := 24; w <= 250; w += 3 {
		p := trafficCell{traffic.New(common.DefaultStyles()), 0}
		p.SetSize(w, 12)
		p, _ = p.Update(frameMsg{f: f})
		top := strings.SplitN(p.View(), "\n", 2)[0]
		assert.NotContains(t, top, "…", "width %d: %s", w, top)
		assert.Contains(t, top, "2.40x", "width %d: %s", w, top)
	}
}

// Asserts that the traffic legend gives the four lines' values for the same second (the last
// whole one), so successes never exceed a capacity taken from a later instant: capacity
// dropping to 0 mid-second shows once that second is over.
func TestTrafficLegendOneSecond(t *testing.T) {
	tick := 100 * time.Millisecond
	r := &run{meta: source.Meta{Tick: tick}, hist: testHistory()}
	for n := 1; n <= 13; n++ {
		capacity := 500.0
		if n > 10 {
			capacity = 0 // outage from 1.0 s, in the second still open
		}
		r.hist.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick,
			Counts:  source.Counts{Originals: 40, Attempts: 40, Successes: 40},
			Service: source.Service{State: source.ServiceDown, Capacity: capacity}})
	}
	f := &frame{runs: []*run{r}}
	p := trafficCell{traffic.New(common.DefaultStyles()), 0}
	p.SetSize(100, 12)
	p, _ = p.Update(frameMsg{f: f})
	legend := strings.Split(p.View(), "\n")[1]
	assert.Contains(t, legend, "successes 400")
	assert.Contains(t, legend, "capacity 500")
}

// Asserts that the traffic legend shows the capacity's value, not cut, at the narrowest width
// the full layout gives the panel (40 columns at 80x24).
func TestTrafficLegendFitsNarrow(t *testing.T) {
	tick := 100 * time.Millisecond
	r := &run{meta: source.Meta{Tick: tick}, hist: testHistory()}
	for n := 1; n <= 12; n++ {
		r.hist.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick,
			Counts:  source.Counts{Originals: 30, Attempts: 39, Retries: 9, Successes: 1},
			Service: source.Service{State: source.ServiceUp, Capacity: 500}})
	}
	p := trafficCell{traffic.New(common.DefaultStyles()), 0}
	p.SetSize(40, 8)
	p, _ = p.Update(frameMsg{f: &frame{runs: []*run{r}}})
	assert.Contains(t, strings.Split(p.View(), "\n")[1], "· 500", "the capacity's value by its dotted glyph")
}

// Asserts that where the legend's four items do not fit with their names (a 38-column panel
// at 80x24 once the originals reach hundreds), the capacity's name goes first, and a glyph is
// never glued to its word ("oorig 473 rretry 0" on the screen of a lesson).
func TestTrafficLegendNeverGlued(t *testing.T) {
	tick := 100 * time.Millisecond
	r := &run{meta: source.Meta{Tick: tick}, hist: testHistory()}
	for n := 1; n <= 12; n++ {
		r.hist.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick,
			Counts:  source.Counts{Originals: 47, Attempts: 47, Successes: 47},
			Service: source.Service{State: source.ServiceUp, Capacity: 500}})
	}
	for _, w := range []int{30, 34, 38, 40, 60} {
		p := trafficCell{traffic.New(common.DefaultStyles()), 0}
		p.SetSize(w, 10)
		p, _ = p.Update(frameMsg{f: &frame{runs: []*run{r}}})
		legend := ansi.Strip(strings.Split(p.View(), "\n")[1])
		for _, glued := range []string{"oorig", "rretry", "sok", "·cap"} {
			assert.NotContains(t, legend, glued, "width %d: %q", w, legend)
		}
		assert.Contains(t, legend, "o ", "width %d: %q", w, legend)
	}
	p := trafficCell{traffic.New(common.DefaultStyles()), 0}
	p.SetSize(38, 10)
	p, _ = p.Update(frameMsg{f: &frame{runs: []*run{r}}})
	assert.Contains(t, ansi.Strip(strings.Split(p.View(), "\n")[1]), "o orig 470 r retry 0 s ok 470 · 500")
}

// Asserts that a service not the source's to measure (live --target: your own service) shows
// no capacity and no queue, neither in the title and legend nor as a line, rather than a
// capacity of 0 and a queue of 0/0, nor "service UP", which it said while every attempt was
// answered 500; its traffic lines stay.
func TestUnmeasuredServiceHidesCapacity(t *testing.T) {
	tick := 100 * time.Millisecond
	r := &run{meta: source.Meta{Tick: tick, Live: true}, hist: testHistory()}
	for n := 1; n <= 30; n++ {
		r.hist.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick,
			Counts:  source.Counts{Originals: 50, Attempts: 60, Retries: 10, Successes: 55},
			Service: source.Service{State: source.ServiceUp, Unmeasured: true}})
	}
	f := &frame{runs: []*run{r}}
	p := trafficCell{traffic.New(common.DefaultStyles()), 0}
	p.SetSize(100, 14)
	p, _ = p.Update(frameMsg{f: f})
	v := p.View()
	assert.NotContains(t, v, "capacity")
	assert.NotContains(t, v, "queue")
	assert.NotContains(t, v, "··", "no dotted capacity line")
	assert.NotContains(t, v, "UP", "no health the source never measured")
	assert.Contains(t, v, "service not measured")
	assert.Contains(t, v, "o originals")
	q := queueCell{queue.New(common.DefaultStyles())}
	q.SetSize(60, 8)
	q, _ = q.Update(frameMsg{f: f})
	assert.Contains(t, strings.Join(strings.Fields(q.View()), " "), "its queue is not known")
}

// Asserts that against a service not the source's (live --target: your own), the caption says
// what the last second shows of its answers instead of the scenario's note, which tells of the
// scenario's own service ("Everything is green" while every attempt to yours failed).
func TestUnmeasuredServiceCaption(t *testing.T) {
	tick := 100 * time.Millisecond
	tests := []struct {
		name      string
		successes int
		want      string
	}{
		{"every attempt fails", 0, "none of the last second's 600 attempts succeeded"},
		{"some succeed", 30, "300 of the last second's 600 attempts succeeded (50%)"},
		{"all succeed", 60, "all 600 of the last second's attempts succeeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{meta: source.Meta{Tick: tick, Live: true}, hist: testHistory()}
			for n := 1; n <= 30; n++ {
				r.hist.Add(source.Snapshot{T: time.Duration(n) * tick, Dt: tick, Note: "Everything is green.",
					Counts:  source.Counts{Originals: 50, Attempts: 60, Retries: 10, Successes: tc.successes, Failures: 60 - tc.successes},
					Service: source.Service{State: source.ServiceUp, Unmeasured: true}})
			}
			c := captionCell{caption.New(common.DefaultStyles())}
			c.SetSize(400, 2)
			c, _ = c.Update(frameMsg{f: &frame{runs: []*run{r}}})
			v := strings.Join(strings.Fields(ansi.Strip(c.View())), " ")
			assert.Contains(t, v, "Your service (--target): "+tc.want)
			assert.NotContains(t, v, "Everything is green")
		})
	}
}
