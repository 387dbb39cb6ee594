package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// pickedMsg says the user picked a scenario in the picker (enter).
type pickedMsg struct{ scenario scenarios.Scenario }

// pickCancelledMsg says the user left the picker without picking (esc). The root model ignores
// it when no scenario is running yet.
type pickCancelledMsg struct{}

// Picker layout thresholds, in cells.
const (
	pickerSideBySideWidth = 72 // from this width the story sits beside the list, below it otherwise
	pickerStoryBelowMin   = 12 // below this body height a narrow picker shows the list alone
	pickerDescMinHeight   = 9  // below this list height items show their name only
	pickerTitleMinHeight  = 4  // below this list height the title line is dropped
)

// picker is the scenario picker: a filterable list of scenarios (name and one-line summary)
// with the highlighted scenario's story beside the list (wide windows) or below it (narrow
// ones), wrapped to the width. Enter picks (pickedMsg), esc cancels (pickCancelledMsg), "/"
// filters on name and summary. It renders at any size without panicking.
//
// It is a small list of its own rather than bubbles/list: bubbles/list and bubbles/textinput
// import github.com/sahilm/fuzzy and github.com/atotto/clipboard, which go.mod does not list.
// Like every panel it is used from the Bubble Tea goroutine only.
type picker struct {
	st          Styles
	keys        keymap.KeyMap
	help        help.Model
	items       []scenarios.Scenario
	cancellable bool

	shown     []int  // indices into items that match the filter, in catalog order
	cursor    int    // index into shown of the highlighted scenario
	offset    int    // index into shown of the first visible row
	filter    string // the filter text (case-insensitive substring of name or summary)
	filtering bool   // the user is typing the filter

	w, h                   int
	listW, listH           int
	storyW, storyH         int
	sideBySide, withDesc   bool
	story, hint, storyName string // cached renderings (storyName: whose story is cached)
	view                   string // the whole picker, redrawn by refresh
}

// newPicker returns a picker over items (usually scenarios.Catalog()), highlighting the first,
// with its keys taken from keys and its styles from st. It starts cancellable; call
// SetCancellable(false) when no scenario is running. Call SetSize before the first View.
func newPicker(st Styles, keys keymap.KeyMap, items []scenarios.Scenario) *picker {
	h := help.New()
	h.Styles = st.Help
	p := &picker{st: st, keys: keys, help: h, items: items, cancellable: true}
	p.applyFilter()
	return p
}

// SetCancellable says whether esc may leave the picker (a scenario is running behind it).
func (p *picker) SetCancellable(on bool) {
	p.cancellable = on
	p.refresh(true)
}

// Filtering reports whether the user is typing a filter: the root model must then send every
// key to the picker, so that "q" or "s" are typed rather than acted on.
func (p *picker) Filtering() bool { return p.filtering }

// Selected returns the highlighted scenario, false when the filter matches nothing.
func (p *picker) Selected() (scenarios.Scenario, bool) {
	if p.cursor < 0 || p.cursor >= len(p.shown) {
		return scenarios.Scenario{}, false
	}
	return p.items[p.shown[p.cursor]], true
}

// Select clears the filter and highlights the scenario named name, if it is in the list (to
// reopen the picker on the scenario that is running).
func (p *picker) Select(name string) {
	p.filter, p.filtering = "", false
	p.applyFilter()
	for i, idx := range p.shown {
		if p.items[idx].Name == name {
			p.cursor = i
		}
	}
	p.scroll()
	p.refresh(false)
}

// SetSize sets the picker's size in cells; non-positive sizes render nothing.
func (p *picker) SetSize(w, h int) {
	p.w, p.h = max(w, 0), max(h, 0)
	bodyH := p.h
	if p.h >= 3 {
		bodyH-- // the hint line
	}
	p.sideBySide = p.w >= pickerSideBySideWidth && bodyH >= 5
	switch {
	case p.sideBySide:
		p.listW = min(max(p.w*2/5, 28), 50)
		p.listH, p.storyH = bodyH, bodyH
		p.storyW = p.w - p.listW - 3 // " │ " between the two
	case bodyH >= pickerStoryBelowMin:
		p.storyH = bodyH / 3
		p.listW, p.storyW = p.w, p.w
		p.listH = bodyH - p.storyH - 1 // a rule between the two
	default:
		p.listW, p.listH = p.w, bodyH
		p.storyW, p.storyH = 0, 0
	}
	p.withDesc = p.listH >= pickerDescMinHeight
	p.scroll()
	p.refresh(true)
}

// Update handles a key and returns the picker (for chaining, like every panel) and a command:
// pickedMsg on enter, pickCancelledMsg on esc. Other messages are ignored.
func (p *picker) Update(msg tea.Msg) (*picker, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	var cmd tea.Cmd
	if p.filtering {
		cmd = p.updateFiltering(km)
	} else {
		cmd = p.updateBrowsing(km)
	}
	p.scroll()
	p.refresh(false)
	return p, cmd
}

// updateBrowsing handles a key while the list has the focus.
func (p *picker) updateBrowsing(km tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(km, p.keys.Select):
		return p.pick()
	case key.Matches(km, p.keys.Back):
		if p.filter != "" {
			p.filter = ""
			p.applyFilter()
			return nil
		}
		if p.cancellable {
			return func() tea.Msg { return pickCancelledMsg{} }
		}
	case key.Matches(km, p.keys.Filter):
		p.filtering = true
	default:
		p.move(km)
	}
	return nil
}

// updateFiltering handles a key while the user types the filter: text edits the filter, enter
// picks the highlighted match, esc drops the filter, the list's movement keys leave the
// filter's input with the filter kept.
func (p *picker) updateFiltering(km tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(km, p.keys.Select):
		p.filtering = false
		return p.pick()
	case key.Matches(km, p.keys.Back):
		p.filter, p.filtering = "", false
		p.applyFilter()
	case km.Type == tea.KeyBackspace:
		if r := []rune(p.filter); len(r) > 0 {
			p.filter = string(r[:len(r)-1])
			p.applyFilter()
		}
	case km.Type == tea.KeyRunes && !km.Alt, km.Type == tea.KeySpace:
		p.filter += string(km.Runes)
		p.applyFilter()
	default:
		if p.move(km) {
			p.filtering = false
		}
	}
	return nil
}

// move moves the highlight for the list's movement keys and reports whether km was one.
func (p *picker) move(km tea.KeyMsg) bool {
	page := max(p.rows(), 1)
	switch {
	case key.Matches(km, p.keys.ClassUp), key.Matches(km, p.keys.PrevWeight):
		p.cursor--
	case key.Matches(km, p.keys.ClassDown), key.Matches(km, p.keys.NextWeight):
		p.cursor++
	case key.Matches(km, p.keys.LowerWeight):
		p.cursor -= page
	case key.Matches(km, p.keys.RaiseWeight):
		p.cursor += page
	default:
		return false
	}
	p.cursor = max(min(p.cursor, len(p.shown)-1), 0)
	return true
}

// pick emits pickedMsg for the highlighted scenario, if any.
func (p *picker) pick() tea.Cmd {
	scn, ok := p.Selected()
	if !ok {
		return nil
	}
	return func() tea.Msg { return pickedMsg{scenario: scn} }
}

// applyFilter recomputes the matching scenarios, keeping the highlighted one when it still
// matches and highlighting the first match otherwise.
func (p *picker) applyFilter() {
	var keep string
	if scn, ok := p.Selected(); ok {
		keep = scn.Name
	}
	needle := strings.ToLower(strings.TrimSpace(p.filter))
	p.shown = p.shown[:0]
	p.cursor = 0
	for i, s := range p.items {
		if needle == "" || strings.Contains(strings.ToLower(s.Name+" "+s.Summary), needle) {
			if s.Name == keep {
				p.cursor = len(p.shown)
			}
			p.shown = append(p.shown, i)
		}
	}
}

// rowsPer is how many lines one item takes: its name, and its summary when there is room.
func (p *picker) rowsPer() int {
	if p.withDesc {
		return 2
	}
	return 1
}

// headerLines is how many lines the list's title takes.
func (p *picker) headerLines() int {
	switch {
	case p.listH >= pickerDescMinHeight:
		return 2 // the title and a blank line
	case p.listH >= pickerTitleMinHeight || p.filtering || p.filter != "":
		return 1
	}
	return 0
}

// rows is how many items fit in the list.
func (p *picker) rows() int { return max((p.listH-p.headerLines())/p.rowsPer(), 0) }

// scroll keeps the highlighted item visible.
func (p *picker) scroll() {
	n := p.rows()
	if n <= 0 {
		p.offset = 0
		return
	}
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+n {
		p.offset = p.cursor - n + 1
	}
	p.offset = max(min(p.offset, len(p.shown)-n), 0)
}

// refresh redraws the cached story (when the highlight changed, or always with force), the
// hint line and the whole view. Every change of state ends with a refresh.
func (p *picker) refresh(force bool) {
	scn, ok := p.Selected()
	name := "\x00none"
	if ok {
		name = scn.Name
	}
	if force || name != p.storyName {
		p.storyName = name
		p.story = p.renderStory(scn, ok)
	}
	p.hint = p.renderHint()
	p.view = p.render()
}

// renderList draws the title (or the filter being typed) and the visible items.
func (p *picker) renderList() string {
	w := p.listW
	if w <= 0 || p.listH <= 0 {
		return ""
	}
	var lines []string
	if hl := p.headerLines(); hl > 0 {
		var title string
		switch {
		case p.filtering:
			title = p.st.Accent.Render(p.keys.Filter.Help().Key+" ") + p.st.Text.Render(p.filter) + p.st.Accent.Render("▏")
		case p.filter != "":
			title = p.st.Title.Render("Scenarios") + p.st.Muted.Render(fmt.Sprintf(" %d of %d matching %q", len(p.shown), len(p.items), p.filter))
		default:
			title = p.st.Title.Render("Scenarios") + p.st.Muted.Render(" "+strconv.Itoa(len(p.items)))
		}
		lines = append(lines, ansi.Truncate(" "+title, w, "…"))
		if hl == 2 {
			lines = append(lines, "")
		}
	}
	if len(p.shown) == 0 {
		lines = append(lines, p.st.Muted.Render(ansi.Truncate("  no scenario matches", w, "…")))
	}
	for i := p.offset; i < len(p.shown) && i < p.offset+p.rows(); i++ {
		scn := p.items[p.shown[i]]
		name, desc := p.st.Text, p.st.Muted
		mark := "  "
		if i == p.cursor {
			name, desc = p.st.Accent.Bold(true), p.st.Accent
			mark = "│ "
		}
		lines = append(lines, p.st.Accent.Render(mark)+name.Render(ansi.Truncate(scn.Name, max(w-2, 0), "…")))
		if p.withDesc {
			lines = append(lines, p.st.Accent.Render(mark)+desc.Render(ansi.Truncate(scn.Summary, max(w-2, 0), "…")))
		}
	}
	return pickerFit(strings.Join(lines, "\n"), w, p.listH)
}

// renderStory draws the story block of scn, wrapped and clipped to storyW x storyH.
func (p *picker) renderStory(scn scenarios.Scenario, ok bool) string {
	w, h := p.storyW, p.storyH
	if w <= 0 || h <= 0 {
		return ""
	}
	if !ok {
		return pickerFit(p.st.Muted.Render(pickerWrap("No scenario matches the filter.", w)), w, h)
	}
	story := scn.Story
	if story == "" {
		story = scn.Summary
	}
	var b strings.Builder
	b.WriteString(p.st.Title.Render(ansi.Truncate(scn.Name, w, "…")))
	b.WriteString("\n")
	b.WriteString(p.st.Muted.Render(pickerWrap(pickerFacts(scn), w)))
	b.WriteString("\n\n")
	b.WriteString(p.st.Text.Render(pickerWrap(story, w)))
	return pickerFit(b.String(), w, h)
}

// pickerFacts is the line of numbers under a scenario's name.
func pickerFacts(scn scenarios.Scenario) string {
	return fmt.Sprintf("%s · %d clients · seed %d", pickerDuration(scn.Duration), scn.Clients, scn.Seed)
}

// pickerDuration writes a scenario's length for people: "3 min", "2 min 30 s", "45 s".
func pickerDuration(d time.Duration) string {
	d = d.Round(time.Second)
	m, s := int64(d/time.Minute), int64(d%time.Minute/time.Second)
	switch {
	case m > 0 && s == 0:
		return fmt.Sprintf("%d min", m)
	case m > 0:
		return fmt.Sprintf("%d min %d s", m, s)
	default:
		return fmt.Sprintf("%d s", s)
	}
}

// pickerWrap wraps text to w cells, keeping its paragraphs (blank lines) and hard-wrapping
// words longer than the width.
func pickerWrap(text string, w int) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, para := range paras {
		para = strings.Join(strings.Fields(para), " ")
		paras[i] = ansi.Hardwrap(ansi.Wordwrap(para, w, "-"), w, true)
	}
	return strings.Join(paras, "\n\n")
}

// renderHint draws the picker's one-line key hint.
func (p *picker) renderHint() string {
	if p.h < 3 || p.w <= 0 {
		return ""
	}
	relabel := func(b key.Binding, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
	}
	bindings := []key.Binding{relabel(p.keys.Select, "pick")}
	switch {
	case p.filtering:
		bindings = append(bindings, relabel(p.keys.Back, "drop filter"))
	case p.filter != "":
		bindings = append(bindings, relabel(p.keys.Filter, "edit filter"), relabel(p.keys.Back, "drop filter"), p.keys.Quit)
	default:
		move := key.NewBinding(key.WithKeys(append(p.keys.ClassUp.Keys(), p.keys.ClassDown.Keys()...)...),
			key.WithHelp(p.keys.ClassUp.Help().Key+"/"+p.keys.ClassDown.Help().Key, "move"))
		bindings = append(bindings, move, relabel(p.keys.Filter, "filter"))
		if p.cancellable {
			bindings = append(bindings, relabel(p.keys.Back, "back"))
		}
		bindings = append(bindings, p.keys.Quit)
	}
	p.help.Width = p.w
	return pickerFit(p.help.ShortHelpView(bindings), p.w, 1)
}

// View returns the picker as last drawn, exactly its size (w x h cells; "" for an empty size).
func (p *picker) View() string { return p.view }

// render draws the whole picker from the list and the cached story and hint.
func (p *picker) render() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	lst := p.renderList()
	var body string
	switch {
	case p.sideBySide:
		rule := p.st.Muted.Render(" │ ")
		ls, ss := strings.Split(lst, "\n"), strings.Split(p.story, "\n")
		rows := make([]string, p.listH)
		for i := range rows {
			rows[i] = ls[i] + rule + ss[i]
		}
		body = strings.Join(rows, "\n")
	case p.storyH > 0:
		body = lst + "\n" + p.st.Muted.Render(strings.Repeat("─", p.w)) + "\n" + p.story
	default:
		body = lst
	}
	if p.hint != "" {
		body += "\n" + p.hint
	}
	return pickerFit(body, p.w, p.h)
}

// pickerFit clips or pads s to exactly w cells by h lines.
func pickerFit(s string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			l = ansi.Truncate(l, w, "")
		}
		if n := ansi.StringWidth(l); n < w {
			l += strings.Repeat(" ", w-n)
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
