package picker

import (
	"io"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/list"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// pickerItem is one scenario in the list, or one lesson (its scenario in scn, the lesson in
// lesson: the lessons' section after the scenarios); it filters on its name and summary.
type pickerItem struct {
	scn    scenarios.Scenario
	lesson *scenarios.Lesson
	n      int  // the lesson's number, from 1
	done   bool // the lesson was completed (now or before)
}

// FilterValue is the text the filter matches: the name, a space, the summary.
func (i pickerItem) FilterValue() string { return i.name() + " " + i.summary() }

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
func newPickerDelegate(st common.Styles) pickerDelegate {
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
	nameLen := utf8.RuneCountInString(it.name())
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
	_, _ = io.WriteString(w, line(it.name(), inName, name, nameMatch))
	if d.desc {
		_, _ = io.WriteString(w, "\n"+line(it.summary(), inSummary, summary, summaryMatch))
	}
}
