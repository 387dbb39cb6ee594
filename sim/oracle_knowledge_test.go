package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Asserts that every client-knowable bound is a bound below the oracle: in every built-in
// open-loop scenario x seeds 1-3, removing any piece of knowledge never raises the oracle,
// removing all of them never raises any single removal, removing none is the oracle itself, and
// each is the same number on a second computation (it can fail: a removal that enlarged the
// capacity of a step, or a per-client split that served more than the whole).
func TestOracleWithoutIsBelowTheOracle(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	singles := []Knowledge{NoCapacityNow, NoFaultEnd, NoCoordination}
	for _, scn := range scenarios.Catalog() {
		for seed := int64(1); seed <= 3; seed++ {
			full, err := Oracle(scn, seed)
			if errors.Is(err, ErrClosedLoop) || errors.Is(err, ErrControlled) {
				continue
			}
			require.NoError(t, err, scn.Name)
			none, err := OracleWithout(scn, seed, 0)
			require.NoError(t, err)
			assert.Equal(t, full, none, "%s seed %d: removing nothing is the oracle", scn.Name, seed)
			all, err := OracleWithout(scn, seed, ClientKnowable)
			require.NoError(t, err)
			for _, k := range singles {
				b, err := OracleWithout(scn, seed, k)
				require.NoError(t, err)
				again, err := OracleWithout(scn, seed, k)
				require.NoError(t, err)
				assert.Equal(t, b, again, "%s seed %d without %d: deterministic", scn.Name, seed, k)
				assert.Equal(t, full.Arrived, b.Arrived, "%s seed %d without %d: the same originals", scn.Name, seed, k)
				assert.LessOrEqual(t, b.Success, full.Success+1e-6, "%s seed %d without %d: at most the oracle", scn.Name, seed, k)
				assert.LessOrEqual(t, all.Success, b.Success+1e-6, "%s seed %d: all removed at most without %d alone", scn.Name, seed, k)
			}
		}
	}
}

// Asserts each removal's cost by hand where it can be counted.
func TestOracleWithoutByHand(t *testing.T) {
	const seed = 3
	ps := arrivalsPerSecond(t, oracleScenario(), seed)
	tests := []struct {
		name    string
		edit    func(*scenarios.Scenario)
		without Knowledge
		want    float64
		tol     float64
	}{
		{
			// Deadline 20 s, an outage from 10 s to 50 s: the oracle serves the arrivals of
			// 30-60 s at 50 s; learning of the recovery one timeout (2 s) late, the scheduler
			// serves from 52 s, so those of 30-32 s are past their deadline.
			name: "capacity learned one timeout late: a recovery used 2 s late",
			edit: func(s *scenarios.Scenario) {
				s.Deadline = 20 * time.Second
				s.Faults = []scenarios.Fault{{Kind: scenarios.FaultOutage, At: 10 * time.Second, Duration: 40 * time.Second}}
			},
			without: NoCapacityNow,
			want:    float64(sumRange(ps, 0, 10) + sumRange(ps, 32, 60)),
			tol:     2,
		},
		{
			// At light load, no fault: a 1/20 share of 500 req/s is 25 req/s per client, far
			// above its 5 req/s: every original all the same.
			name:    "no coordination at light load: every original",
			without: NoCoordination,
			want:    float64(sumRange(ps, 0, 60)),
			tol:     1e-6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scn := oracleScenario()
			if tt.edit != nil {
				tt.edit(&scn)
			}
			b, err := OracleWithout(scn, seed, tt.without)
			require.NoError(t, err)
			assert.InDelta(t, tt.want, b.Success, tt.tol)
		})
	}
}
