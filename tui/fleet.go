package tui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/source"
)

// fleetPanel shows the fleet a live run's CORTEX engines joined (live --fleet): the CPS they
// decide with (the fleet's signals) beside the CPS of their own signals, the fleet's failure
// rate and budget, and the store's health: FLEET or LOCAL, the view's age, the members, the
// syncs and the failed ones, the bad values the store found in its state and repaired. It sits in the full dashboard's bottom row, between the decisions
// and the events, only while the run is in a fleet (fleetW).
type fleetPanel struct{ base }

// newFleet returns an empty fleet panel.
func newFleet(st Styles) *fleetPanel { return &fleetPanel{base{st: st}} }

// Update redraws the panel on a full redraw.
func (p *fleetPanel) Update(msg tea.Msg) (*fleetPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		title, body := p.render(f.f)
		p.view = box(p.st, title, body, p.w, p.h)
	}
	return p, nil
}

// render returns the title and the lines, the most telling first (a short panel keeps them).
func (p *fleetPanel) render(f *frame) (string, string) {
	st := p.st
	if len(f.runs) == 0 || f.runs[0].fleet == nil {
		return "Fleet", ""
	}
	r := f.runs[0]
	fm := r.fleet
	var h *source.FleetHealth
	cps := 0.0
	if cv := r.hist.last.Cortex; cv != nil {
		h, cps = cv.Fleet, cv.CPS
	}
	if h == nil {
		return "Fleet " + fm.Name, st.Muted.Render(fmt.Sprintf("%s as %s\nno CORTEX engine: this strategy does not join the fleet", fm.Store, fm.Instance))
	}
	mode := st.FleetJoint.Render("FLEET")
	switch {
	case h.Joint == 0:
		mode = st.FleetLocal.Render("LOCAL")
	case h.Joint < h.Engines:
		mode = st.FleetLocal.Render(fmt.Sprintf("FLEET %d/%d", h.Joint, h.Engines))
	}
	lines := []string{
		st.Muted.Render("CPS ") + st.Bold.Render(fmtCPS(cps)) + st.Muted.Render(" fleet │ ") + st.Bold.Render(fmtCPS(h.LocalCPS)) + st.Muted.Render(" local"),
		fmt.Sprintf("F %.2f · burn %.2f · held %.0f", h.F, h.Burn, h.Held),
		fmt.Sprintf("view %s · %s, %d engines", fmtAge(h.Age), plural(h.Instances, "member"), h.Engines),
		fmt.Sprintf("syncs %d ok · %d failed", h.Syncs, h.Failures),
	}
	if h.Repaired > 0 {
		lines = append(lines, st.FleetLocal.Render(plural(int(min(h.Repaired, 1<<31)), "bad value")+" repaired"))
	}
	if h.LastError != "" { // in place of the store's address, over the lines left
		iw, _ := inner(p.w, p.h)
		lines = append(lines, st.FleetLocal.Render(wrap(h.LastError, max(iw, 1))))
	} else {
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%s as %s", fm.Store, fm.Instance)))
	}
	body := ""
	for i, l := range lines {
		if i > 0 {
			body += "\n"
		}
		body += l
	}
	return "Fleet " + fm.Name + " · " + mode, body
}

// plural is "1 member", "3 members".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// fmtAge formats a view's age: 120ms under a second, 3.4s above.
func fmtAge(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmtDur(d)
}

// fleetW is the fleet panel's width: none unless the dashboard shows one run in a fleet, and
// none in a window too narrow to leave the events 30 columns beside it and the decisions.
func (m *Model) fleetW(w, h int) int {
	if len(m.fr.runs) != 1 || m.fr.runs[0].fleet == nil {
		return 0
	}
	fw := min(max(w*3/10, 36), 46, w-decisionsW(w, h)-30)
	if fw < 28 {
		return 0
	}
	return fw
}

// addFleetCell puts the fleet panel in the full dashboard's bottom row, between the decisions
// and the events: a cell of no width (left out by compose) unless the run is in a fleet.
func (m *Model) addFleetCell() {
	rows := m.layouts[layoutFull]
	bottom := &rows[len(rows)-1]
	bottom.cells = append(bottom.cells[:1:1], append([]cell{{p: mount(newFleet(m.st)), w: m.fleetW}}, bottom.cells[1:]...)...)
}
