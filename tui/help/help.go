// Package help is the dashboard's full help, a component of its own: every key binding of the
// key map, grouped, what the fault and tuning keys do exactly, where the key file lives, and
// on its second page the glossary of every word the dashboard shows; its own keys scroll it
// and turn its page.
package help

import (
	"fmt"
	"slices"
	"strings"

	bubbleshelp "github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// Model is the full help: every binding, grouped, from the same keymap as the footer, with a
// word on remapping keys, and on its second page the glossary. On live traffic it leaves out
// the keys the footer leaves out. It is used from the Bubble Tea goroutine only.
type Model struct {
	common.Base
	help   bubbleshelp.Model
	keys   keymap.KeyMap
	offset int  // first line shown, when the help is taller than the window
	page   int  // 0 the keys, 1 the glossary
	live   bool // the run shown is live traffic
	class  bool // the dashboard is part of a class (its keys are shown)
}

// helpPages is how many pages the help has: the keys, then the glossary.
const helpPages = 2

// New returns the full help for keys, drawn with st.
func New(st common.Styles, keys keymap.KeyMap) *Model {
	h := bubbleshelp.New()
	h.Styles = st.Help
	h.ShowAll = true
	return &Model{Base: common.Base{St: st}, help: h, keys: keys}
}

// SetMode says whether the run shown is live traffic (its speed keys do not apply) and whether
// the dashboard is part of a class (the class's keys apply; elsewhere they are left out), and
// redraws.
func (p *Model) SetMode(live, class bool) {
	p.live, p.class = live, class
	p.render()
}

// SetSize sets the help's outer size in cells and redraws it.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	p.render()
}

// Update scrolls the help by a line on the keys that move the class selection (up, down),
// clamped when drawn, and turns the page (keys, glossary) on the keys that select a weight
// (tab, shift+tab). Other messages change nothing.
func (p *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.keys.ClassUp):
			p.offset = max(p.offset-1, 0)
		case key.Matches(msg, p.keys.ClassDown):
			p.offset++
		case key.Matches(msg, p.keys.NextWeight):
			p.page, p.offset = (p.page+1)%helpPages, 0
		case key.Matches(msg, p.keys.PrevWeight):
			p.page, p.offset = (p.page+helpPages-1)%helpPages, 0
		default:
			return p, nil
		}
	default:
		return p, nil
	}
	p.render()
	return p, nil
}

// render draws the help into its cached view, from the line at offset.
func (p *Model) render() {
	iw, _ := common.Inner(p.W, p.H)
	muted := func(s string) string { return p.St.Muted.Render(ansi.Wordwrap(s, max(iw, 1), " ")) }
	closing := p.St.Muted.Render(fmt.Sprintf("Press %s or %s to close, %s for the %s.", common.KeyName(p.keys.Help), common.KeyName(p.keys.Back),
		common.KeyName(p.keys.NextWeight), [helpPages]string{"glossary", "keys"}[p.page]))
	_, ih := common.Inner(p.W, p.H)
	body := squeeze([]string{
		p.groups(iw),
		muted(p.notes()) + "\n" + muted("Remap keys in "+keyFileHint()+`, e.g.  pause = ["space", "p"]`),
		closing,
	}, ih)
	title := "Help"
	if p.page == 1 {
		title = "Glossary"
		body = squeeze([]string{glossaryText(p.St, max(iw, 1)), closing}, ih)
	}
	if ih > 0 {
		lines := strings.Split(body, "\n")
		if over := len(lines) - ih; over > 0 {
			p.offset = min(p.offset, over)
			lines = lines[p.offset:]
			title = fmt.Sprintf("%s · %s/%s scroll (%d lines above, %d below)", title, p.keys.ClassUp.Help().Key, p.keys.ClassDown.Help().Key, p.offset, over-p.offset)
		} else {
			p.offset = 0
		}
		body = strings.Join(lines, "\n")
	}
	p.Rendered = common.Box(p.St, title, body, p.W, p.H)
}

// squeeze joins sections with a blank line between each two, and leaves out as many of the
// blank lines (the last first) as a body of h lines needs to fit without scrolling; a body
// too tall even without them keeps them all.
func squeeze(sections []string, h int) string {
	n := len(sections) - 1 // the blank lines
	for _, s := range sections {
		n += strings.Count(s, "\n") + 1
	}
	gaps := len(sections) - 1 // the blank lines kept, the first ones
	if over := n - h; over > 0 && over <= gaps {
		gaps -= over // it fits without them; a body that scrolls anyway keeps them all
	}
	var b strings.Builder
	for i, s := range sections {
		if i > 0 {
			b.WriteString("\n")
			if i <= gaps {
				b.WriteString("\n")
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

// notes says what the fault and tuning keys do exactly, naming the keys as bound.
func (p *Model) notes() string {
	k := p.keys
	var faults []string
	for i, spec := range scenarios.FaultSpecs() {
		if spec.Binding == "" {
			continue
		}
		what := spec.Label(spec.Inject)
		if spec.Unit == scenarios.UnitRate { // injected as a share of the capacity
			what = fmt.Sprintf("%s at %s of capacity", spec.Kind, scenarios.UnitFraction.Show(spec.Inject))
		}
		faults = append(faults, common.KeyName(k.Fault[i])+" "+what)
	}
	return fmt.Sprintf("Faults: %s; press again to clear. Weights move by 0.05 and are renormalised at once. "+
		"Classes: %s/%s select, %s %s share of traffic (x0.25 steps), %s %s priority (0..10).",
		strings.Join(faults, ", "),
		common.KeyName(k.ClassUp), common.KeyName(k.ClassDown), common.KeyName(k.ShareDown), common.KeyName(k.ShareUp), common.KeyName(k.PriorityDown), common.KeyName(k.PriorityUp))
}

// groups lays the FullHelp groups out in as few columns as the width allows (4, 2 or 1), since
// bubbles/help truncates the columns that do not fit: group i in column i mod the columns,
// each column's groups stacked with a blank line between them, so a short group leaves no gap
// under it for a taller neighbour's sake.
func (p *Model) groups(w int) string {
	p.help.Width = 0
	all := p.keys.FullHelp()
	var skip []key.Binding
	if p.live {
		skip = NotLive(p.keys)
	}
	if !p.class {
		skip = append(skip, ClassOnly(p.keys)...)
	}
	if len(skip) > 0 {
		for i, g := range all {
			all[i] = slices.DeleteFunc(slices.Clone(g), func(b key.Binding) bool { return SameKeys(skip, b) })
		}
	}
	cols := make([]string, len(all))
	for i, g := range all {
		cols[i] = p.help.FullHelpView([][]key.Binding{g})
	}
	const gap = "   "
	for _, n := range []int{len(cols), 2, 1} {
		var parts []string
		for j := range min(n, len(cols)) {
			var stacked []string
			for i := j; i < len(cols); i += n {
				stacked = append(stacked, cols[i])
			}
			if j > 0 {
				parts = append(parts, gap)
			}
			parts = append(parts, strings.Join(stacked, "\n\n"))
		}
		if out := lipgloss.JoinHorizontal(lipgloss.Top, parts...); lipgloss.Width(out) <= w || n == 1 {
			return out
		}
	}
	return ""
}

// keyFileHint is where the key file lives, in words that hold on every OS (the real path is
// os.UserConfigDir()/cortex-tui/keys.toml; the help must not differ from machine to machine).
func keyFileHint() string { return "<user config dir>/cortex-tui/keys.toml" }

// NotLive returns the bindings that do not apply to live traffic (speed and step: real time
// runs at one speed), which the footer and the help screen leave out on a live run. They stay
// bound: the dashboard explains them when pressed.
func NotLive(k keymap.KeyMap) []key.Binding { return []key.Binding{k.Faster, k.Slower, k.Step} }

// ClassOnly returns the bindings that apply only in a class served over SSH (fork, the lesson's
// next step), which the help leaves out elsewhere. They stay bound: the dashboard explains them
// when pressed.
func ClassOnly(k keymap.KeyMap) []key.Binding { return []key.Binding{k.Fork, k.NextStep} }

// SameKeys reports whether b is bound to the same keys as one of bs.
func SameKeys(bs []key.Binding, b key.Binding) bool {
	return slices.ContainsFunc(bs, func(t key.Binding) bool { return slices.Equal(t.Keys(), b.Keys()) })
}
