package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

const dt = 100 * time.Millisecond

// tick builds the snapshot of tick i (ending at (i+1) x dt).
func tick(i int, c source.Counts, state source.ServiceState) source.Snapshot {
	return source.Snapshot{T: time.Duration(i+1) * dt, Dt: dt, Counts: c,
		Service: source.Service{State: state, Capacity: float64(100 + i), Queue: i}}
}

var testMeta = source.Meta{Scenario: "s", Strategy: "naive", Seed: 3, Tick: dt}

// Asserts that the recorder sums counts over the ticks of a second and averages gauges, one
// row per second, the second in progress included.
func TestRecorderRows(t *testing.T) {
	r := NewRecorder(testMeta)
	for i := range 25 {
		r.Add(tick(i, source.Counts{Originals: 1, Attempts: 2, Retries: 1, Successes: i % 2, Failures: 1 - i%2, Shed: 1}, source.ServiceUp))
	}
	rows := r.Rows()
	require.Len(t, rows, 3)
	for s, want := range []int{10, 10, 5} {
		assert.Equal(t, s, rows[s].T)
		assert.Equal(t, want, rows[s].Originals)
		assert.Equal(t, 2*want, rows[s].Attempts)
		assert.Equal(t, want, rows[s].Successes+rows[s].Failures)
		assert.Equal(t, want, rows[s].Shed)
	}
	assert.InDelta(t, 104.5, rows[0].Capacity, 1e-9, "mean of 100..109")
	assert.InDelta(t, 4.5, rows[0].Queue, 1e-9)
	assert.InDelta(t, 122, rows[2].Capacity, 1e-9, "mean of 120..124")
	assert.Nil(t, rows[0].CPS, "no cortex view: null")
	rows[0].Originals = 99
	assert.Equal(t, 10, r.Rows()[0].Originals, "Rows returns a copy")
}

// Asserts that taking a Summary (or Rows) in the middle of a second changes neither the rows
// recorded afterwards nor the final summary: the second in progress is read, not closed.
func TestSummaryMidSecondLeavesTimeline(t *testing.T) {
	counts := source.Counts{Originals: 2, Attempts: 3, Retries: 1, Successes: 1, Failures: 2}
	probed, plain := NewRecorder(testMeta), NewRecorder(testMeta)
	for i := range 25 {
		probed.Add(tick(i, counts, source.ServiceUp))
		plain.Add(tick(i, counts, source.ServiceUp))
		if i%3 == 0 {
			_ = probed.Summary()
			_ = probed.Rows()
		}
	}
	assert.Equal(t, plain.Rows(), probed.Rows())
	assert.Equal(t, plain.Summary(), probed.Summary())
}

// Asserts that cortex gauges are averaged and the strings are the last tick's.
func TestRecorderCortex(t *testing.T) {
	r := NewRecorder(testMeta)
	for i := range 10 {
		s := tick(i, source.Counts{}, source.ServiceUp)
		s.Cortex = &source.CortexView{CPS: float64(i) / 10, Signals: engine.Signals{F: 1, L: float64(i) / 10},
			State: engine.State(i / 4), Circuit: engine.CircuitState(i % 3)}
		r.Add(s)
	}
	row := r.Rows()[0]
	require.NotNil(t, row.CPS)
	assert.InDelta(t, 0.45, *row.CPS, 1e-9)
	assert.InDelta(t, 1, row.Signals.F, 1e-9)
	assert.InDelta(t, 0.45, row.Signals.L, 1e-9)
	assert.Equal(t, "CRITICAL", *row.State, "the last tick's band")
	assert.Equal(t, "CLOSED", *row.Circuit)
}

// Asserts the summary's rates, amplification, retries and crashes from known ticks.
func TestSummary(t *testing.T) {
	r := NewRecorder(testMeta)
	for i := range 30 {
		c := source.Counts{Originals: 10, Attempts: 10, Completed: 9}
		if i >= 10 && i < 20 { // second 1: 4x amplification, half the retries fail
			c.Attempts, c.Retries, c.RetryFailures, c.Completed = 40, 30, 15, 5
		}
		if i == 15 {
			c.Crashes = 1
		}
		s := tick(i, c, source.ServiceUp)
		s.Classes = []source.ClassTick{{Priority: 9, Arrived: 5, Succeeded: 5}, {Priority: 1, Arrived: 5, Succeeded: c.Completed - 5}}
		r.Add(s)
	}
	s := r.Summary()
	assert.Equal(t, "s", s.Scenario)
	assert.Equal(t, int64(3), s.Seed)
	assert.InDelta(t, (20*9+10*5)/300.0, s.SuccessRate, 1e-4)
	assert.InDelta(t, 4, s.PeakAmplification, 1e-9)
	assert.InDelta(t, 600/300.0, s.Amplification, 1e-4)
	assert.Equal(t, 300, s.Retries)
	assert.Equal(t, 150, s.WastedRetries)
	assert.Equal(t, 1, s.Crashes)
	assert.InDelta(t, 1, s.PrioritySuccess["9"], 1e-9)
	assert.InDelta(t, (20*4+10*0)/150.0, s.PrioritySuccess["1"], 1e-4)
}

// Asserts goodput = originals completed / seconds of the arrival phase: completions during the
// drain count but the drain's time does not; before the arrival phase ends (and in a live run,
// which has none) the time elapsed so far is the divisor. Expectations are computed from the
// ticks fed in.
func TestGoodput(t *testing.T) {
	completedIn := func(i int) int { return 3 + i%4 } // completions of tick i
	tests := []struct {
		name     string
		duration time.Duration // meta.Duration
		ticks    int
		span     time.Duration // the divisor the definition gives
	}{
		{"whole run with a drain", 2 * time.Second, 30, 2 * time.Second},
		{"mid arrival phase", 2 * time.Second, 15, 15 * dt},
		{"live run, no arrival phase", 0, 25, 25 * dt},
		{"nothing elapsed", 2 * time.Second, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := testMeta
			meta.Duration = tt.duration
			r := NewRecorder(meta)
			completed := 0
			for i := range tt.ticks {
				r.Add(tick(i, source.Counts{Originals: 8, Attempts: 8, Completed: completedIn(i)}, source.ServiceUp))
				completed += completedIn(i)
			}
			want := 0.0
			if tt.span > 0 {
				want = float64(completed) / tt.span.Seconds()
			}
			assert.InDelta(t, want, r.Summary().Goodput, 0.005)
		})
	}
}

// Asserts that a near-empty second cannot produce a spurious peak amplification.
func TestPeakIgnoresNearEmptySeconds(t *testing.T) {
	r := NewRecorder(source.Meta{Tick: time.Second})
	for i, c := range []source.Counts{{Originals: 100, Attempts: 150}, {Originals: 100, Attempts: 200}, {Originals: 1, Attempts: 50}} {
		r.Add(source.Snapshot{T: time.Duration(i+1) * time.Second, Dt: time.Second, Counts: c})
	}
	assert.InDelta(t, 2, r.Summary().PeakAmplification, 1e-9)
}

// recoveryRun feeds 1-second ticks: 20 s healthy, a fault from 20 s to 30 s (all attempts
// fail), then a success ratio given by after(second) with the service UP.
func recoveryRun(after func(sec int) (succ, fail int), total int) *Recorder {
	r := NewRecorder(source.Meta{Tick: time.Second})
	for sec := range total {
		s := source.Snapshot{T: time.Duration(sec+1) * time.Second, Dt: time.Second, Service: source.Service{State: source.ServiceUp}}
		switch {
		case sec < 20:
			s.Counts.Successes = 100
		case sec < 30:
			s.Counts.Failures = 100
			s.Faults = []source.ActiveFault{{Kind: scenarios.FaultOutage}}
			s.Service.State = source.ServiceDown
		default:
			s.Counts.Successes, s.Counts.Failures = after(sec)
		}
		r.Add(s)
	}
	return r
}

// Asserts the recovery time of the spec: from the end of the last fault until the 5 s
// success ratio is back to 90% of its pre-fault level and holds for 10 s; null if never.
func TestRecovery(t *testing.T) {
	cases := []struct {
		name  string
		after func(int) (int, int)
		total int
		want  *float64
	}{
		{"immediate", func(int) (int, int) { return 100, 0 }, 60, ptr(5)}, // the 5 s window clears the fault at 34 s
		{"late", func(s int) (int, int) {
			if s < 40 {
				return 10, 90
			}
			return 100, 0
		}, 80, ptr(15)}, // good from 40 s, window clean at 44 s... 45 s
		{"never", func(int) (int, int) { return 50, 50 }, 80, nil},
		{"not held long enough", func(s int) (int, int) {
			if s >= 40 && s < 45 {
				return 100, 0
			}
			return 0, 100
		}, 80, nil},
		{"run ends during the hold", func(int) (int, int) { return 100, 0 }, 40, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := recoveryRun(c.after, c.total).Summary().RecoverySeconds
			if c.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.InDelta(t, *c.want, *got, 1e-9)
		})
	}
}

func ptr(x float64) *float64 { return &x }

// Asserts that a run with no fault and no crash has nothing to recover from (0), and that a
// crash without a fault is used as the disturbance.
func TestRecoveryWithoutFaults(t *testing.T) {
	r := NewRecorder(testMeta)
	for i := range 50 {
		r.Add(tick(i, source.Counts{Successes: 10}, source.ServiceUp))
	}
	require.NotNil(t, r.Summary().RecoverySeconds)
	assert.Zero(t, *r.Summary().RecoverySeconds)

	c := NewRecorder(source.Meta{Tick: time.Second})
	for sec := range 60 {
		s := source.Snapshot{T: time.Duration(sec+1) * time.Second, Dt: time.Second, Service: source.Service{State: source.ServiceUp},
			Counts: source.Counts{Successes: 100}}
		if sec >= 10 && sec < 20 {
			s.Service.State, s.Counts = source.ServiceCrashed, source.Counts{Failures: 100}
		}
		c.Add(s)
	}
	require.NotNil(t, c.Summary().RecoverySeconds)
	assert.InDelta(t, 5, *c.Summary().RecoverySeconds, 1e-9)
}

// Asserts the JSON document's shape: the spec's keys, nulls for non-cortex rows and for a
// never-recovered run, and an empty timeline as [] not null.
func TestWriteJSON(t *testing.T) {
	r := NewRecorder(testMeta)
	r.Add(tick(0, source.Counts{Originals: 1, Attempts: 1}, source.ServiceUp))
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, testMeta, r.Rows(), Summary{Scenario: "s"}))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	for _, k := range []string{"scenario", "strategy", "seed", "dt_ms", "timeline", "summary"} {
		assert.Contains(t, doc, k)
	}
	assert.EqualValues(t, 100, doc["dt_ms"])
	row := doc["timeline"].([]any)[0].(map[string]any)
	for _, k := range []string{"t", "originals", "attempts", "retries", "successes", "failures", "shed", "service", "capacity", "queue", "cps", "state", "circuit", "signals"} {
		assert.Contains(t, row, k)
	}
	assert.Nil(t, row["cps"])
	assert.Nil(t, row["signals"])
	sum := doc["summary"].(map[string]any)
	for _, k := range []string{"scenario", "strategy", "seed", "success_rate", "goodput", "peak_amplification", "amplification", "retries", "wasted_retries", "recovery_seconds", "crashes", "priority_success"} {
		assert.Contains(t, sum, k)
	}
	assert.Nil(t, sum["recovery_seconds"])

	b.Reset()
	require.NoError(t, WriteJSON(&b, testMeta, nil, Summary{}))
	assert.Contains(t, b.String(), `"timeline":[]`)
}

// Asserts the CSV header and that cortex columns are empty for other strategies.
func TestWriteCSV(t *testing.T) {
	cps := 0.5
	st, ci := "CRITICAL", "OPEN"
	rows := []Row{{T: 0, Originals: 3, Service: source.ServiceUp}, {T: 1, Service: source.ServiceWarming, CPS: &cps, State: &st, Circuit: &ci, Signals: &Signals{F: 1}}}
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, rows))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "t,originals,attempts,retries,successes,failures,shed,service,capacity,queue,cps,state,circuit,F,L,Q,B,C", lines[0])
	assert.Equal(t, "0,3,0,0,0,0,0,UP,0,0,,,,,,,,", lines[1])
	assert.Equal(t, "1,0,0,0,0,0,0,WARMING,0,0,0.5,CRITICAL,OPEN,1,0,0,0,0", lines[2])
}

// Asserts that the bench printers print every run, in order, with "never" for a null
// recovery, and that the JSON is {"runs": [...]}.
func TestBenchPrinters(t *testing.T) {
	runs := []Summary{{Scenario: "a", Strategy: "naive", SuccessRate: 0.085, Goodput: 41.25, Oracle: &Oracle{SuccessRate: 0.9307}},
		{Scenario: "a", Strategy: "cortex", RecoverySeconds: ptr(35)}}
	var md, tb, js bytes.Buffer
	require.NoError(t, WriteBenchMarkdown(&md, runs))
	require.NoError(t, WriteBenchTable(&tb, runs))
	require.NoError(t, WriteBenchJSON(&js, runs))
	mdLines := strings.Split(strings.TrimSpace(md.String()), "\n")
	require.Len(t, mdLines, 4)
	assert.True(t, strings.HasPrefix(mdLines[0], "| scenario | strategy | success | oracle | goodput |"))
	assert.True(t, strings.HasPrefix(mdLines[2], "| a | naive | 8.5% | 93.1% | "+GoodputText(runs[0].Goodput)+" |"))
	assert.True(t, strings.HasPrefix(mdLines[3], "| a | cortex | 0.0% | - |"), "no oracle: a dash")
	assert.Contains(t, mdLines[2], "| never |")
	assert.Contains(t, mdLines[3], "| 35.0s |")
	assert.Less(t, strings.Index(tb.String(), "naive"), strings.Index(tb.String(), "cortex"))
	var doc struct{ Runs []map[string]any }
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	require.Len(t, doc.Runs, 2)
	assert.Equal(t, "cortex", doc.Runs[1]["strategy"])
}

// Asserts that Priorities sorts the summary's priorities numerically, highest first (so "10"
// comes before "9", which a string sort would get wrong).
func TestSummaryPriorities(t *testing.T) {
	s := Summary{PrioritySuccess: map[string]float64{"1": 0.2, "10": 0.9, "9": 0.8, "4": 0.5}}
	assert.Equal(t, []string{"10", "9", "4", "1"}, s.Priorities())
	assert.Empty(t, Summary{}.Priorities())
}

// Asserts that SwitchStrategy names every strategy a run used, in order, once each in a row,
// and ignores an empty name or a switch to the strategy already in use.
func TestRecorderSwitchStrategy(t *testing.T) {
	r := NewRecorder(source.Meta{Scenario: "s", Strategy: "cortex"})
	r.SwitchStrategy("cortex")
	r.SwitchStrategy("")
	assert.Equal(t, "cortex", r.Summary().Strategy)
	r.SwitchStrategy("naive")
	r.SwitchStrategy("naive")
	r.SwitchStrategy("budget")
	assert.Equal(t, "cortex+naive+budget", r.Summary().Strategy)
}

// Asserts how a recovery reads: "never" without one, "none needed" for a run with nothing to
// recover from (no fault, no crash: the recorder's 0), seconds otherwise.
func TestRecoveryText(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	assert.Equal(t, "never", RecoveryText(nil))
	assert.Equal(t, "none needed", RecoveryText(v(0)))
	assert.Equal(t, "12.5s", RecoveryText(v(12.5)))

	rec := NewRecorder(source.Meta{Scenario: "x", Tick: time.Second})
	for i := range 30 {
		rec.Add(source.Snapshot{T: time.Duration(i+1) * time.Second, Dt: time.Second,
			Counts: source.Counts{Successes: 10}, Service: source.Service{State: source.ServiceUp}})
	}
	assert.Equal(t, "none needed", RecoveryText(rec.Summary().RecoverySeconds), "no fault, no crash")
}

// Asserts that the failures by cause of a live run reach the summary (failure_causes, by the
// cause's words) and the table (the most frequent first), and that a run without any (every
// simulated run) has neither the key nor the line.
func TestSummaryFailureCauses(t *testing.T) {
	var c source.Counts
	c.FailureCauses[source.FailTimeout] = 3
	c.FailureCauses[source.FailOversize] = 40
	c.FailureCauses[source.FailRedirect] = 3
	r := NewRecorder(testMeta)
	r.Add(tick(0, c, source.ServiceUp))
	r.Add(tick(1, c, source.ServiceUp))
	sum := r.Summary()
	assert.Equal(t, map[string]int{"timeout": 6, "oversize headers": 80, "redirect": 6}, sum.FailureCauses)
	var b bytes.Buffer
	require.NoError(t, WriteTable(&b, source.Meta{Live: true}, r.Rows(), sum))
	assert.Contains(t, b.String(), "failures by cause    80 oversize headers · 6 timeout · 6 redirect\n")

	plain := NewRecorder(testMeta)
	plain.Add(tick(0, source.Counts{Originals: 1}, source.ServiceUp))
	b.Reset()
	require.NoError(t, WriteJSON(&b, testMeta, plain.Rows(), plain.Summary()))
	assert.NotContains(t, b.String(), "failure_causes")
	b.Reset()
	require.NoError(t, WriteTable(&b, testMeta, plain.Rows(), plain.Summary()))
	assert.NotContains(t, b.String(), "failures by cause")
}
