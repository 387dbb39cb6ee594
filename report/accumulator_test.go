package report

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// Asserts that addCounts sums every counter of source.Counts, so a counter added there is not
// silently left out of the totals and the seconds.
func TestAddCountsSumsEveryField(t *testing.T) {
	var c source.Counts
	v := reflect.ValueOf(&c).Elem()
	n := int64(1)
	var set func(v reflect.Value)
	set = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Int:
			v.SetInt(n)
			n++
		case reflect.Array:
			for i := range v.Len() {
				set(v.Index(i))
			}
		default:
			t.Fatalf("source.Counts has a %s: teach addCounts and this test to sum it", v.Kind())
		}
	}
	for i := range v.NumField() {
		set(v.Field(i))
	}
	var sum source.Counts
	addCounts(&sum, c)
	addCounts(&sum, c)
	var check func(got, want reflect.Value, name string)
	check = func(got, want reflect.Value, name string) {
		if got.Kind() == reflect.Array {
			for i := range got.Len() {
				check(got.Index(i), want.Index(i), name)
			}
			return
		}
		assert.Equal(t, 2*want.Int(), got.Int(), "addCounts leaves out %s", name)
	}
	for i := range v.NumField() {
		check(reflect.ValueOf(sum).Field(i), v.Field(i), v.Type().Field(i).Name)
	}
}

// Asserts that the accumulator closes a second when a tick starts the next one (a tick belongs
// to the second in which it starts, also when the tick does not divide a second), keeps the
// sums unrounded, and keeps run totals.
func TestAccumulatorSeconds(t *testing.T) {
	var a Accumulator
	_, open := a.Current()
	require.False(t, open)
	tick := 300 * time.Millisecond
	var closed []Second
	for i := range 10 { // ticks start at 0, 0.3, ..., 2.7 s
		s := source.Snapshot{T: time.Duration(i+1) * tick, Dt: tick,
			Counts:  source.Counts{Originals: 2, Attempts: 3, Retries: 1, Decisions: [5]int{1, 0, 0, 0, 1}},
			Service: source.Service{State: source.ServiceUp, Capacity: 10, Queue: i}}
		if i%2 == 0 {
			s.Cortex = &source.CortexView{CPS: 0.3, Signals: engine.Signals{F: 0.5}, State: engine.Degraded}
		}
		if sec, ok := a.Add(s); ok {
			closed = append(closed, sec)
		}
	}
	require.Len(t, closed, 2)
	assert.Equal(t, 0, closed[0].T)
	assert.Equal(t, 4, closed[0].Ticks, "starts 0, 0.3, 0.6, 0.9")
	assert.Equal(t, 1200*time.Millisecond, closed[0].Dt)
	assert.Equal(t, 8, closed[0].Counts.Originals)
	assert.Equal(t, 3, closed[1].Ticks, "starts 1.2, 1.5, 1.8")
	assert.Equal(t, 2, closed[0].CortexTicks)
	assert.InDelta(t, 0.6, closed[0].CPS, 1e-12, "a sum over the CORTEX ticks")
	assert.InDelta(t, 0.3, *closed[0].Row().CPS, 1e-12, "the row's mean is over the CORTEX ticks alone")
	cur, open := a.Current()
	require.True(t, open)
	assert.Equal(t, 2, cur.T)
	assert.Equal(t, 3, cur.Ticks, "starts 2.1, 2.4, 2.7")
	tot := a.Totals()
	assert.Equal(t, 20, tot.Originals)
	assert.Equal(t, [5]int{10, 0, 0, 0, 10}, tot.Decisions)
	assert.InDelta(t, 1.5, tot.Amplification(), 1e-12)
	assert.Zero(t, Totals{}.SuccessRate())
}

// peakReference is the definition of peak_amplification over a timeline: the largest
// attempts/originals of a second, among seconds whose originals are at least a tenth of the mean
// over seconds with any (at least 1).
func peakReference(rows []Row) float64 {
	total, n := 0, 0
	for _, row := range rows {
		if row.Originals > 0 {
			total += row.Originals
			n++
		}
	}
	if n == 0 {
		return 0
	}
	floor := math.Max(1, 0.1*float64(total)/float64(n))
	peak := 0.0
	for _, row := range rows {
		if float64(row.Originals) >= floor {
			peak = math.Max(peak, float64(row.Attempts)/float64(row.Originals))
		}
	}
	return peak
}

// Asserts that the accumulator's running peak amplification is exactly (bit for bit) the
// definition over the timeline so far, the second in progress included, after every tick of
// random runs: ramps, near-empty seconds, repeated counts, bursts of retries.
func TestPeakAmplificationMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 200 {
		r := NewRecorder(source.Meta{Tick: 250 * time.Millisecond})
		for i := range 1 + rng.IntN(400) {
			var o int
			switch rng.IntN(4) {
			case 0:
				o = rng.IntN(3) // near empty
			case 1:
				o = i % 50 // a ramp
			default:
				o = 10 + rng.IntN(100)
			}
			c := source.Counts{Originals: o, Attempts: o + rng.IntN(1+o*rng.IntN(8))}
			r.Add(source.Snapshot{T: time.Duration(i+1) * 250 * time.Millisecond, Dt: 250 * time.Millisecond, Counts: c})
			want := peakReference(r.timeline())
			if got := r.PeakAmplification(); got != want {
				require.Equal(t, want, got, "run %d tick %d", run, i)
			}
		}
	}
}
