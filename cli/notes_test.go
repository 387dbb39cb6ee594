package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/sim"
	"github.com/cortex-tui/cortex-tui/source"
)

// noSetupClaim lists the notes of the built-in scenarios that make no claim about what a run
// does: they restate the scenario file (its rates, capacity, faults and load, which the
// simulator takes as given), ask the viewer a question, or say what to compare. Every other
// note must be checked by a claim of storyClaims (TestEveryNoteIsChecked). Each entry is a
// fragment of the note and why it needs no check.
var noSetupClaim = map[string]string{
	"The campaign starts: 500 messages/s plus 20 OTPs/s":             "the file's rates",
	"The API rate-limits at 300 req/s and answers the rest with 429": "the file's throttle fault",
	"Watch OTP success: a login code that arrives a minute late":     "what to watch",
	"The limit lifts. Compare OTP and marketing success":             "the fault's end; what to compare",
	"100% latency failure: every attempt now hangs until its 2 s":    "the file's fault and timeout",
	"Compare wasted retries and recovery time across strategies":     "what to compare",
	"The DB restarts cold at 30% capacity. Watch whether":            "the file's restart delay and warm start; a question",
	"Sale over. Compare the classes":                                 "the end of the arrivals; what to compare",
	"300 users, each waiting for an answer, then thinking 1 s":       "the file's population",
	"The service goes down. A user whose request is retrying":        "the file's outage; how a closed loop works",
	"The service is back. Compare with open-loop":                    "the outage's end; what to compare",
	"DNS fails. Attempts hang for the full 2 s timeout":              "the file's blackhole and timeout",
	"DNS is back. The cold service meets the whole backlog":          "the fault's end; a question",
	"6 pm: 250 req/s of orders, tracking and menus":                  "the file's rates and capacity",
	"The rush builds. Utilisation climbs towards 95%":                "the file's load profile",
	"At the peak, the orders DB crashes. Every client starts":        "the file's outage",
	"At the peak, the orders DB crashes. Nothing is retried":         "the file's outage; none never retries",
	"Watch originals against attempts: a user asks again only once":  "how a closed loop works; what to watch",
	"a request costs up to 4 attempts at one layer, 4 x 4 = 16":      "arithmetic on the file's layers: 1 + 3 attempts per layer",
	"The trigger is over and the service is fast again. Does the":    "the fault's end; a question",
	"Compare crashes and retries with budget under --budget":         "what to compare",
	"The DB restarts at 30% capacity into peak load":                 "the file's warm start and load",
	"Check orders' success rate against menus'":                      "a question",
	"The trigger: a 5 s latency blip. Capacity drops to 40 req/s":    "the file's fault: 10 workers / 250 ms",
	"The fix is not more capacity later; it is fewer retries now.":   "the moral of the scenario-scoped notes checked above it",
	"The service goes down. New requests keep arriving":              "the file's outage; how an open loop works",
	"The service is back, cold, under new load":                      "the outage's end",
	"Settlements, profile updates and analytics exports: 360 req/s":  "the file's rates and capacity",
	"The query is fixed. Is the ledger back":                         "the fault's end; a question",
	"Tablets sync 30 bills/s and 90 inventory updates/s":             "the file's rates",
	"Latency spike: +1.5 s per call.":                                "the file's fault",
	"Packet loss: 40% of calls fail.":                                "the file's fault",
	"A short blackout: nothing answers for 8 s":                      "the file's fault and timeout",
	"Another latency spike. Is billing still getting through":        "the file's fault; a question",
	"The network settles. Compare billing and inventory-sync":        "what to compare",
	"200 req/s through two retrying layers to a service":             "the file's rates, layers and capacity",
	"The database fails half its calls. Both layers start":           "the file's fault",
	"The errors stop. Is the service still up":                       "the fault's end; a question",
	"Lesson: retry at one layer, or make the layers share one":       "advice",
	"An ordinary morning: 240 req/s against a UPI API":               "the file's rates and capacity",
	"Salaries land. Traffic climbs towards 1.6x capacity":            "the file's load profile",
	"At 1.6x, a third of requests must fail.":                        "arithmetic on the file's load: 1 - 1/1.6",
	"The surge eases. Does the API come back":                        "the load's end; a question",
	"The payment DB crashes. Every call fails fast":                  "the file's outage (every strategy's retries are checked below)",
	"400 req/s from fifty pods against 500 req/s of capacity":        "the file's rates and capacity",
	"Half the answers are 5xx for 30 s, and every retry is load":     "the file's fault and load; arithmetic",
	"The query gets worse: +60 ms.":                                  "the file's fault (the queue's growth is checked below)",
	"Evening: 150 plays/s and 50 prefetches/s against":               "the file's rates and capacity",
	"An outage elsewhere is fixed: every device flushes":             "the file's class load: prefetch at 12x",
	"750 req/s against 300, and still only 150 of them":              "arithmetic on the file's loads; a question",
	"The backlog drains: prefetch falls back to its own rate":        "the file's class load",
	"Compare play and prefetch: Netflix kept plays above 99.4%":      "what to compare; what Netflix reported",
}

// TestEveryNoteIsChecked asserts that no caption can promise what the run does not do: every
// note of every built-in scenario is either checked by a claim of storyClaims (which runs it
// for the strategies the note is for) or listed in noSetupClaim as making no claim about the
// run; and that every entry of noSetupClaim still names a note.
func TestEveryNoteIsChecked(t *testing.T) {
	claims := storyClaims()
	used := map[string]bool{}
	for _, scn := range scenarios.Catalog() {
		for _, n := range scn.Notes {
			checked := false
			for _, c := range claims {
				if c.scenario == scn.Name && strings.Contains(n.Text, c.claim) {
					checked = true
				}
			}
			for frag := range noSetupClaim {
				if strings.Contains(n.Text, frag) {
					checked = true
					used[frag] = true
				}
			}
			assert.True(t, checked, "%s, note at %s: %q makes a claim no test checks (add one to storyClaims, or to noSetupClaim if it only restates the file)", scn.Name, scenarios.FormatDuration(n.At), n.Text)
		}
	}
	for frag := range noSetupClaim {
		assert.True(t, used[frag], "noSetupClaim names no note any more: %q", frag)
	}
}

// perSecond is the mean of a timeline column over rows [from, to).
func perSecond(rows []report.Row, from, to int, col func(report.Row) float64) float64 {
	sum := 0.0
	for _, r := range rows[from:to] {
		sum += col(r)
	}
	return sum / float64(to-from)
}

// healthy asserts that res's service is UP and nearly every request succeeds until sec.
func healthy(t *testing.T, name string, res report.Result, sec int) {
	t.Helper()
	for _, row := range res.Timeline[1:sec] {
		assert.Equal(t, source.ServiceUp, row.Service, "%s, t=%ds: UP", name, row.T)
		assert.Zero(t, row.Failures, "%s, t=%ds: nothing fails", name, row.T)
	}
}

// noteClaims are the claims of the built-in notes that the story claims above do not cover.
func noteClaims() []storyClaim {
	return []storyClaim{
		{
			scenario: "black-friday",
			claim:    "The sale opens: 350 req/s against a payment DB that serves 500. Everything is green.",
			each:     func(t *testing.T, name string, res report.Result) { healthy(t, name, res, 40) },
		},
		{
			scenario: "black-friday",
			claim:    "Traffic ramps towards 1.5x. The DB is near its limit; latency creeps up.",
			each: func(t *testing.T, name string, res report.Result) {
				rows := res.Timeline
				assert.Greater(t, rows[55].Queue, 50.0, "%s: a queue builds: the DB is near its limit", name)
				assert.Greater(t, rows[55].Queue, rows[35].Queue, "%s: and it grows", name)
			},
			check: func(t *testing.T, get func(string) report.Result) {
				rows := get("cortex").Timeline
				require.NotNil(t, rows[35].Signals)
				require.NotNil(t, rows[55].Signals)
				assert.Greater(t, rows[55].Signals.L, rows[35].Signals.L+0.2, "cortex: the latency signal rises")
				assert.Greater(t, rows[55].Queue, 50.0, "a queue builds: the DB is near its limit")
			},
		},
		{
			scenario: "black-friday",
			claim:    "Every call fails fast, and every client starts retrying.",
			each: func(t *testing.T, name string, res report.Result) {
				retries := 0
				for _, row := range res.Timeline[60:66] { // the outage began at t=60s
					if row.T > 60 {
						assert.Zero(t, row.Successes, "%s, t=%ds: every call fails", name, row.T)
					}
					retries += row.Retries
				}
				assert.Positive(t, retries, "%s: retries in the outage's first seconds", name)
			},
		},
		{
			scenario: "black-friday",
			claim:    "Every call fails fast; CORTEX's circuits open and hold retries back.",
			each: func(t *testing.T, name string, res report.Result) {
				retries, originals := 0, 0
				for _, row := range res.Timeline[60:70] {
					retries += row.Retries
					originals += row.Originals
				}
				assert.Less(t, retries, originals/20, "%s: few retries in the outage's first seconds", name)
			},
		},
		{
			scenario: "black-friday",
			claim:    "Every call fails fast, and nothing is retried: each failure is final.",
			each: func(t *testing.T, name string, res report.Result) {
				for _, row := range res.Timeline[60:90] {
					assert.Zero(t, row.Retries, "%s, t=%ds: no retry", name, row.T)
				}
			},
		},
		{
			scenario: "black-friday",
			claim:    "CORTEX shed analytics, then search, while the DB could not serve them: payments end ahead.",
			each: func(t *testing.T, name string, res report.Result) {
				p := res.Summary.PrioritySuccess
				assert.Greater(t, p["9"], p["4"]+0.01, "%s: payment ahead of search", name)
				assert.Greater(t, p["4"], p["1"]+0.03, "%s: search ahead of analytics", name)
			},
			check: func(t *testing.T, get func(string) report.Result) {
				assert.GreaterOrEqual(t, get("cortex").Summary.SuccessRate, get("none").Summary.SuccessRate-0.01, "shedding costs no success: cortex no worse than none")
			},
		},
		{
			scenario: "api-throttling",
			claim:    "Every 429 is retried: retries now compete with new messages for the same 300 slots.",
			each: func(t *testing.T, name string, res report.Result) {
				rows := res.Timeline
				assert.Greater(t, perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Retries) }),
					0.5*perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Failures) }), "%s: most failures retried", name)
				assert.Greater(t, perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Retries) }),
					0.5*perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Originals) }), "%s: retries are a large share of the traffic", name)
			},
		},
		{
			scenario: "api-throttling",
			claim:    "CORTEX sends little more than the 300 slots take: OTPs go first, marketing waits or is shed.",
			each: func(t *testing.T, name string, res report.Result) {
				rows := res.Timeline
				attempts := perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Attempts) })
				assert.Less(t, attempts, 1.3*300, "%s: little more than the 300 slots", name)
				assert.Less(t, attempts, 0.8*perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Originals) }), "%s: less than the new messages: the rest waits or is shed", name)
				assert.GreaterOrEqual(t, res.Summary.PrioritySuccess["9"], 0.99, "%s: OTPs go first", name)
				assert.Less(t, res.Summary.PrioritySuccess["1"], 0.8, "%s: marketing waits or is shed", name)
			},
		},
		{
			scenario: "api-throttling",
			claim:    "Few 429s are retried here: retries do not crowd new messages out of the 300 slots.",
			each: func(t *testing.T, name string, res report.Result) {
				rows := res.Timeline
				assert.Less(t, perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Retries) }),
					0.5*perSecond(rows, 40, 90, func(r report.Row) float64 { return float64(r.Failures) }), "%s: most failures not retried", name)
			},
		},
		{
			scenario: "article-benchmark",
			claim:    "417 req/s, 70% of capacity: the article's benchmark starts healthy.",
			each:     func(t *testing.T, name string, res report.Result) { healthy(t, name, res, 20) },
		},
		{
			scenario: "article-benchmark",
			claim:    "Backoff keeps retrying: every timeout is tried again, only later.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Positive(t, perSecond(res.Timeline, 35, 60, func(r report.Row) float64 { return float64(r.Retries) }), "%s retries through the fault", name)
			},
		},
		{
			scenario: "article-benchmark",
			claim:    "The breaker trips: it refuses most requests until the fault ends.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Less(t, perSecond(res.Timeline, 35, 60, func(r report.Row) float64 { return float64(r.Attempts) }),
					0.5*perSecond(res.Timeline, 35, 60, func(r report.Row) float64 { return float64(r.Originals) }), "%s refuses most requests", name)
			},
		},
		{
			scenario: "article-benchmark",
			claim:    "CORTEX's CPS climbs with failures and latency.",
			each: func(t *testing.T, name string, res report.Result) {
				rows := res.Timeline
				require.NotNil(t, rows[19].CPS, name)
				require.NotNil(t, rows[40].CPS, name)
				assert.Greater(t, *rows[40].CPS, *rows[19].CPS+0.3, "%s: the CPS climbs", name)
			},
		},
		{
			scenario: "closed-loop",
			claim:    "300 users, each waiting for an answer, then thinking 1 s: about 270 req/s.",
			each: func(t *testing.T, name string, res report.Result) {
				rate := perSecond(res.Timeline, 10, 40, func(r report.Row) float64 { return float64(r.Originals) })
				assert.InDelta(t, 270, rate, 27, "%s: about 270 requests a second", name)
			},
		},
		{
			scenario: "closed-loop",
			claim:    "In a closed loop the users absorb the outage; in an open loop the retries do not stop.",
			each: func(t *testing.T, name string, res report.Result) {
				closed := perSecond(res.Timeline, 45, 65, func(r report.Row) float64 { return float64(r.Attempts) })
				open := perSecond(storyOpenLoop(t, name).Timeline, 45, 65, func(r report.Row) float64 { return float64(r.Attempts) })
				assert.Less(t, closed, 0.85*open, "%s: the closed loop sends fewer attempts than the open loop during the outage", name)
			},
		},
		{
			scenario: "open-loop",
			claim:    "An open stream of 270 req/s, the same load closed-loop's 300 users produce.",
			each: func(t *testing.T, name string, res report.Result) {
				open := perSecond(res.Timeline, 10, 40, func(r report.Row) float64 { return float64(r.Originals) })
				assert.InDelta(t, 270, open, 27, name)
			},
		},
		{
			scenario: "open-loop",
			claim:    "Compare with closed-loop: in an open loop only budgets and shedding lower the load.",
			check: func(t *testing.T, get func(string) report.Result) {
				amp := func(s string) float64 {
					rows := get(s).Timeline
					return perSecond(rows, 50, 70, func(r report.Row) float64 { return float64(r.Attempts) }) /
						perSecond(rows, 50, 70, func(r report.Row) float64 { return float64(r.Originals) })
				}
				assert.Greater(t, amp("backoff"), 3.5, "backoff: every retry still goes")
				assert.Less(t, amp("budget"), 1.2, "a budget lowers the load")
				assert.Less(t, amp("cortex"), 1.2, "cortex's budget and shedding lower it")
			},
		},
		{
			scenario: "dns-crash",
			claim:    "300 req/s against a service that serves 500: calm, 60% utilised.",
			each:     func(t *testing.T, name string, res report.Result) { healthy(t, name, res, 30) },
		},
		{
			scenario: "dns-crash",
			claim:    "The recovery storm: crash, restart, crash, 30 s after the fault ended.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.GreaterOrEqual(t, res.Summary.Crashes, 2, "%s: crash, restart, crash", name)
				crashed := 0
				for _, row := range res.Timeline[80:110] {
					if row.Service == source.ServiceCrashed {
						crashed++
					}
				}
				assert.Positive(t, crashed, "%s: crashed between t=80s and 110s, well after the fault ended at 50s", name)
			},
		},
		{
			scenario: "dns-crash",
			claim:    "30 s after the fault ended the service is up: no recovery storm in this run.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Zero(t, res.Summary.Crashes, name)
				for _, row := range res.Timeline[100:130] {
					assert.Equal(t, source.ServiceUp, row.Service, "%s, t=%ds: UP", name, row.T)
				}
			},
		},
		{
			scenario: "dns-crash",
			claim:    "Compare crash counts and recovery times: any damage came after the outage, from retries.",
			each: func(t *testing.T, name string, res report.Result) {
				for _, row := range res.Timeline[:50] {
					assert.NotEqual(t, source.ServiceCrashed, row.Service, "%s, t=%ds: no crash during the blackhole", name, row.T)
				}
			},
		},
		{
			scenario: "food-delivery",
			claim:    "Naive and backoff retries keep it dead: each restart meets the backlog and crashes again.",
			each: func(t *testing.T, name string, res report.Result) {
				for _, row := range res.Timeline[145:180] {
					assert.NotEqual(t, source.ServiceUp, row.Service, "%s, t=%ds: not serving at full capacity", name, row.T)
				}
				assert.GreaterOrEqual(t, res.Summary.Crashes, 2, "%s: crashes again", name)
			},
		},
		{
			scenario: "food-delivery",
			claim:    "Fewer retries gave the DB a chance to warm up: it serves again.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.NotNil(t, res.Summary.RecoverySeconds, "%s recovers", name)
				assert.Equal(t, source.ServiceUp, res.Timeline[175].Service, "%s: UP at t=175s", name)
			},
			check: func(t *testing.T, get func(string) report.Result) {
				// CORTEX holds and sheds new requests rather than retries here: what the DB
				// cannot take waits at the clients, and priorities decide who gets through.
				ps := get("cortex").Summary.PrioritySuccess
				require.Len(t, ps, 3, "orders, tracking, menus")
				assert.Greater(t, ps["8"], ps["5"], "cortex: orders ahead of tracking")
				assert.Greater(t, ps["5"], ps["2"], "cortex: tracking ahead of menus")
				assert.Positive(t, get("cortex").Summary.OriginalsShed, "cortex sheds new requests")
			},
		},
		{
			scenario: "metastable",
			claim:    "150 req/s against 200 req/s of capacity: a stable, healthy service.",
			each:     func(t *testing.T, name string, res report.Result) { healthy(t, name, res, 30) },
		},
		{
			scenario: "slow-ledger",
			claim:    "A slow query: +20 ms per call. No errors at all, but latency is up. Watch L.",
			each: func(t *testing.T, name string, res report.Result) {
				for _, row := range res.Timeline[30:60] {
					assert.Zero(t, row.Failures, "%s, t=%ds: no errors", name, row.T)
				}
			},
		},
		{
			scenario: "slow-ledger",
			claim:    "Capacity falls below the load; queues start to grow.",
			each: func(t *testing.T, name string, res report.Result) {
				peak := 0.0
				for _, row := range res.Timeline[60:70] {
					peak = max(peak, row.Queue)
				}
				assert.Greater(t, peak, res.Timeline[59].Queue+100, "%s: the queue grows after t=60s", name)
			},
		},
		{
			scenario: "slow-ledger",
			claim:    "Now the timeouts come. A strategy that waits for errors reacts only here.",
			each: func(t *testing.T, name string, res report.Result) {
				for _, row := range res.Timeline[:60] {
					assert.Zero(t, row.Failures, "%s, t=%ds: no error before the worse query", name, row.T)
				}
				failures := 0
				for _, row := range res.Timeline[60:85] {
					failures += row.Failures
				}
				assert.Positive(t, failures, "%s: errors by t=85s", name)
			},
		},
		{
			scenario: "upi-salary-day",
			claim:    "Amplification is the difference: a flood of refused retries is enough to crash the API.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Positive(t, res.Summary.Crashes, "%s crashes", name)
				assert.Greater(t, res.Summary.PeakAmplification, 2.0, "%s: a flood of retries", name)
			},
			check: func(t *testing.T, get func(string) report.Result) {
				assert.Zero(t, get("none").Summary.Crashes, "the same surge without retries does not")
			},
		},
		{
			scenario: "upi-salary-day",
			claim:    "these retries stay few enough for the API to hold.",
			each: func(t *testing.T, name string, res report.Result) {
				assert.Zero(t, res.Summary.Crashes, "%s: no crash", name)
			},
		},
	}
}

// storyOpenLoop runs open-loop with strategy, for a claim of closed-loop that compares the two.
func storyOpenLoop(t *testing.T, name string) report.Result {
	t.Helper()
	scn, err := scenarios.Lookup("open-loop")
	require.NoError(t, err)
	res, err := simulate(scn, name, scn.Seed, sim.Options{})
	require.NoError(t, err)
	return res
}

// comparisons are the notes shown to every strategy whose claim compares kinds of strategies by
// what they are, true whichever runs: they say what the others do, checked on runs of them.
var comparisons = map[string]string{
	"Compare with closed-loop: in an open loop only budgets and shedding lower the load.": "what budgets and shedding do, beside backoff",
}

// TestUnscopedNotesHoldForEveryStrategy asserts that a note shown to every strategy (one with
// no strategies) and making a claim about the run is checked for every strategy (each), not
// for some (check): a caption must not contradict the screen under any strategy ("every client
// starts retrying" over cortex's 0 retries, "Naive retries keep it down" under cortex). A
// claim true of some strategies belongs in a note scoped to them.
func TestUnscopedNotesHoldForEveryStrategy(t *testing.T) {
	for _, c := range storyClaims() {
		if c.check == nil || c.each != nil || comparisons[c.claim] != "" {
			continue
		}
		scn, err := scenarios.Lookup(c.scenario)
		require.NoError(t, err)
		for _, n := range scn.Notes {
			if strings.Contains(n.Text, c.claim) && len(n.Strategies) == 0 {
				t.Errorf("%s, note at %s: %q is shown to every strategy but checked for some: scope it (strategies = [...]) or check it for each",
					scn.Name, scenarios.FormatDuration(n.At), c.claim)
			}
		}
	}
}
