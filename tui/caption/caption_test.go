package caption

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/history"
)

// injectedAt returns a history whose run had a fault of kind injected at the second at and
// still on at the second now.
func injectedAt(kind scenarios.FaultKind, value float64, at, now int) *history.History {
	h := history.New(report.NewRecorder(source.Meta{}))
	f := source.ActiveFault{Kind: kind, Value: value, Injected: true}
	h.Add(source.Snapshot{T: time.Duration(at) * time.Second, Dt: time.Second,
		Events: []source.Event{{T: time.Duration(at) * time.Second, Kind: source.EventFault,
			Fault: source.FaultEvent{Kind: kind, Change: source.FaultStarted}}}})
	h.Add(source.Snapshot{T: time.Duration(now) * time.Second, Dt: time.Second, Faults: []source.ActiveFault{f}})
	return h
}

// Asserts that a caption too long for its room drops a whole clause (the note that the
// captions resume, then what the fault does) rather than cutting one: the key that clears the
// fault shows whole at every width from 60 to 200 columns on one line; that the fullest
// wording shows where it fits; and that the time the fault began reads as the header's clock
// and the event log do (3m30.0s, never 210s; 70.7s, never 70s beside the log's 70.7s).
func TestInjectedCaptionKeepsItsKey(t *testing.T) {
	keys := keymap.Default()
	h := injectedAt(scenarios.FaultErrors, 0.5, 210, 212)
	notes := Injected(h, keys)
	require.Len(t, notes, 3)
	assert.Contains(t, notes[0], "errors 50% injected since 3m30.0s: ")
	at := history.New(report.NewRecorder(source.Meta{}))
	at.Add(source.Snapshot{T: 70800 * time.Millisecond, Dt: 100 * time.Millisecond,
		Events: []source.Event{{T: 70700 * time.Millisecond, Kind: source.EventFault, Fault: source.FaultEvent{Kind: scenarios.FaultLatency, Change: source.FaultStarted}}},
		Faults: []source.ActiveFault{{Kind: scenarios.FaultLatency, Value: 1, Injected: true}}})
	assert.Contains(t, Injected(at, keys)[0], "latency +1s injected since 70.7s: ", "the event log's time, not 70s")
	assert.Contains(t, notes[0], "(4 clears it). The scenario's captions resume once it is cleared.")
	for w := 60; w <= 200; w += 7 {
		p := New(common.DefaultStyles())
		p.SetSize(w, 1)
		p.Show(notes...)
		line := strings.TrimRight(ansi.Strip(p.View()), " ")
		assert.Contains(t, line, "(4 clears it)", "width %d: %q", w, line)
		assert.False(t, strings.HasSuffix(line, "…"), "width %d: nothing is cut: %q", w, line)
	}
	p := New(common.DefaultStyles())
	p.SetSize(200, 1)
	p.Show(notes...)
	assert.Contains(t, p.View(), "once it is cleared.", "the fullest wording where it fits")
}

// Asserts that a note no wording of which fits is still cut visibly, with "…".
func TestCaptionCutVisibly(t *testing.T) {
	p := New(common.DefaultStyles())
	p.SetSize(20, 1)
	p.Show(strings.Repeat("word ", 20))
	assert.True(t, strings.HasSuffix(strings.TrimRight(ansi.Strip(p.View()), " "), "…"))
}
