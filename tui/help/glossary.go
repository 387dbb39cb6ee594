package help

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// glossaryEntry is one term of the glossary and its definition, one line of the help's glossary
// page and of the Glossary section of docs/dashboard.md, in the same words (TestGlossaryInDocs).
type glossaryEntry struct{ term, def string }

// glossarySection is a group of terms under a heading.
type glossarySection struct {
	title   string
	entries []glossaryEntry
}

// glossary is every signal, band, circuit state, decision reason and summary metric the
// dashboard shows, each defined in one line.
var glossary = []glossarySection{
	{"Signals (each in 0..1)", []glossaryEntry{
		{engine.SignalNames[0], "failures: the failure rate over the last 5 s or over the 60 s window, whichever is higher"},
		{engine.SignalNames[1], "latency: how far the P99 latency is above the learned healthy P99, in units of 3 × the baseline P50 (1 at most)"},
		{engine.SignalNames[2], "retries waiting: the client's retries waiting out their delay, over the engine's queue capacity (1000, split over the clients)"},
		{engine.SignalNames[3], "budget: the share of the retry budget spent, 1 - tokens / capacity"},
		{engine.SignalNames[4], "circuit: CLOSED 0, HALF_OPEN 0.5, OPEN 1"},
	}},
	{"Score and bands", []glossaryEntry{
		{"CPS", "Composite Pressure Score: the sum of weight × signal, from 0 to 1; the higher, the fewer retries"},
		{"floor", "floor(CPS×10): retries of a priority under it are shed"},
		{engine.Healthy.String(), "CPS under 0.25"},
		{engine.Degraded.String(), "CPS from 0.25 to 0.50"},
		{engine.Critical.String(), "CPS from 0.50 to 0.75"},
		{engine.Emergency.String(), "CPS at 0.75 or more: the circuit is forced OPEN and no retry goes (check 3, reason EMERGENCY)"},
		{engine.Closed.String(), "circuit state: retries may go"},
		{engine.Open.String(), "circuit state: every retry fails fast until the cooldown ends"},
		{engine.HalfOpen.String(), "circuit state: a few probe retries test the service; their successes close the circuit, a failure opens it again"},
		{"admission floor", "while the engine paces (the service down, refusing or queueing), the lowest priority given a send slot while others waited: lower priorities wait at the client or are shed"},
		{"recovery ramp", "after the circuit closes, the share of retries admitted grows from 10% to 100% over 10 s, highest priorities first"},
		{"tokens", "the retry budget: each retry spends 1 or more (more when the service is slow), and the lower a priority the more it must leave"},
	}},
	{"Decision reasons", []glossaryEntry{
		{source.ReasonRetry.String(), "every check passed: the retry goes after its delay"},
		{source.ReasonNotRetryable.String(), "check 1: the error may not be retried (a 4xx is the caller's error)"},
		{source.ReasonMaxRetries.String(), "check 2: the attempt limit is reached"},
		{source.ReasonCircuitOpen.String(), "check 3: the circuit is OPEN"},
		{source.ReasonProbesBusy.String(), "check 3: the circuit is HALF_OPEN and every probe slot is taken"},
		{source.ReasonShed.String(), "check 4: the priority is under the floor; for a new request, no send slot its deadline can wait for while the engine paces"},
		{engine.ReasonHeld, "cortex: a retry held until the circuit has probed the service (or the recovery ramp reaches its priority), then asked about again"},
		{engine.ReasonDeadline, "check 5: no retry could be sent and answered before the request's deadline: refused without spending a token"},
		{source.ReasonRamp.String(), "check 4: the recovery ramp does not admit this priority yet"},
		{source.ReasonBudget.String(), "check 4: not enough tokens left for this priority"},
		{source.ReasonThrottled.String(), "grpc: its retry throttle's tokens are at half or less"},
		{source.ReasonNoRetries.String(), "none: the strategy never retries"},
		{source.ReasonLimit.String(), "a concurrency limiter is at its limit: the attempt is refused before it is sent"},
		{source.ReasonAdaptiveThrottle.String(), "throttle: the attempt is refused before it is sent, with the adaptive throttling probability"},
		{source.ReasonRateLimited.String(), "a client-side rate limiter has no token yet: the attempt is held, then asked about again"},
	}},
	{"Summary", []glossaryEntry{
		{"success rate", "originals completed within their deadline over originals arrived"},
		{"goodput", "originals completed within their deadline per second of the arrival phase"},
		{"amplification", "attempts reaching the service over originals: 1 means no retries"},
		{"peak amplification", "the largest amplification of one second of the run"},
		{"new requests shed", "new requests refused before they were sent, for their priority, while the service queued"},
		{"retries", "retry attempts sent to the service"},
		{"wasted retries", "retries that failed"},
		{"recovery", "time from the end of the last fault until the service is UP and its success ratio is back to 90% of its level before, for 10 s"},
		{"crashes", "times the service crashed under overload"},
		{"success by priority", "the success rate of the originals of each priority"},
	}},
}

// glossaryText renders the glossary for the help in w cells: each section's title, then one
// term per line (in a column as wide as the section's longest term) with its definition
// wrapped beside it, or under it when the width is too small for two columns.
func glossaryText(st common.Styles, w int) string {
	var lines []string
	for i, s := range glossary {
		if i > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, st.Title.Render(s.title))
		termW := 0
		for _, e := range s.entries {
			termW = max(termW, len(e.term))
		}
		defW := w - termW - 2
		for _, e := range s.entries {
			if defW < 24 {
				lines = append(lines, st.Bold.Render(e.term))
				for _, d := range strings.Split(ansi.Wordwrap(e.def, max(w-2, 1), " "), "\n") {
					lines = append(lines, "  "+d)
				}
				continue
			}
			def := strings.Split(ansi.Wordwrap(e.def, defW, " "), "\n")
			lines = append(lines, st.Bold.Render(common.FitLine(e.term, termW))+"  "+def[0])
			for _, d := range def[1:] {
				lines = append(lines, strings.Repeat(" ", termW+2)+d)
			}
		}
	}
	return strings.Join(lines, "\n")
}
