package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Asserts that keeping the decisions changes nothing in a run: the same snapshots, byte for
// byte, for cortex (whose engine then explains each decision) and for a strategy that does not
// explain; and that the ring holds the latest decisions, oldest first, each as counted, with the
// engine's checks for cortex only.
func TestKeepDecisionsChangesNothing(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	for _, strat := range []string{"cortex", "breaker"} {
		t.Run(strat, func(t *testing.T) {
			plain, err := New(scn, strat, scn.Seed)
			require.NoError(t, err)
			kept, err := New(scn, strat, scn.Seed)
			require.NoError(t, err)
			kept.KeepDecisions(64)
			var decided [5]int
			refused := 0 // new requests refused, the first time they asked or after a hold
			for !plain.Done() {
				a, b := plain.Step(), kept.Step()
				require.Equal(t, a, b, "t=%s", a.T)
				want := 0
				for i, n := range b.Counts.Decisions {
					decided[i] += n
					want += min(decided[i], 64)
				}
				refused += b.Counts.LocalRejects - b.Counts.RetryRefused
				recent := kept.RecentDecisions()
				admissions := 0 // new requests that did not go at once: shed, refused or held (cortex)
				for _, d := range recent {
					if d.Failure == "new" {
						admissions++
					}
				}
				require.Equal(t, want, len(recent)-admissions, "the latest 64 of each action")
				require.LessOrEqual(t, admissions, 64, "and the latest 64 new requests that did not go")
				if refused > 0 {
					require.Positive(t, admissions, "a refused new request is kept")
				}
				if strat != "cortex" {
					require.Equal(t, min(refused, 64), admissions, "a strategy that holds nothing keeps each refusal")
				}
				for i := 1; i < len(recent); i++ {
					require.Less(t, recent[i-1].Seq, recent[i].Seq, "oldest first")
					require.LessOrEqual(t, recent[i-1].T, recent[i].T, "oldest first")
				}
				if len(recent) > 0 {
					last := recent[len(recent)-1]
					assert.LessOrEqual(t, last.T, b.T)
					assert.Equal(t, strat == "cortex", last.Explained)
					if last.Explained {
						assert.Equal(t, last.Action, last.Why.Decision.Action)
						assert.Equal(t, last.Reason, last.Why.Decision.Reason)
					}
					if last.Action != engine.Retry {
						assert.Zero(t, last.Delay, "only a retry has a delay")
					}
				}
			}
			assert.Nil(t, plain.RecentDecisions(), "not kept unless asked")
			require.NoError(t, kept.Control(source.Restart()))
			assert.Empty(t, kept.RecentDecisions(), "a restart forgets them")
		})
	}
}

// Asserts that the dashboard's source keeps the decisions (source.Inspector).
func TestSourceKeepsDecisions(t *testing.T) {
	scn, err := scenarios.Lookup("metastable")
	require.NoError(t, err)
	src, err := NewSource(scn, "cortex", scn.Seed)
	require.NoError(t, err)
	in, ok := src.(source.Inspector)
	require.True(t, ok)
	src.Advance(scn.Duration)
	recent := in.RecentDecisions()
	actions, admissions := map[engine.Action]int{}, 0
	for _, d := range recent {
		if d.Failure == "new" {
			admissions++
			assert.True(t, d.Why.Original, "an admission is explained as one")
		} else {
			actions[d.Action]++
		}
		assert.True(t, d.Explained)
	}
	assert.Positive(t, actions[engine.Retry], "the few retries of the run are kept beside the many rejections")
	assert.Equal(t, DecisionsKept, actions[engine.Reject])
	assert.Equal(t, DecisionsKept, admissions, "and the latest new requests shed, in a ring of their own")
}
