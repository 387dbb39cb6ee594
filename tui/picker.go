package tui

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
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
	pickerRoomyHeight     = 14 // from this list height: blank lines under the title and status bar
	pickerDescMinHeight   = 9  // from this list height: status bar, page dots, items with their summary
	pickerTitleMinHeight  = 4  // below this list height the title line is dropped
	pickerFactsMaxLines   = 2  // the fault timeline is cut to this many lines under the name
	pickerStoryMaxWidth   = 96 // the story wraps at this width at most, to stay readable
)

// picker is the scenario picker: a bubbles/list of scenarios (name and one-line summary, fuzzy
// filtering on both with the filter key) with the highlighted scenario's story beside the list
// (wide windows) or below it (narrow ones), wrapped to the width, and a one-line key hint.
// Enter picks (pickedMsg), esc drops the filter, then cancels (pickCancelledMsg) when a
// scenario runs behind the picker. It renders at any size without panicking, and its View is
// drawn once per change and cached. Like every panel it is used from the Bubble Tea goroutine
// only.
//
// The list's own help and quit keys are off: the root model quits (except while a filter is
// typed, when every key comes here: then ctrl+c leaves the input, and pressed again quits) and
// the picker draws its own hint line. The list filters synchronously (see forward), so a View
// after Update always shows the filter's matches.
type picker struct {
	st          Styles
	keys        keymap.KeyMap
	help        help.Model
	list        list.Model
	delegate    pickerDelegate
	roomy       list.Styles // the list's styles with blank lines under the title and status
	tight       list.Styles // the same without them, for short lists
	up, down    key.Binding // the list's movement keys (ClassUp/PrevWeight, ClassDown/NextWeight)
	cancellable bool

	w, h           int
	listW, listH   int
	storyW, storyH int
	sideBySide     bool
	story, hint    string // cached renderings
	storyName      string // whose story is cached
	view           string // the whole picker, redrawn by refresh
}

// pickerItem is one scenario in the list; it filters on its name and summary.
type pickerItem struct{ scn scenarios.Scenario }

// FilterValue is the text the fuzzy filter matches: the name, a space, the summary.
func (i pickerItem) FilterValue() string { return i.scn.Name + " " + i.scn.Summary }

// newPicker returns a picker over items (usually scenarios.Catalog()), their texts made inert
// (cleanScenario: a picked scenario is that clean copy), highlighting the first, with its keys
// taken from keys and its styles from st. It starts cancellable; call
// SetCancellable(false) when no scenario is running. Call SetSize before the first View.
func newPicker(st Styles, keys keymap.KeyMap, items []scenarios.Scenario) *picker {
	h := help.New()
	h.Styles = st.Help
	p := &picker{
		st: st, keys: keys, help: h, cancellable: true,
		delegate: newPickerDelegate(st),
		roomy:    pickerListStyles(st, true),
		tight:    pickerListStyles(st, false),
		up:       joinBindings(keys.ClassUp, keys.PrevWeight),
		down:     joinBindings(keys.ClassDown, keys.NextWeight),
	}
	li := make([]list.Item, len(items))
	for i, s := range items {
		li[i] = pickerItem{cleanScenario(s)}
	}
	p.list = list.New(li, p.delegate, 1, 1)
	p.list.Title = "Scenarios"
	p.list.SetStatusBarItemName("scenario", "scenarios")
	p.list.SetShowHelp(false)
	p.list.KeyMap = p.listKeys()
	p.list.DisableQuitKeybindings()
	p.list.Styles = p.roomy
	p.list.Paginator.ActiveDot = p.roomy.ActivePaginationDot.String()
	p.list.Paginator.InactiveDot = p.roomy.InactivePaginationDot.String()
	p.list.FilterInput.Prompt = "Filter: "
	p.list.FilterInput.PromptStyle = st.Accent
	p.list.FilterInput.TextStyle = st.Text
	p.list.FilterInput.Cursor.Style = st.Accent
	p.list.FilterInput.Cursor.SetMode(cursor.CursorStatic) // no blink: the cached view stays right
	return p
}

// listKeys maps the list's bindings to ours, so a remapped key file drives the list too. The
// list's own bindings without a counterpart here (go to start or end, help, quit) match nothing.
func (p *picker) listKeys() list.KeyMap {
	none := key.NewBinding()
	return list.KeyMap{
		CursorUp:             p.up,
		CursorDown:           p.down,
		PrevPage:             p.keys.LowerWeight,
		NextPage:             p.keys.RaiseWeight,
		GoToStart:            none,
		GoToEnd:              none,
		Filter:               p.keys.Filter,
		ClearFilter:          p.keys.Back,
		CancelWhileFiltering: p.keys.Back,
		AcceptWhileFiltering: joinBindings(p.up, p.down), // then the picker moves (onKey)
		ShowFullHelp:         none,
		CloseFullHelp:        none,
		Quit:                 p.keys.Quit, // disabled: the root model quits
		ForceQuit:            none,
	}
}

// joinBindings is one binding matching the keys of all of bs, with help listing theirs.
func joinBindings(bs ...key.Binding) key.Binding {
	var keys, shown []string
	for _, b := range bs {
		keys = append(keys, b.Keys()...)
		if k := b.Help().Key; k != "" {
			shown = append(shown, k)
		}
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(shown, "/"), ""))
}

// pickerListStyles are the list's styles drawn from the named palette; roomy adds a blank
// line under the title and under the status bar.
func pickerListStyles(st Styles, roomy bool) list.Styles {
	pad := 0
	if roomy {
		pad = 1
	}
	s := list.DefaultStyles()
	s.TitleBar = st.Text.Padding(0, 0, pad, 1)
	s.Title = st.Title
	s.Spinner = st.Muted
	s.FilterPrompt = st.Accent
	s.FilterCursor = st.Accent
	s.DefaultFilterCharacterMatch = st.Accent.Underline(true)
	s.StatusBar = st.Muted.Padding(0, 0, pad, 1)
	s.StatusEmpty = st.Muted
	s.StatusBarActiveFilter = st.Text
	s.StatusBarFilterCount = st.Muted
	s.NoItems = st.Muted.PaddingLeft(2)
	s.PaginationStyle = st.Muted.PaddingLeft(2)
	s.ActivePaginationDot = st.Accent.SetString("•")
	s.InactivePaginationDot = st.Muted.SetString("•")
	s.ArabicPagination = st.Muted
	s.DividerDot = st.Muted.SetString(" • ")
	return s
}

// SetCancellable says whether esc may leave the picker (a scenario is running behind it).
func (p *picker) SetCancellable(on bool) {
	p.cancellable = on
	p.refresh(true)
}

// Filtering reports whether the user is typing a filter: the root model must then send every
// key to the picker, so that "q" or "s" are typed rather than acted on.
func (p *picker) Filtering() bool { return p.list.SettingFilter() }

// Selected returns the highlighted scenario, false when the filter matches nothing.
func (p *picker) Selected() (scenarios.Scenario, bool) {
	it, ok := p.list.SelectedItem().(pickerItem)
	return it.scn, ok
}

// Select clears the filter and highlights the scenario named name, if it is in the list (to
// reopen the picker on the scenario that is running).
func (p *picker) Select(name string) {
	p.list.ResetFilter()
	p.selectName(name)
	p.fitChrome()
	p.refresh(false)
}

// selectName highlights the scenario named name in the visible items; it keeps the highlight
// when name is not among them.
func (p *picker) selectName(name string) {
	for i, it := range p.list.VisibleItems() {
		if it.(pickerItem).scn.Name == name {
			p.list.Select(i)
			return
		}
	}
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
		p.listW = min(max(p.w*9/20, 28), 66) // room for most one-line summaries at 140 columns
		p.listH, p.storyH = bodyH, bodyH
		p.storyW = min(p.w-p.listW-3, pickerStoryMaxWidth) // " │ " between the two
	case bodyH >= pickerStoryBelowMin:
		p.storyH = bodyH / 3
		p.listW, p.storyW = p.w, p.w
		p.listH = bodyH - p.storyH - 1 // a rule between the two
	default:
		p.listW, p.listH = p.w, bodyH
		p.storyW, p.storyH = 0, 0
	}
	p.fitList()
	p.refresh(true)
}

// fitList sizes the list and chooses what it shows at its height: from pickerRoomyHeight
// everything with blank lines between; from pickerDescMinHeight the title, status bar,
// summaries and page dots; from pickerTitleMinHeight the title and names; below that the
// names alone. Items
// are spaced by a blank line when all of them fit so. The list never gets less than 1x1: it
// would be drawn with negative widths otherwise, and the picker clips its output anyway.
func (p *picker) fitList() {
	h := p.listH
	roomy := h >= pickerRoomyHeight
	p.list.Styles = p.tight
	if roomy {
		p.list.Styles = p.roomy
	}
	p.list.SetShowStatusBar(h >= pickerDescMinHeight)
	p.list.SetShowPagination(h >= pickerDescMinHeight)
	p.delegate.desc = h >= pickerDescMinHeight
	chrome := 0
	switch {
	case roomy:
		chrome = 2 + 2 + 2 // title, status bar and page dots, each with a blank line
	case h >= pickerDescMinHeight:
		chrome = 2 + 2 // title, status bar, page dots and the blank line above them
	case h >= pickerTitleMinHeight:
		chrome = 1
	}
	n := len(p.list.Items())
	p.delegate.spacing = 0
	if p.delegate.desc && n*(p.delegate.Height()+1) <= h-chrome {
		p.delegate.spacing = 1
	}
	p.list.SetDelegate(p.delegate)
	p.fitChrome()
}

// fitChrome shows the title line when the list is tall enough, and always while a filter is
// typed (the title line then holds the filter's input), then lets the list count its items
// per page again until the count holds. bubbles/list counts them with the page dots of the
// previous count (none on a single page, two lines on several), so after a resize or a
// filter it can draw a line more than its height, and the dots would be clipped.
func (p *picker) fitChrome() {
	title := p.listH >= pickerTitleMinHeight
	if p.list.ShowTitle() != title {
		p.list.SetShowTitle(title)
	}
	if filter := title || p.list.SettingFilter(); p.list.ShowFilter() != filter {
		p.list.SetShowFilter(filter)
	}
	for range 3 {
		per := p.list.Paginator.PerPage
		p.list.SetSize(max(p.listW, 1), max(p.listH, 1))
		if p.list.Paginator.PerPage == per {
			break
		}
	}
}

// Update handles a key and returns the picker (for chaining, like every panel) and a command:
// pickedMsg on enter, pickCancelledMsg on esc. Other messages reach the list only while a
// filter is typed (a paste from the clipboard); the rest are ignored.
func (p *picker) Update(msg tea.Msg) (*picker, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyMsg:
		cmd = p.onKeys(msg)
	default:
		if !p.list.SettingFilter() {
			return p, nil
		}
		cmd = p.forward(msg)
	}
	p.fitChrome()
	p.refresh(false)
	return p, cmd
}

// onKeys handles keys typed faster than the terminal is read ("/dns" arrives as one message)
// one at a time, as if typed slowly, so the first can open the filter for the others. A paste
// stays whole.
func (p *picker) onKeys(km tea.KeyMsg) tea.Cmd {
	if km.Type != tea.KeyRunes || len(km.Runes) < 2 || km.Paste || p.list.SettingFilter() {
		return p.onKey(km)
	}
	var cmds []tea.Cmd
	for i, r := range km.Runes {
		if p.list.SettingFilter() { // the rest is the filter's text
			return tea.Batch(append(cmds, p.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: km.Runes[i:], Alt: km.Alt}))...)
		}
		cmds = append(cmds, p.onKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: km.Alt}))
	}
	return tea.Batch(cmds...)
}

// onKey handles a key: enter picks (accepting the filter being typed), esc with no filter
// cancels, and the rest goes to the list. A movement key typed in the filter leaves the input
// with the filter kept and moves; opening the input or dropping the filter keeps the
// highlighted scenario.
func (p *picker) onKey(km tea.KeyMsg) tea.Cmd {
	filtering := p.list.SettingFilter()
	switch {
	case key.Matches(km, p.keys.Select):
		scn, ok := p.Selected()
		if !ok {
			return nil
		}
		if filtering {
			p.list.SetFilterState(list.FilterApplied)
			p.list.FilterInput.Blur()
			p.selectName(scn.Name)
		}
		return func() tea.Msg { return pickedMsg{scenario: scn} }
	case key.Matches(km, p.keys.Back) && p.list.FilterState() == list.Unfiltered:
		if p.cancellable {
			return func() tea.Msg { return pickCancelledMsg{} }
		}
		return nil
	case filtering && p.list.FilterValue() == "" && key.Matches(km, p.up, p.down):
		p.list.ResetFilter() // nothing typed: leave the input and move
	case filtering && km.Type != tea.KeyRunes && key.Matches(km, p.keys.Quit):
		// The root model sends quit keys here while a filter is typed, so that "q" is typed;
		// one that cannot be typed (ctrl+c) leaves the input, and pressed again it quits.
		keep, had := p.Selected()
		p.list.ResetFilter()
		if had {
			p.selectName(keep.Name)
		}
		return nil
	}
	keep, had := p.Selected()
	wasFiltered := p.list.FilterState() != list.Unfiltered
	cmd := p.forward(km)
	switch {
	case !had:
	case wasFiltered && p.list.FilterState() == list.Unfiltered, !filtering && p.list.SettingFilter():
		p.selectName(keep.Name) // the filter was dropped, or the input opened (the list goes to the top)
	case filtering && p.list.IsFiltered() && key.Matches(km, p.up):
		p.list.CursorUp()
	case filtering && p.list.IsFiltered() && key.Matches(km, p.down):
		p.list.CursorDown()
	}
	return cmd
}

// forward hands msg to the list. When it changed the filter's text, the picker filters at
// once (SetFilterText runs the list's fuzzy filter synchronously) and drops the list's
// command, which would only deliver the same matches later; the input keeps its cursor.
func (p *picker) forward(msg tea.Msg) tea.Cmd {
	before := p.list.FilterValue()
	var cmd tea.Cmd
	p.list, cmd = p.list.Update(msg)
	if !p.list.SettingFilter() || p.list.FilterValue() == before {
		return cmd
	}
	pos := p.list.FilterInput.Position()
	p.list.SetFilterText(p.list.FilterValue())
	p.list.SetFilterState(list.Filtering)
	p.list.FilterInput.SetCursor(pos)
	return nil
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

// renderStory draws the story block of scn, wrapped and clipped to storyW x storyH.
func (p *picker) renderStory(scn scenarios.Scenario, ok bool) string {
	w, h := p.storyW, p.storyH
	if w <= 0 || h <= 0 {
		return ""
	}
	if !ok {
		return fit(p.st.Muted.Render(pickerWrap("No scenario matches the filter.", w)), w, h)
	}
	story := scn.Story
	if story == "" {
		story = scn.Summary
	}
	fleet, faults := pickerFacts(scn)
	faultLines := strings.Split(pickerWrap(faults, w), "\n")
	if len(faultLines) > pickerFactsMaxLines {
		faultLines = faultLines[:pickerFactsMaxLines]
		last := faultLines[pickerFactsMaxLines-1]
		faultLines[pickerFactsMaxLines-1] = ansi.Truncate(last, max(w-1, 0), "") + "…"
	}
	var b strings.Builder
	b.WriteString(p.st.Title.Render(ansi.Truncate(scn.Name, w, "…")))
	b.WriteString("\n")
	b.WriteString(p.st.Muted.Render(pickerWrap(fleet, w)))
	b.WriteString("\n")
	b.WriteString(p.st.Muted.Render(strings.Join(faultLines, "\n")))
	b.WriteString("\n\n")
	b.WriteString(p.st.Text.Render(pickerWrap(story, w)))
	return fit(b.String(), w, h)
}

// pickerFacts is what the story block says under a scenario's name: its length, fleet and
// priority classes, and its fault timeline.
func pickerFacts(scn scenarios.Scenario) (fleet, faults string) {
	fleet = pickerDuration(scn.Duration)
	if scn.Drain > 0 { // the header's total counts the drain too
		fleet += " + " + pickerDuration(scn.Drain) + " drain"
	}
	fleet += " · " + strconv.Itoa(scn.Clients) + " clients"
	if len(scn.Classes) > 0 {
		cs := make([]string, len(scn.Classes))
		for i, c := range scn.Classes {
			cs[i] = c.Name + " p" + strconv.Itoa(c.Priority)
		}
		fleet += " · " + strings.Join(cs, ", ")
	}
	if len(scn.Faults) == 0 {
		return fleet, "no injected fault: the load alone"
	}
	fs := make([]string, len(scn.Faults))
	for i, f := range scn.Faults {
		fs[i] = pickerFault(f)
	}
	return fleet, "faults: " + strings.Join(fs, ", ")
}

// pickerFault writes one fault of the timeline: kind, strength and when, e.g.
// "latency +500ms 0:20-0:50", "errors 30% 1:00-1:30", "outage 1:00-1:30".
func pickerFault(f scenarios.Fault) string {
	s := f.Kind.Label(f.Value)
	if f.Duration <= 0 {
		return s + " from " + pickerClock(f.At)
	}
	return s + " " + pickerClock(f.At) + "-" + pickerClock(f.At+f.Duration)
}

// pickerClock writes a virtual time as m:ss.
func pickerClock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int64(d/time.Minute), int64(d%time.Minute/time.Second))
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
	move := relabel(joinBindings(p.keys.ClassUp, p.keys.ClassDown), "move")
	bindings := []key.Binding{relabel(p.keys.Select, "pick")}
	switch {
	case p.list.SettingFilter():
		bindings = append(bindings, relabel(p.keys.Back, "drop filter"))
		if p.list.FilterValue() != "" {
			bindings = append(bindings, relabel(move, "browse matches"))
		}
	case p.list.IsFiltered():
		bindings = append(bindings, move, relabel(p.keys.Filter, "edit filter"), relabel(p.keys.Back, "drop filter"), p.keys.Quit)
	default:
		bindings = append(bindings, move)
		if p.list.Paginator.TotalPages > 1 {
			bindings = append(bindings, relabel(joinBindings(p.keys.LowerWeight, p.keys.RaiseWeight), "page"))
		}
		bindings = append(bindings, relabel(p.keys.Filter, "filter"))
		if p.cancellable {
			bindings = append(bindings, relabel(p.keys.Back, "back"))
		}
		bindings = append(bindings, p.keys.Quit)
	}
	p.help.Width = p.w
	return fit(p.help.ShortHelpView(bindings), p.w, 1)
}

// View returns the picker as last drawn, exactly its size (w x h cells; "" for an empty size).
func (p *picker) View() string { return p.view }

// render draws the whole picker from the list and the cached story and hint.
func (p *picker) render() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	lst := ""
	if p.listW > 0 && p.listH > 0 {
		lst = fit(p.list.View(), p.listW, p.listH)
	}
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
	return fit(body, p.w, p.h)
}

// pickerDelegate draws one scenario of the list: a bar and its name, then its summary when
// desc is set. The highlighted scenario is marked even while a filter is typed (enter picks
// it then too), and the characters the filter matched are underlined.
type pickerDelegate struct {
	desc    bool // show the summary line
	spacing int  // blank lines between items

	mark, name, summary           lipgloss.Style
	selName, selSummary           lipgloss.Style
	nameMatch, summaryMatch       lipgloss.Style
	selNameMatch, selSummaryMatch lipgloss.Style
}

// newPickerDelegate builds the delegate's styles from st (once, not while drawing).
func newPickerDelegate(st Styles) pickerDelegate {
	selName := st.Accent.Bold(true)
	return pickerDelegate{
		mark: st.Accent, name: st.Text, summary: st.Muted,
		selName: selName, selSummary: st.Accent,
		nameMatch: st.Text.Underline(true), summaryMatch: st.Muted.Underline(true),
		selNameMatch: selName.Underline(true), selSummaryMatch: st.Accent.Underline(true),
	}
}

// Height is the lines one item takes: 2 with the summary, 1 without.
func (d pickerDelegate) Height() int {
	if d.desc {
		return 2
	}
	return 1
}

// Spacing is the blank lines between items.
func (d pickerDelegate) Spacing() int { return d.spacing }

// Update does nothing: the picker handles every key itself.
func (d pickerDelegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }

// Render writes item (at index among the visible items) cut to the list's width.
func (d pickerDelegate) Render(w io.Writer, m list.Model, index int, item list.Item) {
	it, ok := item.(pickerItem)
	if !ok || m.Width() <= 0 {
		return
	}
	textW := max(m.Width()-2, 0)
	name, summary, mark := d.name, d.summary, "  "
	nameMatch, summaryMatch := d.nameMatch, d.summaryMatch
	if index == m.Index() {
		name, summary, mark = d.selName, d.selSummary, "│ "
		nameMatch, summaryMatch = d.selNameMatch, d.selSummaryMatch
	}
	// The matches index the runes of FilterValue: the name, a space, the summary.
	var inName, inSummary []int
	nameLen := utf8.RuneCountInString(it.scn.Name)
	for _, r := range m.MatchesForItem(index) {
		switch {
		case r < nameLen:
			inName = append(inName, r)
		case r > nameLen:
			inSummary = append(inSummary, r-nameLen-1)
		}
	}
	line := func(text string, matches []int, plain, matched lipgloss.Style) string {
		text = ansi.Truncate(text, textW, "…")
		if len(matches) == 0 {
			return d.mark.Render(mark) + plain.Render(text)
		}
		return d.mark.Render(mark) + lipgloss.StyleRunes(text, matches, matched, plain)
	}
	_, _ = io.WriteString(w, line(it.scn.Name, inName, name, nameMatch))
	if d.desc {
		_, _ = io.WriteString(w, "\n"+line(it.scn.Summary, inSummary, summary, summaryMatch))
	}
}
