package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/history"
)

// captionPanel shows the scenario's current note, so the screen explains itself.
type captionPanel struct{ common.Base }

// newCaption returns an empty caption.
func newCaption(st common.Styles) *captionPanel { return &captionPanel{common.Base{St: st}} }

// Update redraws the caption on a full redraw.
func (p *captionPanel) Update(msg tea.Msg) (*captionPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		note := ""
		if len(f.f.runs) > 0 {
			r := f.f.runs[0]
			note = r.hist.Last.Note
			if note == "" && !r.hist.Seen {
				note = r.meta.Summary
			}
			if r.hist.Last.Service.Unmeasured {
				note = targetCaption(r.hist) // the scenario's captions tell of its own service
			}
			if inj := injectedCaption(r, f.f.keyMap()); inj != "" {
				note = inj // the scenario's captions do not know of a fault you injected
			}
		}
		text := ""
		if note != "" && p.W > 0 && p.H > 0 {
			lines := strings.Split(ansi.Wordwrap("» "+note, max(p.W-1, 1), " "), "\n")
			if len(lines) > p.H { // too long for the room: say so rather than cut silently
				lines = lines[:p.H]
				lines[p.H-1] = ansi.Truncate(lines[p.H-1], max(p.W-2, 1), "") + "…"
			}
			text = p.St.Caption.Render(strings.Join(lines, "\n"))
		}
		p.Rendered = common.Fit(text, p.W, p.H)
	}
	return p, nil
}

// injectedCaption says what the faults injected at run time do while they are on, in place of
// the scenario's note, which was written without them ("Everything is green" over a service
// DOWN from an outage injected at 19 s): the fault, when it began, what it does and the key
// that clears it; "" when none is on.
func injectedCaption(r *run, keys keymap.KeyMap) string {
	var parts []string
	for _, af := range r.hist.Last.Faults {
		if !af.Injected {
			continue
		}
		spec, _ := af.Kind.Spec()
		since := ""
		if from, ok := r.hist.Since(af.Kind); ok {
			since = fmt.Sprintf(" since %ds", from)
		}
		part := fmt.Sprintf("%s injected%s: %s", af.Kind.Label(af.Value), since, spec.Effect)
		if i := slices.Index(scenarios.FaultKinds, af.Kind); i >= 0 && i < len(keys.Fault) && len(keys.Fault[i].Keys()) > 0 {
			part += fmt.Sprintf(" (%s clears it)", common.KeyName(keys.Fault[i]))
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ") + ". The scenario's captions resume once it is cleared."
}

// targetCaption is the caption of a run against a service not the source's (live --target:
// your own), in place of the scenario's notes, which tell the story of the scenario's service
// ("Everything is green" while every attempt to yours failed): what the last whole second
// shows of your service's answers, and why the scenario's notes are not shown.
func targetCaption(h *history.History) string {
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
