// Package shedding is the dashboard's shedding panel, a component of its own: each priority
// class of a run, highest priority first, with the new requests shed and the retries admitted,
// shed by priority and rejected by the budget in the last tick, and CORTEX's floors drawn as
// lines across the classes.
package shedding

import (
	"fmt"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model shows each priority class, highest priority first, with the new requests shed (Admit)
// and the retries admitted, shed by priority and rejected by the budget this tick, and the
// floors as lines across the classes: floor(CPS*10), under which retries are shed, and the
// admission floor, the lowest priority given a send slot while the engine paces. It is used from
// the Bubble Tea goroutine only.
type Model struct{ common.Base }

// View is what the panel shows: the classes as set (shares and priorities), the selected one
// (an index into Classes), the run's latest snapshot (its per-class counts and CORTEX view), the
// tick the counts are of, and the keys that select a class, as the help names them.
type View struct {
	Classes  []source.ClassMeta
	Selected int
	Last     source.Snapshot
	Tick     time.Duration
	Keys     string
}

// New returns an empty shedding panel drawn with st.
func New(st common.Styles) *Model { return &Model{common.Base{St: st}} }

// Update does nothing: the panel draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Hide draws the panel without a run: its title and an empty box.
func (p *Model) Hide() { p.Draw("Shedding", "") }

// Show draws v.
func (p *Model) Show(v View) { p.Draw(p.render(v)) }

func (p *Model) render(v View) (string, string) {
	st := p.St
	last := v.Last
	floor, admit := -1, -1
	title := "Shedding by priority"
	if cv := last.Cortex; cv != nil {
		floor = cv.Floor
		f := st.BandOf(cv.State).Render(fmt.Sprint(floor))
		title = common.FitTitle(p.W, fmt.Sprintf("Shedding · floor %s = floor(CPS×10)", f), fmt.Sprintf("Shedding · floor %s", f))
		if cv.Shedding > 0 { // the new requests shed before the formula: cut last, never mid-word
			admit = cv.AdmitFloor
			shed := st.Band[3].Render(fmt.Sprintf("%.0f%% shed", 100*cv.ShedShare))
			title = common.FitTitle(p.W, fmt.Sprintf("Shedding · floor %s = floor(CPS×10) · new %s", f, shed),
				fmt.Sprintf("Shedding · floor %s · new %s", f, shed), fmt.Sprintf("floor %s · new %s", f, shed))
		}
	}
	order := make([]int, len(v.Classes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return v.Classes[order[a]].Priority > v.Classes[order[b]].Priority })

	iw, _ := common.Inner(p.W, p.H)
	wide, withNew := iw >= 63, iw >= 43
	header := "  class     pri share   adm  shed  bud"
	switch {
	case wide:
		header = "  class        prio  share  new shed  admitted   shed  budget"
	case withNew:
		header = "  class     pri share  new   adm  shed  bud"
	}
	rows := make([]string, 0, len(order)+2) // the classes in order, the floor lines among them
	sel := 0
	drawn, drawnAdmit := false, false
	for _, i := range order {
		c := v.Classes[i]
		if admit >= 0 && !drawnAdmit && c.Priority < admit && (floor < 0 || admit >= floor || drawn) {
			rows = append(rows, p.admitLine(admit, iw))
			drawnAdmit = true
		}
		if floor >= 0 && !drawn && c.Priority < floor {
			rows = append(rows, p.floorLine(floor, iw))
			drawn = true
		}
		if admit >= 0 && !drawnAdmit && c.Priority < admit {
			rows = append(rows, p.admitLine(admit, iw))
			drawnAdmit = true
		}
		if i == v.Selected {
			sel = len(rows)
		}
		rows = append(rows, p.classRow(v, i, iw, wide, withNew))
	}
	if floor >= 0 && !drawn {
		rows = append(rows, p.floorLine(floor, iw))
	}
	if admit >= 0 && !drawnAdmit {
		rows = append(rows, p.admitLine(admit, iw))
	}
	_, ih := common.Inner(p.W, p.H)
	lines := append([]string{st.Muted.Render(header)}, fitRows(st, rows, sel, ih-1, v.Keys)...)
	if len(lines)+2 <= ih {
		lines = append(lines, "", p.legend(v.Tick, iw, ih-len(lines)-1, withNew))
	}
	return title, strings.Join(lines, "\n")
}

// classRow is class i's row: its name (marked when selected), priority, share, the new
// requests shed (withNew) and the retries admitted, shed and rejected by the budget in the
// last tick, with a bar when wide.
func (p *Model) classRow(v View, i int, iw int, wide, withNew bool) string {
	st := p.St
	c := v.Classes[i]
	last := v.Last
	var ct struct{ shedNew, adm, shed, bud int }
	if i < len(last.Classes) {
		t := last.Classes[i]
		ct.shedNew, ct.adm, ct.shed, ct.bud = t.OriginalsShed, t.Admitted, t.Shed, t.BudgetRejected
	}
	nameW, format, nums := 9, "%s%s %3d %5s%s %s %s %s", [4]string{"", "%5d", "%5d", "%4d"}
	switch {
	case wide:
		nameW, format, nums = 12, "%s%s %4d  %-6s %s  %s %s %s", [4]string{"%8d", "%8d", "%6d", "%7d"}
	case withNew:
		format, nums = "%s%s %3d %5s %s %s %s %s", [4]string{"%4d", "%5d", "%5d", "%4d"}
	}
	shedNew := ""
	if nums[0] != "" {
		shedNew = st.Band[3].Render(fmt.Sprintf(nums[0], ct.shedNew))
	}
	// Cut and padded in cells, not runes: a CJK or emoji name keeps the columns aligned.
	marker, name := "  ", st.Text.Render(common.FitLine(c.Name, nameW))
	if i == v.Selected {
		marker, name = st.Accent.Render("▸ "), st.Selected.Render(common.FitLine(c.Name, nameW))
	}
	row := fmt.Sprintf(format,
		marker, name, c.Priority, fmt.Sprintf("x%.2f", c.Share),
		shedNew,
		st.Successes.Render(fmt.Sprintf(nums[1], ct.adm)),
		st.Band[3].Render(fmt.Sprintf(nums[2], ct.shed)),
		st.Band[1].Render(fmt.Sprintf(nums[3], ct.bud)))
	if barW := iw - 65; wide && barW >= 4 {
		row += "  " + p.bar(ct.adm, ct.shed, ct.bud, barW)
	}
	return row
}

// fitRows returns rows as they fit in h lines: all of them when they do, otherwise a window
// holding row sel (the selected class) and a last line counting the rows above and below it,
// so that a panel too short for every class says so rather than cut one silently.
func fitRows(st common.Styles, rows []string, sel, h int, keys string) []string {
	if len(rows) <= h || h <= 0 {
		return rows
	}
	n := max(h-1, 1)
	start := min(max(sel-n/2, 0), len(rows)-n)
	out := append([]string(nil), rows[start:start+n]...)
	if h > 1 {
		out = append(out, st.Muted.Render(fmt.Sprintf("  %d more above, %d below (%s selects)", start, len(rows)-start-n, keys)))
	}
	return out
}

// legend says what the columns count, in the longest wording that fits w x h cells; withNew
// says the new-requests column is shown (a narrow panel leaves it out, and its legend then
// says nothing of it: "new requests shed" read under a header without that column).
func (p *Model) legend(tick time.Duration, w, h int, withNew bool) string {
	per := "last " + common.FmtTick(tick) + " tick"
	words := []string{
		per + ": new shed = new requests refused while the service queues, lowest priorities first; " +
			"retries admitted = sent again; shed = priority under the floor; budget = out of retry tokens",
		per + ": new requests shed; retries admitted, shed under the floor, budget out of tokens",
		per,
	}
	if !withNew {
		words = []string{
			per + ": retries adm = admitted, sent again; shed = priority under the floor; bud = out of retry tokens",
			per + ": retries admitted, shed under the floor, out of budget",
			per,
		}
	}
	for _, s := range words {
		if s = common.Wrap(s, w); strings.Count(s, "\n") < h {
			return p.St.Muted.Render(s)
		}
	}
	return ""
}

// floorLine is the separator between classes above the floor and those shed under it.
func (p *Model) floorLine(floor, w int) string {
	label := fmt.Sprintf(" floor %d: retries of priority < %d are shed ", floor, floor)
	switch {
	case floor == 0:
		label = " floor 0: no class is shed "
	case w < 50:
		label = fmt.Sprintf(" floor %d: priority < %d shed ", floor, floor)
	}
	n := max(w-len(label)-2, 2)
	return p.St.Band[2].Render("──" + label + strings.Repeat("─", n))
}

// admitLine is the separator above the classes whose new requests are shed (the admission
// floor: the highest among the engines shedding).
func (p *Model) admitLine(floor, w int) string {
	label := fmt.Sprintf(" admission %d: new requests of priority < %d shed ", floor, floor)
	if w < 50 {
		label = fmt.Sprintf(" admission %d: new < %d shed ", floor, floor)
	}
	n := max(w-len(label)-2, 2)
	return p.St.Band[3].Render("──" + label + strings.Repeat("─", n))
}

// bar draws admitted, shed and budget-rejected as one proportional bar of w cells.
func (p *Model) bar(adm, shed, bud, w int) string {
	total := adm + shed + bud
	if total == 0 {
		return p.St.GaugeEmpty.Render(strings.Repeat("·", w))
	}
	cells := func(n int) int { return int(float64(n)/float64(total)*float64(w) + 0.5) }
	a, s := cells(adm), cells(shed)
	b := max(w-a-s, 0)
	if bud == 0 {
		a += b
		b = 0
	}
	return p.St.Successes.Render(strings.Repeat("█", a)) + p.St.Band[3].Render(strings.Repeat("█", s)) +
		p.St.Band[1].Render(strings.Repeat("█", b))
}
