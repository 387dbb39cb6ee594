package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// inspectorPanel is the decision inspector: the latest retry decisions of the first run (newest
// at the bottom) on the left, and on the right the selected one's five checks in order with the
// values that decided it (engine.Explanation): retryable, the attempt against the limit, the CPS
// as weight × signal against the emergency threshold and the circuit, the priority against
// floor(CPS×10), the recovery ramp's share, the tokens, and for a RETRY the delay's formula
// filled in. The run is paused while it shows; the frame holds the decisions, read from the
// source (source.Inspector) when it opened.
type inspectorPanel struct{ base }

// newInspector returns an empty inspector.
func newInspector(st Styles) *inspectorPanel { return &inspectorPanel{base{st: st}} }

// Update redraws the inspector on a full redraw and when the selection moved.
func (p *inspectorPanel) Update(msg tea.Msg) (*inspectorPanel, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok && f.shows(changedInspect) {
		p.view = p.render(f.f)
	}
	return p, nil
}

// listW is the width of the decision list: a third of the panel, none below 90 cells (the
// detail alone, which names the decision's place in the list).
func listW(w int) int {
	if w < 90 {
		return 0
	}
	return min(max(w/3, 36), 46)
}

func (p *inspectorPanel) render(f *frame) string {
	st := p.st
	ds := f.decisions
	k := f.keyMap()
	only := "all actions"
	if a := f.decisionAct - 1; a >= 0 {
		only = engine.Action(a).String() + " only"
	}
	title := fmt.Sprintf("Decision inspector · %s/%s select · %s: %s · %s close", keyName(k.ClassUp), keyName(k.ClassDown), keyName(k.LogFilter), only, keyName(k.Back))
	if len(ds) == 0 {
		empty := "No decision yet: a decision is made when an attempt fails. Resume, let a fault hit, and inspect again."
		if f.decisionAct > 0 {
			empty = fmt.Sprintf("No %s among the latest %d decisions: %s shows the next action.", only[:len(only)-5], len(f.kept), keyName(k.LogFilter))
		}
		return box(st, title, st.Muted.Render(wrap(empty, max(p.w-2, 1))), p.w, p.h)
	}
	sel := min(max(f.selDecision, 0), len(ds)-1)
	lw := listW(p.w)
	right := p.w - lw
	detail := box(st, fitTitle(right, title, fmt.Sprintf("Inspector · %s · %s close", only, keyName(k.Back)), "Inspector"), p.detail(ds[sel], sel, len(ds), f, right-2), right, p.h)
	if lw == 0 {
		return detail
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, box(st, "Latest decisions", p.list(ds, sel, lw-2, p.h-2), lw, p.h), detail)
}

// list draws the decisions around the selected one, newest at the bottom, one per line.
func (p *inspectorPanel) list(ds []source.DecisionRecord, sel, w, h int) string {
	if h <= 0 {
		return ""
	}
	start := min(max(sel-h/2, 0), max(len(ds)-h, 0))
	lines := make([]string, 0, h)
	for i := start; i < min(start+h, len(ds)); i++ {
		d := ds[i]
		line := fitLine(fmt.Sprintf("%7s %-9.9s p%-2d a%d %s", fmtClock(d.T), d.Class, d.Priority, d.Attempt, shortReason(d)), w)
		switch {
		case i == sel:
			line = p.st.Selected.Render(line)
		case d.Action == engine.Retry:
			line = p.st.Band[engine.Healthy].Render(line)
		default:
			line = p.st.Text.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// shortReason words a decision in a few cells for the list: "RETRY 2.1s", "shed", "budget".
func shortReason(d source.DecisionRecord) string {
	if d.Action == engine.Retry {
		return "RETRY " + fmtDelay(d.Delay)
	}
	for _, parts := range actionReasons {
		for _, r := range parts {
			if source.ReasonOf(d.Reason) == r.r {
				return r.name
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
func (p *inspectorPanel) detail(d source.DecisionRecord, i, n int, f *frame, w int) string {
	st := p.st
	strat := ""
	if len(f.runs) > 0 {
		strat = f.runs[0].meta.Strategy
	}
	what := fmt.Sprintf("attempt %d failed: %s", d.Attempt, d.Failure)
	if d.Failure == "new" {
		what = "a new request, before it is sent"
	}
	head := []string{
		st.Muted.Render(fmt.Sprintf("decision %d of %d shown (latest %d kept) · %s", i+1, n, len(f.kept), strat)),
		fmt.Sprintf("t %s · client %d · %s (priority %d) · %s", fmtClock(d.T), d.Client, d.Class, d.Priority, what),
	}
	verdict := d.Action.String()
	if d.Reason != "" && d.Reason != verdict { // CIRCUIT_OPEN's reason is CIRCUIT_OPEN: say it once
		verdict += " · " + d.Reason
	}
	switch {
	case d.Action == engine.Retry && d.Failure == "new":
		verdict = "HELD · ask again after " + fmtDelay(d.Delay)
	case d.Action == engine.Retry:
		verdict += " after " + fmtDelay(d.Delay)
	}
	style := st.Band[decisionBand[d.Action]]
	head = append(head, "→ "+style.Bold(true).Render(verdict), "")
	if !d.Explained {
		head = append(head, st.Muted.Render(wrap(fmt.Sprintf("%s decides without the CORTEX checks: it gives its verdict and its reason only. Run cortex (s) to see the five checks of each decision.", strat), max(w, 1))))
		return strings.Join(head, "\n")
	}
	if d.Why.Original {
		return strings.Join(append(head, p.admission(&d.Why, w)...), "\n")
	}
	return strings.Join(append(head, p.checks(&d.Why, w)...), "\n")
}

// admission draws the checks of a new request's admission: whether the service queues (the
// fastest recent success against the baseline), the share shed (what the service completed
// against what was asked), and the priority against the admission floor.
func (p *inspectorPanel) admission(x *engine.Explanation, w int) []string {
	st := p.st
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
		lines = append(lines, ellipsis(style.Render(mark)+" "+st.Bold.Render(fmt.Sprintf("%-20s", label))+" "+values, w))
	}
	sub := func(s string) { lines = append(lines, st.Muted.Render(ellipsis("    "+s, w))) }
	if !x.Admission {
		row(true, false, "admission", "off (the article's parameters): every new request goes")
		return lines
	}
	row(true, x.Shedding, "service queues?", fmt.Sprintf("fastest recent success S = %.2f %s 0.50 (2.5× the baseline)", x.Slowdown, geLt(x.Slowdown >= 0.5)))
	if x.Shedding {
		sub("and the short span shows refusals, failures or a CRITICAL score: shedding")
		row(true, false, "share shed", fmt.Sprintf("1 − 1.1 × %.1f completed / %.1f asked a second = %.0f%%", x.Completed, x.Asked, 100*x.ShedShare))
	} else {
		sub("no: every new request goes")
	}
	floor := fmt.Sprintf("priority %d %s admission floor %d", x.Priority, geLt(x.Priority >= x.AdmitFloor), x.AdmitFloor)
	if x.AdmitPart > 0 && x.Priority == x.AdmitFloor {
		floor += fmt.Sprintf(", %.0f%% of priority %d shed", 100*x.AdmitPart, x.AdmitFloor)
	}
	row(x.Shedding, shed, "priority ≥ floor", floor)
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
func (p *inspectorPanel) checks(x *engine.Explanation, w int) []string {
	st := p.st
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
		lines = append(lines, ellipsis(style.Render(mark)+" "+st.Bold.Render(fmt.Sprintf("%-20s", label))+" "+values, w))
	}
	sub := func(s string) { lines = append(lines, st.Muted.Render(ellipsis("    "+s, w))) }

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
	f := fmt.Sprintf("%s(0, %s × 2^%d × %s)", draw, fmtDelay(x.Base), x.Attempt, factor)
	if x.Ceiling > x.MaxDelay {
		f = fmt.Sprintf("min(%s, %s)", fmtDelay(x.MaxDelay), f)
	}
	return f + " = " + fmtDelay(x.Decision.Delay)
}

// fmtDelay formats a delay compactly, to the millisecond: 500ms, 1.25s, 30s.
func fmtDelay(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Round(time.Millisecond).Milliseconds())
	}
	ms := d.Round(time.Millisecond).Milliseconds()
	frac := strings.TrimRight(fmt.Sprintf("%03d", ms%1000), "0")
	if frac == "" {
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return strconv.FormatInt(ms/1000, 10) + "." + frac + "s"
}
