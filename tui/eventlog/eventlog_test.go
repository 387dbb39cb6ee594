package eventlog

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Asserts that an event longer than the log's width wraps onto the next lines, every word
// kept and continued under its text (never cut mid-word), and that one taller than the whole
// log is cut with "…"; no line overflows.
func TestEventsPanelWrapsLongLines(t *testing.T) {
	p := New(common.DefaultStyles(), keymap.Default(), nil)
	p.SetSize(60, 8)
	text := "The payment DB crashes. Every call fails fast, and every client starts retrying."
	p.Show([]source.Event{{T: 2 * time.Second, Kind: source.EventControl, Text: "paused"},
		{T: 3 * time.Second, Kind: source.EventNote, Text: text}}, "Events")
	v := ansi.Strip(p.View())
	assert.NotContains(t, v, "…")
	var words []string
	lines := strings.Split(v, "\n")
	for _, l := range lines[1 : len(lines)-1] {
		words = append(words, strings.Fields(strings.Trim(l, "│"))...)
	}
	assert.Contains(t, strings.Join(words, " "), text, "every word, in order")
	assert.Contains(t, v, "│"+strings.Repeat(" ", 16)+"fast, and every", "continued under the text")
	assert.Contains(t, v, "paused", "the older event still shows above")
}

// Asserts that an event taller than the whole log is cut with "…" and never overflows.
func TestEventsPanelCutsLongLines(t *testing.T) {
	p := New(common.DefaultStyles(), keymap.Default(), nil)
	p.SetSize(60, 6)
	p.Show([]source.Event{{T: 3 * time.Second, Kind: source.EventNote, Text: strings.Repeat("a long caption ", 20)}}, "Events")
	v := p.View()
	assert.Contains(t, v, "…")
	for _, l := range strings.Split(v, "\n") {
		assert.LessOrEqual(t, ansi.StringWidth(l), 60, l)
	}
}

// Asserts that the empty event log's placeholder is never cut mid-word: it wraps, and ends
// with "…" only when the panel is too short for it.
func TestEventsPlaceholderWraps(t *testing.T) {
	for _, size := range [][2]int{{70, 7}, {40, 8}, {40, 3}} {
		p := New(common.DefaultStyles(), keymap.Default(), nil)
		p.SetSize(size[0], size[1])
		p.Show(nil, "Events")
		text := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "╭", " ", "╰", " ", "─", " ", "╮", " ", "╯", " ").Replace(p.View())), " ")
		if size[1] > 3 {
			assert.Contains(t, text, "your controls appear here", "%v", size)
		} else {
			assert.Contains(t, text, "…", "%v", size)
		}
	}
}

// Asserts how the event log words each kind of structured event a source sends, and that text
// a source passes along (a class name, a refusal) is made inert on the way in.
func TestEventWording(t *testing.T) {
	for _, tc := range []struct {
		e    source.Event
		want string
	}{
		{source.Event{Kind: source.EventNote, Text: "the storm begins"}, "the storm begins"},
		{source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultStarted, Kind: scenarios.FaultLatency,
			Value: 1, Injected: true}}, "injected fault latency +1s started until cleared"},
		{source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultStarted, Kind: scenarios.FaultCapacity,
			Value: 0.3, Duration: 30 * time.Second}}, "scheduled fault capacity x0.3 started for 30s"},
		{source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultEnded, Kind: scenarios.FaultOutage}}, "outage fault ended"},
		{source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultCleared, Kind: scenarios.FaultErrors}}, "errors fault cleared"},
		{source.Event{Kind: source.EventFault, Fault: source.FaultEvent{Change: source.FaultRefused, Kind: "meteor", Reason: "unknown kind"}},
			"inject refused: unknown kind"},
		{source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceCrashed, Cause: source.CauseOverload,
			Utilisation: 2.46, Overloaded: 3 * time.Second, RestartIn: 5 * time.Second}}, "CRASHED under overload (utilisation 2.5x for 3s); restart in 5s"},
		{source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceWarming, Cause: source.CauseRestart,
			WarmStart: 0.3, Warmup: 20 * time.Second}}, "restarting: capacity 30%, warming up over 20s"},
		{source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceUp, Cause: source.CauseRestart}}, "restarted"},
		{source.Event{Kind: source.EventService, Service: source.ServiceEvent{State: source.ServiceUp, Cause: source.CauseWarmedUp}}, "warmed up: full capacity"},
		{source.Event{Kind: source.EventCircuit, Circuit: source.CircuitEvent{Open: 12, HalfOpen: 3, Clients: 20}}, "12 of 20 clients OPEN, 3 HALF_OPEN"},
		{source.Event{Kind: source.EventCircuit, Circuit: source.CircuitEvent{Clients: 20}}, "0 of 20 clients OPEN"},
		{source.Event{Kind: source.EventControl, Text: "paused"}, "paused"},
		{source.Event{Kind: source.EventTarget, Text: "the target answers 503: attempts fail as '503'"}, "the target answers 503: attempts fail as '503'"},
	} {
		assert.Equal(t, tc.want, Text(tc.e, nil))
	}
}

// Asserts that the log writes every time in one format, to the tenth of a second, before and
// after 100 s (it wrote 99.9s, then 1m40s), as the header does.
func TestEventTimesOneFormat(t *testing.T) {
	p := New(common.DefaultStyles(), keymap.Default(), nil)
	p.SetSize(60, 6)
	p.Show([]source.Event{{T: 99900 * time.Millisecond, Kind: source.EventControl, Text: "paused"},
		{T: 100200 * time.Millisecond, Kind: source.EventControl, Text: "resumed"}}, "Events")
	v := ansi.Strip(p.View())
	assert.Contains(t, v, "  99.9s control paused")
	assert.Contains(t, v, "1m40.2s control resumed")
}

// Asserts that the log, which draws nothing again for the same events, still shows what
// changed: a line the caller's slice replaced in place (a history replaces its last circuit
// line), an event added, another title and another size.
func TestEventsShowWhatChanged(t *testing.T) {
	p := New(common.DefaultStyles(), keymap.Default(), nil)
	p.SetSize(60, 8)
	events := []source.Event{{T: time.Second, Kind: source.EventNote, Text: "first"}, {T: 2 * time.Second, Kind: source.EventNote, Text: "second"}}
	p.Show(events, "Events")
	require.Contains(t, p.View(), "second")
	events[1].Text = "replaced"
	p.Show(events, "Events")
	assert.Contains(t, p.View(), "replaced", "a line replaced in place")
	p.Show(append(events, source.Event{T: 3 * time.Second, Kind: source.EventNote, Text: "third"}), "Events")
	assert.Contains(t, p.View(), "third", "an event added")
	p.Show(events, "Events · naive")
	assert.Contains(t, p.View(), "Events · naive")
	assert.NotContains(t, p.View(), "third")
	p.SetSize(40, 8)
	p.Show(events, "Events · naive")
	assert.Equal(t, 40, ansi.StringWidth(strings.Split(p.View(), "\n")[0]), "drawn at its new size")
}
