package tui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// fleetPanel shows the fleet a live run's CORTEX engines joined (live --fleet): the CPS they
// decide with (the fleet's signals) beside the CPS of their own signals, the fleet's failure
// rate and budget, and the store's health: FLEET or LOCAL, the view's age, the members, the
// syncs and the failed ones, the bad values the store found in its state and repaired. It sits in the full dashboard's bottom row, between the decisions
// and the events, only while the run is in a fleet (fleetW).
type fleetPanel struct{ common.Base }

// newFleet returns an empty fleet panel.
func newFleet(st common.Styles) *fleetPanel { return &fleetPanel{common.Base{St: st}} }

// Update redraws the panel on a full redraw.
func (p *fleetPanel) Update(msg tea.Msg) (*fleetPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.full() {
		title, body := p.render(f.f)
		p.Rendered = common.Box(p.St, title, body, p.W, p.H)
	}
	return p, nil
}

// render returns the title and the lines, the most telling first (a short panel keeps them).
func (p *fleetPanel) render(f *frame) (string, string) {
	st := p.St
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
		st.Muted.Render("CPS ") + st.Bold.Render(common.FmtCPS(cps)) + st.Muted.Render(" fleet │ ") + st.Bold.Render(common.FmtCPS(h.LocalCPS)) + st.Muted.Render(" local"),
		fmt.Sprintf("F %.2f · burn %.2f · held %.0f tokens", h.F, h.Burn, h.Held),
		fmt.Sprintf("view %s old · %d members, %d engines", common.FmtAge(h.Age), h.Instances, h.Engines),
		syncsLine(h),
		st.Muted.Render(fmt.Sprintf("%s as %s", fm.Store, fm.Instance)),
	}
	if h.LastError != "" { // in place of the store's address, over the lines left
		iw, _ := common.Inner(p.W, p.H)
		lines = append(lines[:4], st.FleetLocal.Render(common.Wrap(h.LastError, max(iw, 1))))
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

// syncsLine counts the syncs, and the bad values the store repaired once there are any.
func syncsLine(h *source.FleetHealth) string {
	l := fmt.Sprintf("syncs %d ok · %d failed", h.Syncs, h.Failures)
	if h.Repaired > 0 {
		l += fmt.Sprintf(" · %d repaired", h.Repaired)
	}
	return l
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
