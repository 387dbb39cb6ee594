package cli

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/racedetect"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// storyRuns runs built-in scenarios headless with their own seed, once per scenario and
// strategy, for the claims below.
type storyRuns map[string]report.Result

func (r storyRuns) get(t *testing.T, scenario, strategy string) report.Result {
	t.Helper()
	key := scenario + "/" + strategy
	if res, ok := r[key]; ok {
		return res
	}
	scn, err := scenarios.Lookup(scenario)
	require.NoError(t, err)
	res, err := simulate(scn, strategy, scn.Seed, sim.Options{})
	require.NoError(t, err)
	r[key] = res
	return res
}

// upUntil reports whether the service was UP at the end of every second before sec.
func upUntil(rows []report.Row, sec int) bool {
	for _, row := range rows[:min(sec, len(rows))] {
		if row.Service != source.ServiceUp {
			return false
		}
	}
	return true
}

// storyClaim is one claim of a built-in scenario's texts and its check against the runs. A
// claim of a note that names its strategies is checked with each, once for every strategy the
// note names (and only those), so that a scoped note cannot be checked against another run.
type storyClaim struct {
	scenario string
	claim    string // a fragment of the story or of a caption
	check    func(t *testing.T, get func(strategy string) report.Result)
	each     func(t *testing.T, strategy string, res report.Result)
}

// classSheds runs a built-in scenario with strategy and returns, for each class, the time of
// the first retry shed by priority (a large value when none was) and how many were shed.
func classSheds(t *testing.T, scenario, strategy string) (first []time.Duration, total []int) {
	t.Helper()
	scn, err := scenarios.Lookup(scenario)
	require.NoError(t, err)
	s, err := sim.New(scn, strategy, scn.Seed)
	require.NoError(t, err)
	first = make([]time.Duration, len(scn.Classes))
	total = make([]int, len(scn.Classes))
	for i := range first {
		first[i] = time.Duration(math.MaxInt64)
	}
	for !s.Done() {
		snap := s.Step()
		for i, c := range snap.Classes {
			if c.Shed > 0 && total[i] == 0 {
				first[i] = snap.T
			}
			total[i] += c.Shed
		}
	}
	return first, total
}

// TestStoryClaims asserts that what the built-in scenarios' stories and captions tell the
// viewer is what a headless run of the scenario shows: each entry quotes a claim of the text
// (which must still be there, so a reworded text gets its check reworded too) and checks it
// against the runs the claim is about.
func TestStoryClaims(t *testing.T) {
	if testing.Short() {
		t.Skip("runs whole scenarios")
	}
	racedetect.SkipWholeRuns(t)
	runs := storyRuns{}
	tests := storyClaims()
	for _, tt := range tests {
		t.Run(tt.scenario+"/"+tt.claim, func(t *testing.T) {
			scn, err := scenarios.Lookup(tt.scenario)
			require.NoError(t, err)
			texts := []string{scn.Story}
			for _, n := range scn.Notes {
				texts = append(texts, n.Text)
			}
			require.Contains(t, strings.Join(texts, "\n"), tt.claim, "the text still makes this claim")
			get := func(strategy string) report.Result { return runs.get(t, tt.scenario, strategy) }
			scoped := noteStrategies(scn, tt.claim)
			if len(scoped) > 0 {
				require.NotNil(t, tt.each, "a note for %v is checked for each of its strategies", scoped)
			}
			if tt.each != nil {
				if len(scoped) == 0 {
					scoped = strategy.Names() // a note for every strategy: checked for every one
				}
				for _, name := range scoped {
					tt.each(t, name, get(name))
				}
			}
			if tt.check != nil {
				tt.check(t, get)
			}
		})
	}
}

// storyClaims lists the claims of the built-in scenarios' stories and notes, each with its
// check against the headless runs.
func storyClaims() []storyClaim {
	tests := []storyClaim{
		{
			scenario: "shared-budget",
			claim:    "One shared quota of 500 runs dry in seconds: the API holds. Fifty quotas would crash it.",
			each: func(t *testing.T, strategy string, shared report.Result) {
				scn, err := scenarios.Lookup("shared-budget")
				require.NoError(t, err)
				require.Equal(t, scenarios.BudgetShared, scn.Budget, "the scenario as written shares its budget")
				assert.Zero(t, shared.Summary.Crashes, "%s, one shared quota: the API holds", strategy)
				assert.Less(t, shared.Summary.Amplification, 1.1, "%s, one shared quota: few retries", strategy)
				scn.Budget = scenarios.BudgetPerClient
				perClient, err := simulate(scn, strategy, scn.Seed, sim.Options{})
				require.NoError(t, err)
				assert.Positive(t, perClient.Summary.Crashes, "%s, fifty quotas: the API crashes", strategy)
				assert.Greater(t, perClient.Summary.Retries, 2*shared.Summary.Retries, "%s, fifty quotas keep paying", strategy)
			},
		},
		{
			scenario: "shared-budget",
			claim:    "No budget at all: the retries push the API past its capacity and it crashes.",
			each: func(t *testing.T, strategy string, res report.Result) {
				assert.Positive(t, res.Summary.Crashes, "%s crashes the API", strategy)
				assert.Greater(t, res.Summary.PeakAmplification, 1.25, "%s: retries add a quarter and more", strategy)
			},
		},
		{
			scenario: "shared-budget",
			claim:    "The errors stop. The API never crashed, and it answers again at once.",
			each: func(t *testing.T, strategy string, res report.Result) {
				assert.Zero(t, res.Summary.Crashes, strategy)
				require.NotNil(t, res.Summary.RecoverySeconds, strategy)
				assert.LessOrEqual(t, *res.Summary.RecoverySeconds, 5.0, "%s recovers within seconds", strategy)
			},
		},
		{
			scenario: "black-friday",
			claim:    "sends far fewer retries into the recovering database",
			check: func(t *testing.T, get func(string) report.Result) {
				assert.Less(t, get("cortex").Summary.Amplification, get("naive").Summary.Amplification/2)
			},
		},
		{
			scenario: "black-friday",
			claim:    "Naive and backoff retries keep it down: each restart meets the backlog and crashes again.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Nil(t, res.Summary.RecoverySeconds, "%s never recovers", name)
				assert.GreaterOrEqual(t, res.Summary.Crashes, 2, "%s: crash, restart, crash", name)
			},
		},
		{
			scenario: "black-friday",
			claim:    "The DB is back: with fewer retries it warmed up and serves every class again.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.NotNil(t, res.Summary.RecoverySeconds, "%s: the DB comes back", name)
				for _, row := range res.Timeline[120:160] {
					assert.Equal(t, source.ServiceUp, row.Service, "%s, t=%ds: UP", name, row.T)
				}
			},
		},
		{
			scenario: "black-friday",
			claim:    "while CORTEX opens its circuits within seconds",
			check: func(t *testing.T, get func(string) report.Result) {
				row := get("cortex").Timeline[65] // the outage began at t=60s
				require.NotNil(t, row.Circuit)
				assert.Equal(t, "OPEN", *row.Circuit, "cortex: circuits open 5 s into the outage")
			},
		},
		{
			scenario: "dns-crash",
			claim:    "with nothing succeeding its retry budget does not refill: it holds the",
			check: func(t *testing.T, get func(string) report.Result) {
				assert.Less(t, get("cortex").Summary.Amplification, 1.1, "cortex: about one attempt per request")
				assert.Zero(t, get("cortex").Summary.Crashes)
				assert.Positive(t, get("naive").Summary.Crashes)
			},
		},
		{
			scenario: "slow-ledger",
			claim:    "CORTEX refuses only the analytics exports and profile updates the ledger cannot complete, so settlement keeps flowing",
			check: func(t *testing.T, get func(string) report.Result) {
				none, cortex, breaker := get("none").Summary, get("cortex").Summary, get("breaker").Summary
				assert.Greater(t, breaker.SuccessRate, none.SuccessRate+0.03, "the breaker, refusing originals, does better than none")
				assert.Greater(t, cortex.SuccessRate, none.SuccessRate+0.03, "so does cortex")
				assert.Greater(t, cortex.PrioritySuccess["4"], cortex.PrioritySuccess["1"]+0.03, "cortex: settlement ahead of the exports")
				assert.Greater(t, cortex.PrioritySuccess["4"], breaker.PrioritySuccess["4"], "cortex: settlement ahead of the breaker's")
			},
		},
		{
			scenario: "dns-crash",
			claim:    "the clients send 4x the attempts, all hanging; the service idles",
			each: func(t *testing.T, name string, res report.Result) {
				attempts, originals := 0, 0
				for _, row := range res.Timeline[45:56] {
					attempts += row.Attempts
					originals += row.Originals
				}
				assert.InDelta(t, 4, float64(attempts)/float64(originals), 0.3, name)
			},
		},
		{
			scenario: "dns-crash",
			claim:    "all hanging; the service idles",
			each: func(t *testing.T, name string, res report.Result) {
				for _, row := range res.Timeline[45:56] {
					assert.Zero(t, row.Successes, "%s, t=%ds: nothing answers", name, row.T)
					assert.Zero(t, row.Queue, "%s, t=%ds: the service idles", name, row.T)
				}
			},
		},
		{
			scenario: "dns-crash",
			claim:    "every attempt hangs until its timeout; the service idles",
			each: func(t *testing.T, name string, res report.Result) {
				for _, row := range res.Timeline[45:56] {
					assert.Zero(t, row.Successes, "%s, t=%ds: nothing answers", name, row.T)
					assert.Zero(t, row.Queue, "%s, t=%ds: the service idles", name, row.T)
				}
			},
		},
		{
			scenario: "metastable",
			claim:    "Without retries the queue drained in about ten seconds.",
			each: func(t *testing.T, name string, res report.Result) {
				rows := res.Timeline
				assert.Greater(t, rows[35].Queue, 100.0, "%s: a queue at the end of the trigger", name)
				assert.Less(t, rows[48].Queue, 5.0, "%s: drained about ten seconds later", name)
			},
		},
		{
			scenario: "metastable",
			claim:    "Still broken, with no fault at all. This is the metastable state.",
			each: func(t *testing.T, strategy string, res report.Result) {
				for _, row := range res.Timeline[80:110] {
					assert.Less(t, row.Successes, row.Originals/10, "%s, t=%ds: almost nothing succeeds", strategy, row.T)
					assert.Greater(t, row.Queue, 900.0, "%s, t=%ds: the queue stays full", strategy, row.T)
				}
			},
		},
		{
			scenario: "metastable",
			claim:    "With retries it does not: each timeout adds an attempt and the server wastes work.",
			each: func(t *testing.T, strategy string, res report.Result) {
				assert.Greater(t, res.Timeline[50].Queue, 900.0, "%s: the queue has not drained at t=50s", strategy)
				retries := 0
				for _, row := range res.Timeline[35:50] {
					retries += row.Retries
				}
				assert.Positive(t, retries, "%s: retries after the trigger", strategy)
			},
		},
		{
			scenario: "metastable",
			claim:    "CORTEX held at the clients what the slowed service could not take, and sent no retry storm.",
			each: func(t *testing.T, strategy string, res report.Result) {
				retries, originals, attempts := 0, 0, 0
				for _, row := range res.Timeline[30:50] {
					retries += row.Retries
					originals += row.Originals
					attempts += row.Attempts
				}
				assert.Less(t, float64(retries), 0.05*float64(originals), "%s: under 5%% of attempts are retries", strategy)
				// What was held is sent once the service is fast again, within these 20 s: each held
				// request once, with the few retries, at most a twentieth above the new requests, no
				// storm. (It was "fewer attempts than new requests", which held only while the
				// release after the blip was still unfinished at 50 s: 2,976 attempts for 3,001
				// new requests, the queue drained at 55 s; releasing into the capacity the service
				// completes, 3,067, drained at 52 s, the same 99.2% success.)
				assert.Less(t, float64(attempts), 1.05*float64(originals), "%s: the held work sent once, no storm", strategy)
				blip, blipNew := 0, 0
				for _, row := range res.Timeline[31:36] {
					blip += row.Attempts
					blipNew += row.Originals
				}
				assert.Less(t, blip, blipNew/2, "%s: during the blip the clients hold what the service cannot take", strategy)
				lowest := 200.0
				for _, row := range res.Timeline[31:36] {
					lowest = min(lowest, float64(row.Attempts))
				}
				assert.Less(t, lowest, 20.0, "%s: during the blip the clients send a trickle (they probe)", strategy)
			},
		},
		{
			scenario: "metastable",
			claim:    "No metastable state in this run: the queue is empty and requests succeed again.",
			each: func(t *testing.T, strategy string, res report.Result) {
				for _, row := range res.Timeline[80:110] {
					assert.Less(t, row.Queue, 5.0, "%s, t=%ds: the queue is empty", strategy, row.T)
					assert.GreaterOrEqual(t, row.Successes, row.Originals*9/10, "%s, t=%ds: requests succeed", strategy, row.T)
				}
			},
		},
		{
			scenario: "black-friday",
			claim:    "sheds analytics and search first",
			check: func(t *testing.T, _ func(string) report.Result) {
				first, total := classSheds(t, "black-friday", "cortex")
				require.Len(t, total, 3, "payment, search, analytics")
				assert.Zero(t, total[0], "cortex: no payment retry shed")
				require.Positive(t, total[1], "cortex: search retries shed")
				require.Positive(t, total[2], "cortex: analytics retries shed")
				assert.Less(t, first[2], first[1], "cortex: analytics shed before search")
				assert.Greater(t, total[2], total[1], "cortex: more analytics than search retries shed")
			},
		},
		{
			scenario: "food-delivery",
			claim:    "but it is serving again before the rush ends",
			check: func(t *testing.T, get func(string) report.Result) {
				rows := get("cortex").Timeline
				require.Greater(t, len(rows), 179)
				assert.Equal(t, source.ServiceUp, rows[179].Service, "cortex: UP in the last second of arrivals")
				assert.Nil(t, get("naive").Summary.RecoverySeconds, "naive never recovers")
			},
		},
		{
			scenario: "upi-salary-day",
			claim:    "without retries the API runs saturated but stays up",
			check: func(t *testing.T, get func(string) report.Result) {
				assert.Zero(t, get("none").Summary.Crashes)
				assert.GreaterOrEqual(t, get("naive").Summary.Crashes, 2, "naive crashes, and again after the restart")
			},
		},
		{
			scenario: "upi-salary-day",
			claim:    "the retries, not the surge, brought the API down",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Positive(t, res.Summary.Crashes, "%s: the API went down", name)
				assert.Greater(t, storyRun(t, "upi-salary-day", "none").Summary.SuccessRate, res.Summary.SuccessRate, "%s: below none's success", name)
			},
			check: func(t *testing.T, get func(string) report.Result) {
				assert.Zero(t, get("none").Summary.Crashes, "the surge alone does not")
			},
		},
		{
			scenario: "upi-salary-day",
			claim:    "the API held through the surge, as it does without retries",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Zero(t, res.Summary.Crashes, "%s: no crash", name)
			},
		},
		{
			scenario: "article-benchmark",
			claim:    "The fault ends. The service never went down",
			each: func(t *testing.T, name string, res report.Result) {
				assert.True(t, upUntil(res.Timeline, 60), "%s: the service is UP until the fault ends", name)
			},
		},
		{
			scenario: "api-throttling",
			claim:    "most retries are wasted",
			check: func(t *testing.T, get func(string) report.Result) {
				for _, s := range []string{"naive", "backoff"} {
					sum := get(s).Summary
					assert.Greater(t, float64(sum.WastedRetries), 0.5*float64(sum.Retries), s)
				}
			},
		},
		{
			scenario: "api-throttling",
			claim:    "with naive retries a third of logins fail, while CORTEX sheds bulk marketing",
			check: func(t *testing.T, get func(string) report.Result) {
				naive, cortex := get("naive").Summary.PrioritySuccess, get("cortex").Summary.PrioritySuccess
				assert.InDelta(t, 0.33, 1-naive["9"], 0.08, "naive: OTP failure rate")
				assert.Less(t, math.Abs(naive["9"]-naive["1"]), 0.05, "naive: OTPs get no bigger share than marketing")
				assert.Greater(t, cortex["9"], naive["9"]+0.1, "cortex keeps OTPs flowing")
			},
		},
		{
			scenario: "spotty-network",
			claim:    "treat bills and inventory sync the same and double the traffic, while CORTEX spends its few",
			check: func(t *testing.T, get func(string) report.Result) {
				naive, cortex := get("naive").Summary, get("cortex").Summary
				assert.Less(t, math.Abs(naive.PrioritySuccess["9"]-naive.PrioritySuccess["2"]), 0.05, "naive: billing and sync alike")
				assert.Greater(t, naive.Amplification, 1.8, "naive: about twice the traffic")
				assert.Less(t, cortex.Amplification, 1.2, "cortex: a few retries")
				assert.Greater(t, cortex.PrioritySuccess["9"], cortex.PrioritySuccess["2"]+0.04, "cortex: bills ahead of sync")
			},
		},
		{
			scenario: "slow-ledger",
			claim:    "Watch the latency signal L: it rises while the error rate is still zero",
			check: func(t *testing.T, get func(string) report.Result) {
				rows := get("cortex").Timeline
				require.Greater(t, len(rows), 60)
				require.NotNil(t, rows[25].Signals)
				peak := 0.0
				for _, row := range rows[30:60] { // the first slow query, before the worse one
					require.NotNil(t, row.Signals)
					assert.Zero(t, row.Failures, "no errors yet at t=%ds", row.T)
					peak = max(peak, row.Signals.L)
				}
				assert.Greater(t, peak, rows[25].Signals.L+0.08, "L rose after the slow query")
			},
		},
		{
			scenario: "slow-ledger",
			claim:    "the retries, not the slow query, decided those",
			check: func(t *testing.T, get func(string) report.Result) {
				assert.Zero(t, get("none").Summary.Crashes)
				assert.NotNil(t, get("none").Summary.RecoverySeconds)
				assert.Positive(t, get("naive").Summary.Crashes)
				assert.Nil(t, get("naive").Summary.RecoverySeconds)
			},
			each: func(t *testing.T, name string, res report.Result) {
				none := storyRun(t, "slow-ledger", "none").Summary
				crashed := res.Summary.Crashes > 0 || res.Summary.RecoverySeconds == nil
				assert.True(t, !crashed || none.Crashes == 0, "%s: where the run crashed, none did not: its retries did it", name)
			},
		},
	}
	for _, loop := range []struct {
		scenario, claim string
		lowers          bool
	}{
		{"closed-loop", "So backoff lowers the load here: the population throttles itself.", true},
		{"open-loop", "Backoff spreads retries out but does not remove them: amplification stays high.", false},
	} {
		tests = append(tests, storyClaim{scenario: loop.scenario, claim: loop.claim, each: func(t *testing.T, name string, res report.Result) {
			rate := func(res report.Result) float64 { // attempts per second during the outage
				n := 0
				for _, row := range res.Timeline[45:65] {
					n += row.Attempts
				}
				return float64(n) / 20
			}
			naive := storyRun(t, loop.scenario, "naive")
			if loop.lowers {
				assert.Less(t, rate(res), 0.85*rate(naive), "%s sends less than naive", name)
			} else {
				assert.Greater(t, rate(res), 0.95*rate(naive), "%s sends as much as naive", name)
			}
		}})
	}
	return append(append(tests, noteClaims()...), prefetchClaims()...)
}

// noteStrategies returns the strategies of the note of scn whose text holds claim: those it
// names, or every strategy but those it excepts; nil for a claim of the story or of a note for
// every strategy.
func noteStrategies(scn scenarios.Scenario, claim string) []string {
	for _, n := range scn.Notes {
		if !strings.Contains(n.Text, claim) {
			continue
		}
		if len(n.Except) == 0 {
			return n.Strategies
		}
		var out []string
		for _, name := range strategy.Names() {
			if n.For(name) {
				out = append(out, name)
			}
		}
		return out
	}
	return nil
}

// storyRun runs built-in scenario with strategy from its own seed, for a claim checked for each
// strategy against another's run (none's, naive's).
func storyRun(t *testing.T, scenario, strategy string) report.Result {
	t.Helper()
	scn, err := scenarios.Lookup(scenario)
	require.NoError(t, err)
	res, err := simulate(scn, strategy, scn.Seed, sim.Options{})
	require.NoError(t, err)
	return res
}
