package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
)

// TestSimVsLiveMarkdown asserts that --compare-sim --format markdown prints a header, its rule
// and one row whose cells pair the simulator's figure with live's, the faults joined by "+"
// ("none" without one) and one column a priority, highest first; every run of a scenario prints
// the same header line, which is what lets make live-vs-sim drop the repeats.
func TestSimVsLiveMarkdown(t *testing.T) {
	t.Parallel()
	rec := 11.0
	sum := func(success, p9, p1 float64, retries, shed, crashes int) report.Summary {
		return report.Summary{SuccessRate: success, Amplification: 1.04, PeakAmplification: 1.5, Retries: retries, OriginalsShed: shed, Crashes: crashes,
			RecoverySeconds: &rec, PrioritySuccess: map[string]float64{"9": p9, "1": p1}}
	}
	tests := []struct {
		name   string
		faults []string
		row    string
	}{
		{"one fault", []string{"outage"}, "| outage | cortex | 88.2% / 88.8% | 1.04 / 1.04 | 1.50 / 1.50 | 172 / 158 | 996 / 935 | 11.0s / 11.0s | 0 / 2 | 93.7% / 94.9% | 79.0% / 80.1% |"},
		{"two faults", []string{"outage", "blackhole"}, "| outage+blackhole | cortex |"},
		{"no fault", nil, "| none | cortex |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			d := simVsLive{Scenario: "s", Faults: tt.faults, Strategy: "cortex", Sim: sum(0.8817, 0.937, 0.79, 172, 996, 0), Live: sum(0.8878, 0.949, 0.801, 158, 935, 2)}
			require.NoError(t, writeSimVsLiveMarkdown(&b, d))
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			require.Len(t, lines, 3, b.String())
			assert.Equal(t, "| fault | strategy | success sim / live | amplification | peak amplification | retries | originals shed | recovery | crashes | priority 9 | priority 1 |", lines[0])
			assert.Equal(t, "|---|---|---|---|---|---|---|---|---|---|---|", lines[1])
			assert.True(t, strings.HasPrefix(lines[2], tt.row), lines[2])
		})
	}
}
