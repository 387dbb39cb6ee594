// Package caption is the dashboard's caption, a component of its own: the scenario's current
// note under the header, so the screen explains itself; in place of it, what the faults
// injected by a key do (Injected), or against a service not the source's what its answers
// show (Target). The root model hands it the note; it wraps it to its room and caches it.
package caption

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/history"
)

// Model shows a note, wrapped to its width and height. It is used from the Bubble Tea
// goroutine only.
type Model struct{ common.Base }

// New returns an empty caption drawn with st.
func New(st common.Styles) *Model { return &Model{common.Base{St: st}} }

// Show redraws the caption with the first of notes, the fullest wording first, that its room
// holds whole (none: blank); when none fits, the last, cut visibly with "…" rather than
// silently. A shorter wording drops a whole clause, so a key's hint is never cut in two.
func (p *Model) Show(notes ...string) {
	text := ""
	if len(notes) > 0 && notes[0] != "" && p.W > 0 && p.H > 0 {
		var lines []string
		for _, note := range notes {
			if lines = strings.Split(ansi.Wordwrap("» "+note, max(p.W-1, 1), " "), "\n"); len(lines) <= p.H {
				break
			}
		}
		if len(lines) > p.H { // too long for the room: say so rather than cut silently
			lines = lines[:p.H]
			lines[p.H-1] = ansi.Truncate(lines[p.H-1], max(p.W-2, 1), "") + "…"
		}
		text = p.St.Caption.Render(strings.Join(lines, "\n"))
	}
	p.Rendered = common.Fit(text, p.W, p.H)
}

// Note is the caption of the run of history h, in its wordings, the fullest first (Show): its
// scenario's current note (summary, before the first snapshot), what the injected faults do
// while one is on (Injected), or against a service not the source's what its answers show
// (Target).
func Note(h *history.History, summary string, keys keymap.KeyMap) []string {
	note := h.Last.Note
	if note == "" && !h.Seen {
		note = summary
	}
	if h.Last.Service.Unmeasured {
		note = Target(h) // the scenario's captions tell of its own service
	}
	if inj := Injected(h, keys); inj != nil {
		return inj // the scenario's captions do not know of a fault you injected
	}
	return []string{note}
}

// Injected says what the faults injected at run time do while they are on, in place of the
// scenario's note, which was written without them ("Everything is green" over a service DOWN
// from an outage injected at 19 s): the fault, when it began, what it does and the key that
// clears it; none when none is on. Its wordings, the fullest first: with the note that the
// scenario's captions resume, without it, and without what the faults do (their names, when
// they began and the keys that clear them).
func Injected(h *history.History, keys keymap.KeyMap) []string {
	type part struct{ full, short string }
	var parts []part
	for _, af := range h.Last.Faults {
		if !af.Injected {
			continue
		}
		spec, _ := af.Kind.Spec()
		since := ""
		if from, ok := h.Since(af.Kind); ok {
			since = " since " + common.FmtClock(from) // as the event log says it: 70.7s, not 70s
		}
		name, clears := af.Kind.Label(af.Value)+" injected"+since, ""
		if i := slices.Index(scenarios.FaultKinds, af.Kind); i >= 0 && i < len(keys.Fault) && len(keys.Fault[i].Keys()) > 0 {
			clears = fmt.Sprintf(" (%s clears it)", common.KeyName(keys.Fault[i]))
		}
		parts = append(parts, part{name + ": " + spec.Effect + clears, name + clears})
	}
	if len(parts) == 0 {
		return nil
	}
	slices.SortFunc(parts, func(a, b part) int { return strings.Compare(a.full, b.full) })
	full, short := make([]string, len(parts)), make([]string, len(parts))
	for i, p := range parts {
		full[i], short[i] = p.full, p.short
	}
	all := strings.Join(full, "; ") + "."
	return []string{all + " The scenario's captions resume once it is cleared.", all, strings.Join(short, "; ") + "."}
}

// Target is the caption of a run against a service not the source's (live --target: your
// own), in place of the scenario's notes, which tell the story of the scenario's service
// ("Everything is green" while every attempt to yours failed): what the last whole second
// shows of your service's answers, and why the scenario's notes are not shown.
func Target(h *history.History) string {
	const tail = " The scenario's traffic and faults are played against it; its captions, written for its own service, are not shown."
	if h.Successes.Len() == 0 {
		return "Your service (--target): no second has ended yet." + tail
	}
	ok := int(math.Round(h.Successes.Last()))
	all := int(math.Round(h.Originals.Last() + h.Retries.Last()))
	var said string
	switch {
	case all == 0:
		said = "no attempt was sent in the last second"
	case ok <= 0:
		said = fmt.Sprintf("none of the last second's %d attempts succeeded", all)
	case ok >= all:
		said = fmt.Sprintf("all %d of the last second's attempts succeeded", all)
	default:
		said = fmt.Sprintf("%d of the last second's %d attempts succeeded (%.0f%%)", ok, all, 100*float64(ok)/float64(all))
	}
	return "Your service (--target): " + said + "." + tail
}
