// Package fleetpanel is the dashboard's fleet panel, a component of its own: what a run's
// CORTEX engines see of the fleet they joined (the simulator's shared budget, live --fleet),
// drawn from the run's source.FleetMeta and the latest snapshot's CortexView.
package fleetpanel

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model shows the fleet a run's CORTEX engines joined: the CPS they decide with (the fleet's
// signals) beside the CPS of their own signals, the fleet's failure rate and budget, and the
// store's health: FLEET or LOCAL, the view's age, the members, the syncs and the failed ones,
// the bad values the store found in its state and repaired. It is used from the Bubble Tea
// goroutine only.
type Model struct{ common.Base }

// New returns an empty fleet panel drawn with st.
func New(st common.Styles) *Model { return &Model{common.Base{St: st}} }

// Update does nothing: the panel draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Show draws the fleet fm (nil: the run is in none) as cv, the latest CortexView, sees it.
func (p *Model) Show(fm *source.FleetMeta, cv *source.CortexView) {
	title, body := p.render(fm, cv)
	p.Rendered = common.Box(p.St, title, body, p.W, p.H)
}

// render returns the title and the lines, the most telling first (a short panel keeps them).
func (p *Model) render(fm *source.FleetMeta, cv *source.CortexView) (string, string) {
	st := p.St
	if fm == nil {
		return "Fleet", ""
	}
	var h *source.FleetHealth
	cps := 0.0
	if cv != nil {
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
		fmt.Sprintf("F %.2f · burn %.2f · held %.0f", h.F, h.Burn, h.Held),
		fmt.Sprintf("view %s · %s, %d engines", common.FmtAge(h.Age), plural(h.Instances, "member"), h.Engines),
		fmt.Sprintf("syncs %d ok · %d failed", h.Syncs, h.Failures),
	}
	if h.Repaired > 0 {
		lines = append(lines, st.FleetLocal.Render(plural(int(min(h.Repaired, 1<<31)), "bad value")+" repaired"))
	}
	if h.LastError != "" { // in place of the store's address, over the lines left
		iw, _ := common.Inner(p.W, p.H)
		lines = append(lines, st.FleetLocal.Render(common.Wrap(h.LastError, max(iw, 1))))
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
