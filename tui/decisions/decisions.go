// Package decisions is the dashboard's decisions panel, a component of its own: the new
// requests that arrived and what admission did with them, then the retry decisions per action,
// in the last tick and since the start, each with what its total is made of, so that the totals
// reconcile with the run's summary.
package decisions

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// decisionOrder lists the actions most telling first, so a short panel clips the rare ones.
var decisionOrder = []engine.Action{engine.Retry, engine.Reject, engine.CircuitOpen, engine.MaxRetriesExceeded, engine.NotRetryable}

// Model counts the new requests that arrived and what admission did with them (sent, shed,
// refused, held), then the retry decisions per action, this tick and since the start, each
// action followed by what it is made of: the reasons of REJECT and CIRCUIT_OPEN, and for RETRY
// where the decided retries went (sent, the summary's retries; waiting; refused when due;
// dropped at the deadline), so the totals reconcile with the summary's. It is used from the
// Bubble Tea goroutine only.
type Model struct{ common.Base }

// New returns an empty decisions panel drawn with st.
func New(st common.Styles) *Model { return &Model{common.Base{St: st}} }

// Update does nothing: the panel draws what Show gives it.
func (p *Model) Update(tea.Msg) (*Model, tea.Cmd) { return p, nil }

// Hide draws the panel without a run: its title and an empty box.
func (p *Model) Hide() { p.Draw("Decisions", "") }

// Show draws a run's decisions: last is its latest snapshot (the counts of its tick, the
// retries pending), t its totals so far, tick the length of its ticks.
func (p *Model) Show(last source.Snapshot, t report.Totals, tick time.Duration) {
	title := common.FitTitle(p.W, "Decisions · last "+common.FmtTick(tick)+" tick · total", "Decisions · tick · total")
	p.Draw(title, p.body(last, t))
}

func (p *Model) body(last source.Snapshot, t report.Totals) string {
	st := p.St
	iw, ih := common.Inner(p.W, p.H)
	nameW := min(max(iw-16, 8), 20)
	var lines []string
	if t.Originals > 0 { // new requests first: what admission did with them
		lines = append(lines, st.Text.Render(fmt.Sprintf("%-*.*s", nameW, nameW, "NEW"))+
			fmt.Sprintf(" %6d %8d", last.Counts.Originals, t.Originals))
	}
	shown := decisionsShown(t, ih-len(lines))
	room := ih - len(lines) - len(shown) // the rows left for what the totals are made of
	if why := newParts(t); why != "" && len(lines) > 0 && room > 0 {
		lines = append(lines, st.Muted.Render(common.Ellipsis(" └ "+why, iw)))
		room--
	}
	for _, a := range shown {
		name := a.String()
		if len(name) > nameW && a == engine.MaxRetriesExceeded {
			name = "MAX_RETRIES"
		}
		lines = append(lines, st.Band[common.ActionBand[a]].Render(fmt.Sprintf("%-*.*s", nameW, nameW, name))+
			fmt.Sprintf(" %6d %8d", last.Counts.Decisions[a], t.Decisions[a]))
		if why := Parts(a, t, last.Pending); why != "" && room > 0 {
			lines = append(lines, st.Muted.Render(common.Ellipsis(" └ "+why, iw)))
			room--
		}
	}
	if hidden := len(decisionOrder) - len(shown); hidden > 0 && len(lines) < ih {
		lines = append(lines, st.Muted.Render(fmt.Sprintf("+%d more with no decision yet", hidden)))
	}
	return strings.Join(lines, "\n")
}

// decisionsShown is the actions the panel lists in h rows, in decisionOrder: all of them when
// they fit, otherwise those with a decision in total first (an action nobody took says
// nothing), the largest totals when even those do not fit (at 80x24 during an outage
// CIRCUIT_OPEN holds most of the decisions and must not give way to a rarer action listed
// before it), the totals before any of their detail (decisionParts, on the rows left).
func decisionsShown(t report.Totals, h int) []engine.Action {
	if len(decisionOrder) <= h || h <= 0 {
		return decisionOrder
	}
	var out []engine.Action
	for _, a := range decisionOrder {
		if t.Decisions[a] > 0 {
			out = append(out, a)
		}
	}
	if len(out) > h {
		slices.SortStableFunc(out, func(a, b engine.Action) int { return t.Decisions[b] - t.Decisions[a] })
		out = out[:h]
	}
	for _, a := range decisionOrder { // room left: the others, in order
		if len(out) >= h {
			break
		}
		if t.Decisions[a] == 0 {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b engine.Action) int {
		return slices.Index(decisionOrder, a) - slices.Index(decisionOrder, b)
	})
	return out
}

// decisionParts words what the total of action a is made of ("" when there is nothing to
// split): for REJECT and CIRCUIT_OPEN their non-zero reasons; for RETRY the retries sent (the
// summary's retries, less the tiers'), waiting (pending now), refused when due, dropped at the
// deadline and capped, then the intermediate tiers' retries, which no client decided.
func Parts(a engine.Action, t report.Totals, pending int) string {
	var parts []string
	add := func(n int, name string) {
		if n != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	if a == engine.Retry {
		if t.Decisions[a] == 0 && t.TierRetries == 0 {
			return ""
		}
		parts = append(parts, fmt.Sprintf("sent %d", t.Retries-t.TierRetries))
		add(pending, "waiting")
		add(t.RetryRefused, "refused when due")
		add(t.RetryLate+t.RetryExpired, "past deadline")
		add(t.RetryCapped, "capped")
		s := strings.Join(parts, " · ")
		if t.TierRetries > 0 {
			s += fmt.Sprintf("; +%d by tiers = %d retries", t.TierRetries, t.Retries)
		}
		return s
	}
	if t.Decisions[a] == 0 {
		return ""
	}
	for _, r := range common.ActionReasons[a] {
		add(t.Reasons[r.R], r.Name)
	}
	return strings.Join(parts, " · ")
}

// newParts words what became of the new requests that arrived, when a strategy did more than
// send them: shed by priority (Admit's SHED_LOW_PRIORITY), refused for another reason (an open
// circuit, a full limit), held (each hold counted, an attempt may be held more than once).
func newParts(t report.Totals) string {
	shed := t.Refusals[source.ReasonShed]
	refused := max(0, t.LocalRejects-t.RetryRefused-shed)
	if shed == 0 && refused == 0 && t.Held == 0 {
		return ""
	}
	parts := []string{fmt.Sprintf("sent %d", max(0, t.Originals-shed-refused))}
	for _, p := range []struct {
		n    int
		name string
	}{{shed, "shed"}, {refused, "refused"}, {t.Held, "holds"}} {
		if p.n != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", p.name, p.n))
		}
	}
	return strings.Join(parts, " · ")
}
