package picker

import (
	"github.com/charmbracelet/bubbles/list"

	"github.com/cortex-tui/cortex-tui/tui/common"
)

// pickerListStyles are the list's styles drawn from the named palette; roomy adds a blank
// line under the title and under the status bar.
func pickerListStyles(st common.Styles, roomy bool) list.Styles {
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
