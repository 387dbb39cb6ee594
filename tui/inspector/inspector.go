// Package inspector is the dashboard's decision inspector, a component of its own: the latest
// retry decisions of a run (newest at the bottom) and the selected one's five checks with the
// values that decided them, its own keys to move through them and to show one action at a
// time (from the key map), its styles from tui/common. The dashboard opens it on the decisions
// its source kept (source.Inspector), routes the keys to it while it shows and closes it.
package inspector

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model is the decision inspector: the latest retry decisions of a run (newest at the bottom)
// on the left, and on the right the selected one's five checks in order with the values that
// decided it (engine.Explanation): retryable, the attempt against the limit, the CPS as weight
// × signal against the emergency threshold and the circuit, the priority against
// floor(CPS×10), the recovery ramp's share, the tokens, and for a RETRY the delay's formula
// filled in. It redraws itself when it opens, resizes or moves; its View is that cached
// drawing. It is used from the Bubble Tea goroutine only.
type Model struct {
	common.Base
	keys     keymap.KeyMap
	strategy string                  // the run's strategy, named in the detail
	kept     []source.DecisionRecord // every decision the source kept (read when it opened)
	shown    []source.DecisionRecord // the decisions of the filter's action
	act      int                     // the filter: 0 every action, a+1 only engine.Action(a)
	sel      int                     // the one selected, an index into shown
}

// New returns a closed inspector drawn with st, whose keys are keys'.
func New(st common.Styles, keys keymap.KeyMap) *Model {
	return &Model{Base: common.Base{St: st}, keys: keys}
}

// Open shows ds (the latest decisions a source kept, oldest first, their texts made inert),
// every action, the newest selected, for a run of strategy.
func (p *Model) Open(ds []source.DecisionRecord, strategy string) {
	p.kept, p.act, p.strategy = ds, 0, strategy
	p.filter()
}

// Close forgets the decisions.
func (p *Model) Close() { p.kept, p.shown = nil, nil }

// Shown returns the decisions the inspector lists (those of the filter's action) and the
// index of the selected one.
func (p *Model) Shown() ([]source.DecisionRecord, int) { return p.shown, p.sel }

// SetSize sets the inspector's outer size in cells and redraws it.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	p.Rendered = p.render()
}

// Update handles the inspector's keys: up and down select a decision (the log keys by ten),
// the log filter key shows one action at a time. Other messages and keys change nothing.
func (p *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	switch {
	case key.Matches(km, p.keys.LogFilter):
		p.act = (p.act + 1) % (len(engine.Actions) + 1)
		p.filter()
	case key.Matches(km, p.keys.ClassUp):
		p.selectAt(p.sel - 1)
	case key.Matches(km, p.keys.ClassDown):
		p.selectAt(p.sel + 1)
	case key.Matches(km, p.keys.LogUp):
		p.selectAt(p.sel - 10)
	case key.Matches(km, p.keys.LogDown):
		p.selectAt(p.sel + 10)
	}
	return p, nil
}

// filter shows the kept decisions of the filter's action (all for 0), the newest selected.
func (p *Model) filter() {
	p.shown = p.kept
	if a := p.act - 1; a >= 0 {
		p.shown = nil
		for _, d := range p.kept {
			if int(d.Action) == a {
				p.shown = append(p.shown, d)
			}
		}
	}
	p.selectAt(len(p.shown) - 1)
}

// selectAt selects decision i, clamped to the list, and redraws.
func (p *Model) selectAt(i int) {
	p.sel = min(max(i, 0), max(len(p.shown)-1, 0))
	p.Rendered = p.render()
}

// listW is the width of the decision list: a third of the panel, none below 90 cells (the
// detail alone, which names the decision's place in the list).
func listW(w int) int {
	if w < 90 {
		return 0
	}
	return min(max(w/3, 36), 46)
}

func (p *Model) render() string {
	st := p.St
	ds := p.shown
	k := p.keys
	only := "all actions"
	if a := p.act - 1; a >= 0 {
		only = engine.Action(a).String() + " only"
	}
	title := fmt.Sprintf("Decision inspector · %s/%s select · %s: %s · %s close", common.KeyName(k.ClassUp), common.KeyName(k.ClassDown), common.KeyName(k.LogFilter), only, common.KeyName(k.Back))
	if len(ds) == 0 {
		empty := "No decision yet: a decision is made when an attempt fails. Resume, let a fault hit, and inspect again."
		if p.act > 0 {
			empty = fmt.Sprintf("No %s among the latest %d decisions: %s shows the next action.", only[:len(only)-5], len(p.kept), common.KeyName(k.LogFilter))
		}
		return common.Box(st, title, st.Muted.Render(common.Wrap(empty, max(p.W-2, 1))), p.W, p.H)
	}
	sel := min(max(p.sel, 0), len(ds)-1)
	lw := listW(p.W)
	right := p.W - lw
	detail := common.Box(st, common.FitTitle(right, title, fmt.Sprintf("Inspector · %s · %s close", only, common.KeyName(k.Back)), "Inspector"), p.detail(ds[sel], sel, len(ds), right-2), right, p.H)
	if lw == 0 {
		return detail
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, common.Box(st, "Latest decisions", p.list(ds, sel, lw-2, p.H-2), lw, p.H), detail)
}

// list draws the decisions around the selected one, newest at the bottom, one per line, the
// selected one marked ▸ (it shows without colour too) and highlighted.
func (p *Model) list(ds []source.DecisionRecord, sel, w, h int) string {
	if h <= 0 {
		return ""
	}
	start := min(max(sel-h/2, 0), max(len(ds)-h, 0))
	lines := make([]string, 0, h)
	for i := start; i < min(start+h, len(ds)); i++ {
		d := ds[i]
		mark := "  "
		if i == sel {
			mark = "▸ "
		}
		line := common.FitLine(fmt.Sprintf("%s%7s %-9.9s p%-2d a%d %s", mark, common.FmtClock(d.T), d.Class, d.Priority, d.Attempt, shortReason(d)), w)
		switch {
		case i == sel:
			line = p.St.Selected.Render(line)
		case d.Action == engine.Retry:
			line = p.St.Band[engine.Healthy].Render(line)
		default:
			line = p.St.Text.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// shortReason words a decision in a few cells for the list: "RETRY 2.1s", "shed", "budget".
func shortReason(d source.DecisionRecord) string {
	if d.Action == engine.Retry {
		return "RETRY " + common.FmtDelay(d.Delay)
	}
	for _, parts := range common.ActionReasons {
		for _, r := range parts {
			if source.ReasonOf(d.Reason) == r.R {
				return r.Name
			}
		}
	}
	switch source.ReasonOf(d.Reason) {
	case source.ReasonMaxRetries:
		return "max attempts"
	case source.ReasonNotRetryable:
		return "not retryable"
	}
	return strings.ToLower(d.Reason)
}

// Marks of a check: passed, decided (the check that refused), and not reached.
const (
	checkPass = "✓"
	checkFail = "✗"
	checkSkip = "·"
)

// detail draws one decision: what failed, the verdict, then the five checks in order.
func (p *Model) detail(d source.DecisionRecord, i, n int, w int) string {
	st := p.St
	strat := p.strategy
	what := fmt.Sprintf("attempt %d failed: %s", d.Attempt, d.Failure)
	if d.Failure == "new" {
		what = "a new request, before it is sent"
	}
	head := []string{
		st.Muted.Render(fmt.Sprintf("decision %d of %d shown (latest %d kept) · %s", i+1, n, len(p.kept), strat)),
		fmt.Sprintf("t %s · client %d · %s (priority %d) · %s", common.FmtClock(d.T), d.Client, d.Class, d.Priority, what),
	}
	verdict := d.Action.String()
	if d.Reason != "" && d.Reason != verdict { // CIRCUIT_OPEN's reason is CIRCUIT_OPEN: say it once
		verdict += " · " + d.Reason
	}
	switch {
	case d.Action == engine.Retry && d.Failure == "new":
		verdict = "HELD · ask again after " + common.FmtDelay(d.Delay)
	case d.Action == engine.Retry:
		verdict += " after " + common.FmtDelay(d.Delay)
	}
	style := st.Band[common.ActionBand[d.Action]]
	head = append(head, "→ "+style.Bold(true).Render(verdict), "")
	if !d.Explained {
		head = append(head, st.Muted.Render(common.Wrap(fmt.Sprintf("%s decides without the CORTEX checks: it gives its verdict and its reason only. Run cortex (s) to see the five checks of each decision.", strat), max(w, 1))))
		return strings.Join(head, "\n")
	}
	if d.Why.Original {
		return strings.Join(append(head, p.admission(&d.Why, w)...), "\n")
	}
	return strings.Join(append(head, p.checks(&d.Why, w)...), "\n")
}

// admission draws the checks of a new request's admission: whether the pacer is on (the
// fastest recent success against the baseline), its pace (from what the service completed),
// the send slot the request found, and the admission floor.
func (p *Model) admission(x *engine.Explanation, w int) []string {
	st := p.St
	var lines []string
	shed := x.Decision.Action != engine.Retry
	row := func(ok bool, decided bool, label, values string) {
		mark, style := checkPass, st.Band[engine.Healthy]
		switch {
		case decided:
			mark, style = checkFail, st.Band[engine.Emergency]
		case !ok:
			mark, style = checkSkip, st.Muted
		}
		lines = append(lines, common.Ellipsis(style.Render(mark)+" "+st.Bold.Render(fmt.Sprintf("%-20s", label))+" "+values, w))
	}
	sub := func(s string) { lines = append(lines, st.Muted.Render(common.Ellipsis("    "+s, w))) }
	if !x.Admission {
		row(true, false, "admission", "off (the article's parameters): every new request goes")
		return lines
	}
	row(true, x.Shedding, "pacer on?", fmt.Sprintf("fastest recent success S = %.2f %s %.2f (%.1f× the baseline)", x.Slowdown, geLt(x.Slowdown >= x.SlowFrom), x.SlowFrom, 1+3*x.SlowFrom))
	if !x.Shedding {
		sub("no: the service is not down, refusing or queueing · every new request goes")
		return lines
	}
	sub("the service is down, refuses or queues: every attempt takes a send slot")
	row(true, false, "pace", fmt.Sprintf("%.1f slots a second for %.1f completed · %.0f%% waited last second", x.Pace, x.Completed, 100*x.ShedShare))
	slot := "a slot is free: it goes"
	switch {
	case shed:
		slot = "no slot its deadline can wait for: shed"
	case x.Decision.Delay > 0:
		slot = "no slot free now: held, asks again in " + x.Decision.Delay.Round(time.Millisecond).String()
	}
	row(true, shed || x.Decision.Delay > 0, "send slot", slot)
	row(false, false, "admission floor", fmt.Sprintf("%d: the lowest priority given a slot while others waited", x.AdmitFloor))
	sub(fmt.Sprintf("the score's floor, for retries: floor(%.3f×10) = %d · circuit %s", x.CPS, engine.FloorFor(x.CPS), x.Circuit))
	return lines
}

// The steps of the five checks, in order, as the inspector lists them: check 3 is the
// emergency threshold then the circuit, check 4 the floor, the ramp, then the budget.
const (
	stepRetryable = iota
	stepAttempt
	stepEmergency
	stepCircuit
	stepFloor
	stepRamp
	stepBudget
	stepDelay
)

// failedStep is the step whose check gave reason (stepDelay for a RETRY: every check passed).
func failedStep(reason string) int {
	switch reason {
	case engine.ReasonNotRetryable:
		return stepRetryable
	case engine.ReasonMaxRetries:
		return stepAttempt
	case engine.ReasonEmergency:
		return stepEmergency
	case engine.ReasonCircuitOpen, engine.ReasonHalfOpenProbesBusy:
		return stepCircuit
	case engine.ReasonShedLowPriority:
		return stepFloor
	case engine.ReasonRecoveryRamp:
		return stepRamp
	case engine.ReasonBudgetExhausted:
		return stepBudget
	}
	return stepDelay
}

// checks draws the five checks of an explained decision, one line per step with its values
// and a mark: passed, the one that decided, or not reached.
func (p *Model) checks(x *engine.Explanation, w int) []string {
	st := p.St
	failed := failedStep(x.Decision.Reason)
	var lines []string
	row := func(step int, label, values string) {
		mark, style := checkPass, st.Band[engine.Healthy]
		switch {
		case step > failed:
			mark, style, values = checkSkip, st.Muted, st.Muted.Render("not reached")
		case step == failed && step != stepDelay:
			mark, style = checkFail, st.Band[engine.Emergency]
		}
		lines = append(lines, common.Ellipsis(style.Render(mark)+" "+st.Bold.Render(fmt.Sprintf("%-20s", label))+" "+values, w))
	}
	sub := func(s string) { lines = append(lines, st.Muted.Render(common.Ellipsis("    "+s, w))) }

	retryable := "yes"
	if !x.Retryable {
		retryable = "no: a 4xx is the caller's error"
	}
	row(stepRetryable, "1 retryable?", retryable)
	row(stepAttempt, "2 attempt < limit", fmt.Sprintf("%d %s %d", x.Attempt, ltGe(x.Attempt < x.MaxAttempts), x.MaxAttempts))
	fallback := x.Decision.Fallback
	if fallback {
		row(stepEmergency, "3 CPS < emergency", "not finite: the fallback path decides without it")
	} else {
		cmp := "<"
		if x.CPS >= x.Emergency {
			cmp = "≥"
		}
		row(stepEmergency, "3 CPS < emergency", fmt.Sprintf("%.3f %s %.2f", x.CPS, cmp, x.Emergency))
		if failed > stepAttempt {
			terms := x.Terms()
			sig, wt := x.Signals.Array(), x.Weights.Array()
			parts, vals := make([]string, 5), make([]string, 5)
			for j := range parts {
				parts[j] = fmt.Sprintf("%.2f×%s %.2f", wt[j], engine.SignalNames[j], sig[j])
				vals[j] = fmt.Sprintf("%.3f", terms[j])
			}
			sub("CPS = " + strings.Join(parts, " + "))
			sub("    = " + strings.Join(vals, " + "))
		}
	}
	circuit := x.Circuit.String()
	switch {
	case x.Circuit == engine.HalfOpen:
		circuit += fmt.Sprintf(": %d of %d probe slots taken", x.InFlight, x.Probes)
	case failed == stepEmergency:
		circuit += " → forced OPEN"
	}
	row(stepCircuit, "  circuit not OPEN", circuit)
	if fallback {
		row(stepFloor, "4 priority ≥ floor", "no CPS: no floor, no ramp on the fallback path")
	} else {
		row(stepFloor, "4 priority ≥ floor", fmt.Sprintf("%d %s floor(%.3f×10) = %d", x.Priority, geLt(x.Priority >= x.Floor), x.CPS, x.Floor))
		ramp := "no ramp: every priority"
		if x.RampShare < 1 {
			ramp = fmt.Sprintf("%.0f%% of retries: priority %d %s %.1f", 100*x.RampShare, x.Priority, geLt(failed != stepRamp), x.RampFloor)
		}
		row(stepRamp, "  recovery ramp", ramp)
	}
	budget := "no budget"
	if x.Capacity > 0 {
		cmp := "≥"
		if x.Tokens-x.Cost < x.Keep {
			cmp = "<"
		}
		budget = fmt.Sprintf("%.1f/%d − cost %.1f = %.1f %s %.0f kept for p%d", x.Tokens, x.Capacity, x.Cost, x.Tokens-x.Cost, cmp, x.Keep, x.Priority)
	}
	row(stepBudget, "  tokens", budget)
	row(stepDelay, "5 delay", delayFormula(x))
	return lines
}

// ltGe is "<" when ok, "≥" otherwise; geLt the reverse: the comparison a check's values hold.
func ltGe(ok bool) string {
	if ok {
		return "<"
	}
	return "≥"
}

func geLt(ok bool) string {
	if ok {
		return "≥"
	}
	return "<"
}

// delayFormula writes the delay with its formula filled in:
// "Random(0, 500ms × 2^1 × (1 + 4.3)) = 2.1s", capped by the maximum delay when it applies.
func delayFormula(x *engine.Explanation) string {
	factor := "1"
	if !x.Decision.Fallback {
		factor = fmt.Sprintf("(1 + %.1f)", x.Factor-1)
	}
	draw := "Random"
	if x.Deterministic {
		draw = "Mid"
	}
	f := fmt.Sprintf("%s(0, %s × 2^%d × %s)", draw, common.FmtDelay(x.Base), x.Attempt, factor)
	if x.Ceiling > x.MaxDelay {
		f = fmt.Sprintf("min(%s, %s)", common.FmtDelay(x.MaxDelay), f)
	}
	return f + " = " + common.FmtDelay(x.Decision.Delay)
}
