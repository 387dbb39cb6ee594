package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
)

// spikeWindow is what the classes of a run of prefetch-spike (play, then prefetch) get while
// prefetch is at 12x, from 70 s to 110 s.
type spikeWindow struct {
	arrived, succeeded, shed [2]int
	crashes                  int
}

// rate is class c's successes over its arrivals in the window.
func (w spikeWindow) rate(c int) float64 {
	return float64(w.succeeded[c]) / float64(max(1, w.arrived[c]))
}

// prefetchWindow runs prefetch-spike with strategy and sums its classes' ticks from 70 s to
// 110 s.
func prefetchWindow(t *testing.T, strategy string) spikeWindow {
	t.Helper()
	scn, err := scenarios.Lookup("prefetch-spike")
	require.NoError(t, err)
	require.Len(t, scn.Classes, 2, "play and prefetch")
	s, err := sim.New(scn, strategy, scn.Seed)
	require.NoError(t, err)
	var w spikeWindow
	for !s.Done() {
		snap := s.Step()
		if snap.T <= 70*time.Second || snap.T > 110*time.Second {
			continue
		}
		for c := range w.arrived {
			w.arrived[c] += snap.Classes[c].Arrived
			w.succeeded[c] += snap.Classes[c].Succeeded
			w.shed[c] += snap.Classes[c].OriginalsShed
		}
		w.crashes += snap.Counts.Crashes
	}
	return w
}

// fifoDuringSpike asserts what first come, first served gives the classes during the spike:
// about four answers in five to prefetch (its share of the arrivals) and most plays failed.
func fifoDuringSpike(t *testing.T, strategy string) {
	w := prefetchWindow(t, strategy)
	share := float64(w.succeeded[1]) / float64(w.succeeded[0]+w.succeeded[1])
	assert.InDelta(t, 0.8, share, 0.05, "%s: prefetch's share of the answers", strategy)
	assert.Less(t, w.rate(0), 0.5, "%s: most plays fail during the spike", strategy)
}

// prefetchClaims are the claims of prefetch-spike's story and notes.
func prefetchClaims() []storyClaim {
	return []storyClaim{
		{
			scenario: "prefetch-spike",
			claim:    "Served first come, first served, four answers in five go to prefetch and most playback starts fail with them",
			check:    func(t *testing.T, _ func(string) report.Result) { fifoDuringSpike(t, "none") },
		},
		{
			scenario: "prefetch-spike",
			claim:    "First come, first served: four answers in five go to prefetch, and most plays fail with them.",
			each:     func(t *testing.T, strategy string, _ report.Result) { fifoDuringSpike(t, strategy) },
		},
		{
			scenario: "prefetch-spike",
			claim:    "retried naively, the refusals multiply and the API goes down for everyone",
			check: func(t *testing.T, get func(string) report.Result) {
				naive, none := get("naive").Summary, get("none").Summary
				assert.Zero(t, none.Crashes, "without retries the API stays up")
				assert.Positive(t, naive.Crashes, "naive retries crash it")
				for _, p := range []string{"9", "1"} {
					assert.Less(t, naive.PrioritySuccess[p], none.PrioritySuccess[p]-0.1, "priority %s: worse for everyone", p)
				}
			},
		},
		{
			scenario: "prefetch-spike",
			claim:    "Every refusal is retried: the flood tips the API over, and plays fail with everything else.",
			each: func(t *testing.T, strategy string, _ report.Result) {
				w, fifo := prefetchWindow(t, strategy), prefetchWindow(t, "none")
				assert.Positive(t, w.crashes, "%s: the API crashes during the spike", strategy)
				assert.Less(t, w.rate(0), fifo.rate(0)/2, "%s: plays fail with everything else", strategy)
				assert.Less(t, w.rate(1), fifo.rate(1)/2, "%s: prefetch too", strategy)
			},
		},
		{
			scenario: "prefetch-spike",
			claim:    "CORTEX admits plays first: prefetch is shed at the client, and most playback starts get through.",
			each: func(t *testing.T, strategy string, _ report.Result) {
				w := prefetchWindow(t, strategy)
				assert.Greater(t, w.shed[1], 10*max(1, w.shed[0]), "%s: prefetch is what is shed", strategy)
				assert.Greater(t, w.rate(0), 0.85, "%s: most plays get through", strategy)
				assert.Less(t, w.rate(1), w.rate(0)-0.3, "%s: prefetch pays for the spike", strategy)
			},
		},
	}
}
