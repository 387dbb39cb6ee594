// Package picker is the dashboard's scenario picker, a component of its own as bubbles' list/
// is: the built-in scenarios (and the lessons) in a filtered list, the highlighted one's story
// beside or under it, its own keys (from the key map) and styles (from tui/common). The
// dashboard's root model shows it alone over the whole window and routes every key to it while
// it is shown; it answers with PickedMsg, PickedLessonMsg or CancelledMsg.
package picker

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

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

// Model is the scenario picker: a bubbles/list of scenarios (name and one-line summary,
// filtered on both with the filter key: what holds the text typed first, then fuzzy matches) with the highlighted scenario's story beside the list
// (wide windows) or below it (narrow ones), wrapped to the width, and a one-line key hint.
// Enter picks (PickedMsg), esc drops the filter, then cancels (CancelledMsg) when a
// scenario runs behind the picker. It renders at any size without panicking, and its View is
// drawn once per change and cached. Like every panel it is used from the Bubble Tea goroutine
// only.
//
// The list's own help and quit keys are off: the root model quits (except while a filter is
// typed, when every key comes here: then ctrl+c leaves the input, and pressed again quits) and
// the picker draws its own hint line. The list filters synchronously (see forward), so a View
// after Update always shows the filter's matches.
//
// Its files follow bubbles' list/: picker.go is the component (the list's set-up, sizes, keys
// handled, the whole view), item.go the item and its delegate, styles.go the list's styles
// drawn from the palette, keys.go the list's key map and the hint line, story.go the story
// block beside or under the list, lessons.go the lessons section.
type Model struct {
	st          common.Styles
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

// New returns a picker over items (usually scenarios.Catalog()), their texts made inert
// (cleanScenario: a picked scenario is that clean copy), highlighting the first, with its keys
// taken from keys and its styles from st. It starts cancellable; call
// SetCancellable(false) when no scenario is running. Call SetSize before the first View.
func New(st common.Styles, keys keymap.KeyMap, items []scenarios.Scenario) *Model {
	h := help.New()
	h.Styles = st.Help
	p := &Model{
		st: st, keys: keys, help: h, cancellable: true,
		delegate: newPickerDelegate(st),
		roomy:    pickerListStyles(st, true),
		tight:    pickerListStyles(st, false),
		up:       joinBindings(keys.ClassUp, keys.PrevWeight),
		down:     joinBindings(keys.ClassDown, keys.NextWeight),
	}
	li := make([]list.Item, len(items))
	for i, s := range items {
		li[i] = pickerItem{scn: common.CleanScenario(s)}
	}
	p.list = list.New(li, p.delegate, 1, 1)
	p.list.Title = "Scenarios"
	p.list.SetStatusBarItemName("scenario", "scenarios")
	p.list.SetShowHelp(false)
	p.list.KeyMap = p.listKeys()
	p.list.DisableQuitKeybindings()
	p.list.Filter = substringFirst
	p.list.Styles = p.roomy
	p.list.Paginator.ActiveDot = p.roomy.ActivePaginationDot.String()
	p.list.Paginator.InactiveDot = p.roomy.InactivePaginationDot.String()
	p.list.FilterInput.Prompt = "Filter: "
	p.list.FilterInput.PromptStyle = st.Accent
	p.list.FilterInput.TextStyle = st.Text
	p.list.FilterInput.PlaceholderStyle = st.Muted // textinput's own are on lipgloss's default renderer
	p.list.FilterInput.CompletionStyle = st.Muted
	p.list.FilterInput.Cursor.Style = st.Accent
	p.list.FilterInput.Cursor.SetMode(cursor.CursorStatic) // no blink: the cached view stays right
	return p
}

// SetCancellable says whether esc may leave the picker (a scenario is running behind it).
func (p *Model) SetCancellable(on bool) {
	p.cancellable = on
	p.refresh(true)
}

// Filtering reports whether the user is typing a filter: the root model must then send every
// key to the picker, so that "q" or "s" are typed rather than acted on.
func (p *Model) Filtering() bool { return p.list.SettingFilter() }

// Selected returns the highlighted scenario, false when the filter matches nothing.
func (p *Model) Selected() (scenarios.Scenario, bool) {
	it, ok := p.list.SelectedItem().(pickerItem)
	return it.scn, ok
}

// Select clears the filter and highlights the scenario named name, if it is in the list (to
// reopen the picker on the scenario that is running).
func (p *Model) Select(name string) {
	p.list.ResetFilter()
	p.selectName(name)
	p.fitChrome()
	p.refresh(false)
}

// selectName highlights the scenario named name in the visible items; it keeps the highlight
// when name is not among them.
func (p *Model) selectName(name string) {
	for i, it := range p.list.VisibleItems() {
		if it.(pickerItem).scn.Name == name {
			p.list.Select(i)
			return
		}
	}
}

// SetSize sets the picker's size in cells; non-positive sizes render nothing.
func (p *Model) SetSize(w, h int) {
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
func (p *Model) fitList() {
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
func (p *Model) fitChrome() {
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
// PickedMsg on enter, CancelledMsg on esc. Other messages reach the list only while a
// filter is typed (a paste from the clipboard); the rest are ignored.
func (p *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
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
func (p *Model) onKeys(km tea.KeyMsg) tea.Cmd {
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
func (p *Model) onKey(km tea.KeyMsg) tea.Cmd {
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
		if l := p.selectedLesson(); l != nil {
			return func() tea.Msg { return PickedLessonMsg{Scenario: scn, Lesson: *l} }
		}
		return func() tea.Msg { return PickedMsg{Scenario: scn} }
	case key.Matches(km, p.keys.Back) && p.list.FilterState() == list.Unfiltered:
		if p.cancellable {
			return func() tea.Msg { return CancelledMsg{} }
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
func (p *Model) forward(msg tea.Msg) tea.Cmd {
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
func (p *Model) refresh(force bool) {
	scn, ok := p.Selected()
	name := "\x00none"
	if ok {
		name = scn.Name
	}
	if l := p.selectedLesson(); l != nil {
		name = "\x00lesson " + l.Name
	}
	if force || name != p.storyName {
		p.storyName = name
		p.story = p.renderStory(scn, ok)
	}
	p.hint = p.renderHint()
	p.view = p.render()
}

// View returns the picker as last drawn, exactly its size (w x h cells; "" for an empty size).
func (p *Model) View() string { return p.view }

// render draws the whole picker from the list and the cached story and hint.
func (p *Model) render() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	lst := ""
	if p.listW > 0 && p.listH > 0 {
		lst = common.Fit(p.list.View(), p.listW, p.listH)
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
	return common.Fit(body, p.w, p.h)
}

// PickedMsg says the user picked a scenario in the picker (enter).
type PickedMsg struct{ Scenario scenarios.Scenario }

// CancelledMsg says the user left the picker without picking (esc). The root model ignores it
// when no scenario is running yet.
type CancelledMsg struct{}
