package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/eventlog"
	"github.com/cortex-tui/cortex-tui/tui/signals"
)

// The dashboard's controls of its sources: each key that sends a control (controlBindings), the
// action that sends it to every run (through the controller, after the advance in flight), and
// the words the event log gives the control once a source applied it (controlText). A new
// control is its source.ControlEvent, its case of model.Controls.Apply, its key in keymap, and
// its row and words here.

// controlBindings lists the keys that control the runs' sources and their actions.
func (m *Model) controlBindings() []binding {
	k := &m.keys
	bs := []binding{
		{&k.Strategy, m.cycleStrategy}, {&k.StrategyMenu, m.openMenu}, {&k.ClearFaults, m.clearFaults},
		{&k.NextWeight, m.weightSel(1)}, {&k.PrevWeight, m.weightSel(-1)},
		{&k.LowerWeight, m.weightBy(-weightStep)}, {&k.RaiseWeight, m.weightBy(weightStep)},
		{&k.Adaptive, m.toggleAdaptive},
		{&k.ClassUp, m.classSel(-1)}, {&k.ClassDown, m.classSel(1)},
		{&k.ShareDown, m.shareBy(-shareStep)}, {&k.ShareUp, m.shareBy(shareStep)},
		{&k.PriorityDown, m.priorityBy(-1)}, {&k.PriorityUp, m.priorityBy(1)},
	}
	for i, kind := range scenarios.FaultKinds { // a kind without a key has an unbound Fault[i]
		bs = append(bs, binding{&k.Fault[i], m.toggleFault(kind)})
	}
	return bs
}

// cycleStrategy switches the run (the right side in compare mode) to the next strategy, once
// no advance is in flight (whenIdle).
func (m *Model) cycleStrategy() tea.Cmd {
	if len(m.fr.runs) == 0 || m.over() {
		return nil
	}
	r := m.fr.runs[len(m.fr.runs)-1]
	m.ctl.whenIdle(func() { m.nextStrategy(r) })
	return nil
}

// openMenu opens the strategy menu on the run's strategy (the right side in compare mode),
// pausing a running run while the menu shows (at x8 a choice took 47 s of the run), as the
// inspector does; closing the menu resumes what it paused.
func (m *Model) openMenu() tea.Cmd {
	if len(m.fr.runs) == 0 || m.over() {
		return nil
	}
	var cmd tea.Cmd
	if !m.fr.paused && !m.done() && !m.following() {
		cmd = m.togglePause()
		m.menuOwns = true
	}
	m.menu.Open(m.fr.runs[len(m.fr.runs)-1].meta.Strategy)
	m.redraw()
	return cmd
}

// onMenuKey hands a key to the strategy menu, and switches the run to the strategy chosen
// there once no advance is in flight (whenIdle).
func (m *Model) onMenuKey(msg tea.KeyMsg) tea.Cmd {
	m.menu, _ = m.menu.Update(msg)
	if name := m.menu.Chosen(); name != "" && len(m.fr.runs) > 0 && name != m.fr.runs[len(m.fr.runs)-1].meta.Strategy && !m.over() {
		r := m.fr.runs[len(m.fr.runs)-1]
		m.ctl.whenIdle(func() {
			if slices.Contains(m.fr.runs, r) {
				if err := m.switchStrategy(r, name); err != nil {
					m.setStatus(fmt.Sprintf("strategy %s: %v", name, err), true)
				}
			}
		})
	}
	var cmd tea.Cmd
	if !m.menu.Opened() && m.menuOwns {
		m.menuOwns = false
		if m.fr.paused && !m.done() {
			cmd = m.togglePause()
		}
	}
	m.redraw()
	return cmd
}

// nextStrategy switches r to the next strategy its source accepts, if r is still watched.
func (m *Model) nextStrategy(r *run) {
	if !slices.Contains(m.fr.runs, r) {
		return // replaced while the switch waited for an advance
	}
	names := strategy.Names()
	i := slices.Index(names, r.meta.Strategy)
	var errs []string
	for step := 1; step < len(names); step++ { // skip strategies the source refuses
		next := names[(i+step+len(names))%len(names)]
		if err := m.switchStrategy(r, next); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		return
	}
	m.setStatus("no other strategy available: "+strings.Join(errs, "; "), true)
}

// switchStrategy switches r to the strategy name from now on and says so, or returns the
// source's refusal (nothing changed).
func (m *Model) switchStrategy(r *run, name string) error {
	if err := r.src.Control(source.SetStrategy(name)); err != nil {
		return err
	}
	r.syncMeta()
	r.rec.SwitchStrategy(name)
	m.applied(fmt.Sprintf("strategy %s from now on (%s)", name, strategy.Describe(name)))
	m.redraw()
	m.lessonControl(source.SetStrategy(name))
	return nil
}

// toggleFault injects a fault of kind with the dashboard's value, or clears it if active.
func (m *Model) toggleFault(kind scenarios.FaultKind) func() tea.Cmd {
	return func() tea.Cmd {
		if len(m.fr.runs) == 0 {
			return nil
		}
		if m.over() {
			return nil
		}
		if m.injected[kind] || m.faultActive(kind) {
			m.ctl.send(source.Clear(kind), nil)
			delete(m.injected, kind)
			m.applied(fmt.Sprintf("%s cleared", kind))
			return nil
		}
		spec, _ := kind.Spec()
		f := scenarios.Fault{Kind: kind, Value: spec.InjectValue(m.capacity())}
		m.ctl.send(source.Inject(f), nil)
		m.injected[kind] = true
		what := spec.Effect // "latency injected (+1s: added to the service time, ...)"
		if v := spec.Unit.Show(f.Value); v != "" {
			what = v + ": " + what
		}
		injected := fmt.Sprintf("%s injected (%s)", kind, what)
		m.applied(injected)
		// The footer gives what to press before the effect's words, which a narrow screen cuts
		// (at 80 columns it read "...answered 429); press again to"): the event log has them all.
		status := fmt.Sprintf("%s injected; press again to clear (%s)", kind, spec.Effect)
		if v := spec.Unit.Show(f.Value); v != "" {
			status = fmt.Sprintf("%s injected (%s); press again to clear: %s", kind, v, spec.Effect)
		}
		m.setStatus(status, false)
		return nil
	}
}

// faultActive reports whether the latest snapshot shows a fault of kind in effect.
func (m *Model) faultActive(kind scenarios.FaultKind) bool {
	for _, f := range m.fr.runs[0].hist.Last.Faults {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// capacity is the service's full capacity in requests/s, which a rate fault is injected
// relative to (scenarios.FaultSpec.InjectValue): the scenario's, or the latest snapshot's.
func (m *Model) capacity() float64 {
	if m.scn != nil {
		return m.scn.Service.Capacity()
	}
	return m.fr.runs[0].hist.Last.Service.Capacity
}

// clearFaults ends every active fault.
func (m *Model) clearFaults() tea.Cmd {
	if m.over() {
		return nil
	}
	m.ctl.send(source.ClearAll(), nil)
	clear(m.injected)
	m.applied("every fault cleared")
	return nil
}

// weightSel moves the weight selection by d (wrapping).
func (m *Model) weightSel(d int) func() tea.Cmd {
	return func() tea.Cmd {
		m.fr.selWeight = (m.fr.selWeight + d + len(signals.Names)) % len(signals.Names)
		m.redrawFor(changedWeights)
		return nil
	}
}

// weightBy changes the selected weight by delta, renormalises and applies the weights.
func (m *Model) weightBy(delta float64) func() tea.Cmd {
	return func() tea.Cmd {
		if m.over() {
			return nil
		}
		w := m.fr.weights
		s := signals.Names[m.fr.selWeight]
		if v := w[m.fr.selWeight]; (delta < 0 && v <= 0) || (delta > 0 && v >= 1) {
			m.setStatus(fmt.Sprintf("weight of %s (%s) is already %.2f", s.Key, s.Name, v), false)
			return nil
		}
		weights, err := engine.WeightsFrom(w).Adjust(m.fr.selWeight, delta)
		if err != nil {
			m.setStatus("the weights cannot all be zero", true)
			return nil
		}
		w = weights.Array()
		m.ctl.send(source.SetWeights(weights), func(err error) { m.setStatus("weights: "+err.Error(), true) })
		m.fr.weights = w
		m.applied(fmt.Sprintf("weight of %s (%s) now %.2f, renormalised", s.Key, s.Name, w[m.fr.selWeight]))
		m.redrawFor(changedWeights)
		m.lessonControl(source.SetWeights(weights))
		return nil
	}
}

// toggleAdaptive turns adaptive weights on or off.
func (m *Model) toggleAdaptive() tea.Cmd {
	if m.over() {
		return nil
	}
	m.fr.adaptive = !m.fr.adaptive
	m.ctl.send(source.SetAdaptive(m.fr.adaptive), nil)
	m.applied(fmt.Sprintf("adaptive weights %s", eventlog.OnOff(m.fr.adaptive)))
	m.redrawFor(changedWeights)
	return nil
}

// classSel moves the class selection by d (clamped).
func (m *Model) classSel(d int) func() tea.Cmd {
	return func() tea.Cmd {
		if len(m.fr.classes) == 0 {
			return nil
		}
		m.fr.selClass = min(max(m.fr.selClass+d, 0), len(m.fr.classes)-1)
		m.redrawFor(changedClasses)
		return nil
	}
}

// shareBy changes the selected class's share of traffic by d.
func (m *Model) shareBy(d float64) func() tea.Cmd {
	return func() tea.Cmd {
		return m.setClass(func(share float64, prio int) (float64, int) {
			return min(max(share+d, 0), maxShare), prio
		})
	}
}

// priorityBy changes the selected class's priority by d.
func (m *Model) priorityBy(d int) func() tea.Cmd {
	return func() tea.Cmd {
		return m.setClass(func(share float64, prio int) (float64, int) {
			return share, min(max(prio+d, 0), maxPriority)
		})
	}
}

// setClass applies change to the selected class on every run.
func (m *Model) setClass(change func(float64, int) (float64, int)) tea.Cmd {
	if m.fr.selClass >= len(m.fr.classes) || m.over() {
		return nil
	}
	c := &m.fr.classes[m.fr.selClass]
	share, prio := change(c.Share, c.Priority)
	if share == c.Share && prio == c.Priority {
		m.setStatus(fmt.Sprintf("class %s: share x%.2f, priority %d: already at the limit (share x0..x%g, priority 0..%d)",
			c.Name, share, prio, maxShare, maxPriority), false)
		return nil
	}
	name := c.Name
	m.ctl.send(source.SetClass(name, share, prio), func(err error) { m.setStatus(fmt.Sprintf("class %s: %v", name, err), true) })
	c.Share, c.Priority = share, prio
	m.applied(fmt.Sprintf("class %s: share x%.2f, priority %d", c.Name, share, prio))
	m.redrawFor(changedClasses)
	return nil
}

// controlText words a control a source applied for the event log (eventlog.Controls); "" for
// one the dashboard applied itself, whose words the event carries.
func controlText(c source.ControlEvent) string {
	switch c.Control {
	case source.ControlWeights:
		parts := make([]string, 0, len(engine.SignalNames))
		for i, v := range c.Weights.Array() {
			parts = append(parts, fmt.Sprintf("%s %.2f", engine.SignalNames[i], v))
		}
		return "weights set: " + strings.Join(parts, " ")
	case source.ControlAdaptive:
		return "adaptive weights " + eventlog.OnOff(c.On)
	case source.ControlClass:
		return fmt.Sprintf("class %s: share x%.2f, priority %d", c.Class, c.Share, c.Priority)
	case source.ControlStrategy:
		return "strategy: " + c.Strategy
	}
	return ""
}

// over reports whether every run is over, and then says in the footer that a control changes
// nothing any more: a finished run's results must never change (a strategy switched on the
// summary relabelled them, and the export named a strategy that never ran).
func (m *Model) over() bool {
	if !m.done() {
		return false
	}
	m.setStatus(fmt.Sprintf("the run is over: its results stay as they are; %s runs it again, %s picks another scenario",
		common.KeyName(m.keys.Restart), common.KeyName(m.keys.Load)), true)
	return true
}
