package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/decisions"
)

// sumParts adds up the numbers of a decisions.Parts line before its "; +N by tiers" tail.
func sumParts(t *testing.T, s string) int {
	t.Helper()
	if i := regexp.MustCompile(`; \+`).FindStringIndex(s); i != nil {
		s = s[:i[0]]
	}
	sum := 0
	for _, m := range regexp.MustCompile(`\d+`).FindAllString(s, -1) {
		n, err := strconv.Atoi(m)
		require.NoError(t, err)
		sum += n
	}
	return sum
}

// Asserts that the decisions panel splits each action's total into parts that add up to it:
// REJECT into its reasons (the recovery ramp included, the gap the issue saw between REJECT and
// shed + budget), CIRCUIT_OPEN into emergency, circuit and probes busy, and RETRY into the
// retries sent (the summary's retries less the tiers'), waiting, refused when due and dropped at
// the deadline; the tiers' retries are named apart, with the summary's total.
func TestDecisionsReasonsAddUp(t *testing.T) {
	var c source.Counts
	c.Decisions = [5]int{4190, 22411, 57, 12, 3}
	c.Reasons[source.ReasonShed], c.Reasons[source.ReasonBudget], c.Reasons[source.ReasonRamp] = 9387, 12753, 271
	c.Reasons[source.ReasonEmergency], c.Reasons[source.ReasonCircuitOpen], c.Reasons[source.ReasonProbesBusy] = 7, 40, 10
	c.Retries, c.RetryRefused, c.RetryLate, c.RetryExpired = 3916, 200, 50, 4
	pending := 4190 - 3916 - 200 - 54
	tot := report.Totals{Counts: c}

	reject := decisions.Parts(engine.Reject, tot, pending)
	assert.Equal(t, "shed 9387 · ramp 271 · budget 12753", reject)
	assert.Equal(t, c.Decisions[engine.Reject], sumParts(t, reject))

	circuit := decisions.Parts(engine.CircuitOpen, tot, pending)
	assert.Equal(t, c.Decisions[engine.CircuitOpen], sumParts(t, circuit))

	retry := decisions.Parts(engine.Retry, tot, pending)
	assert.Equal(t, "sent 3916 · waiting 20 · refused when due 200 · past deadline 54", retry)
	assert.Equal(t, c.Decisions[engine.Retry], sumParts(t, retry))

	assert.Empty(t, decisions.Parts(engine.MaxRetriesExceeded, tot, pending), "nothing to split")

	c.TierRetries, c.Retries = 7007, 3916+7007
	retry = decisions.Parts(engine.Retry, report.Totals{Counts: c}, pending)
	assert.Contains(t, retry, "sent 3916")
	assert.Contains(t, retry, "+7007 by tiers = 10923 retries")
	assert.Equal(t, c.Decisions[engine.Retry], sumParts(t, retry))
}

// Asserts, on whole runs of the real simulator in the dashboard, that the decisions panel's
// totals reconcile with the run's summary: RETRY's parts add up to RETRY and its "sent" is the
// summary's retries; REJECT's parts add up to REJECT. The runs are the cases:
// metastable with the article's parameters (RETRY 4190 against 3916 retries: the other 274
// would have waited past their deadline) and black-friday with cortex (the recovery ramp's
// REJECTs beside shed and budget).
func TestDecisionsReconcileWithSummary(t *testing.T) {
	racedetect.SkipWholeRuns(t)
	for _, c := range []struct{ scenario, strategy string }{{"metastable", "cortex-article"}, {"black-friday", "cortex"}} {
		t.Run(c.scenario+"/"+c.strategy, func(t *testing.T) {
			scn, err := scenarios.Lookup(c.scenario)
			require.NoError(t, err)
			m := New(Options{Keys: keymap.Default(), Factory: sim.NewSource, Scenario: &scn, Strategy: c.strategy, ExportDir: t.TempDir()})
			m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
			m.setSpeed(len(speeds) - 1)
			for range 10000 {
				if m.done() {
					break
				}
				advanceFrames(m, 1)
			}
			require.True(t, m.done())
			r := m.fr.runs[0]
			tot, sum := r.hist.Totals(), r.rec.Summary()
			p := decisionsCell{decisions.New(common.DefaultStyles())}
			p.SetSize(44, 12)
			p, _ = p.Update(frameMsg{f: &m.fr})
			lines := strings.Split(ansi.Strip(p.View()), "\n")
			parts := func(action string) string {
				for i, l := range lines {
					if strings.HasPrefix(strings.TrimLeft(l, "│"), action+" ") && i+1 < len(lines) && strings.Contains(lines[i+1], "└") {
						return strings.Trim(lines[i+1], "│ └")
					}
				}
				return ""
			}
			retry := parts("RETRY")
			require.NotEmpty(t, retry)
			assert.Equal(t, tot.Decisions[engine.Retry], sumParts(t, retry), "RETRY's parts: %q", retry)
			assert.Contains(t, retry, fmt.Sprintf("sent %d", sum.Retries), "sent is the summary's retries")
			reject := parts("REJECT")
			require.NotEmpty(t, reject)
			assert.Equal(t, tot.Decisions[engine.Reject], sumParts(t, reject), "REJECT's parts: %q", reject)
			t.Logf("RETRY %d: %s; REJECT %d: %s; summary retries %d", tot.Decisions[engine.Retry], retry, tot.Decisions[engine.Reject], reject, sum.Retries)
		})
	}
}
