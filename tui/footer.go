package tui

import (
	"slices"
	"strings"

	bubbleshelp "github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/help"
)

// footer is the bottom line: a status message (an export's path, an error) and the short help
// rendered by bubbles/help from the keymap's bindings.
type footer struct {
	common.Base
	help   bubbleshelp.Model
	keys   keymap.KeyMap
	status string
	isErr  bool
	// summary says that the end-of-run summary shows: the short help is what leads on from it.
	summary bool
}

// newFooter returns a footer for keys.
func newFooter(st common.Styles, keys keymap.KeyMap) *footer {
	h := bubbleshelp.New()
	h.Styles = st.Help
	return &footer{Base: common.Base{St: st}, help: h, keys: keys}
}

// SetStatus sets the message shown left of the help ("" clears it), made inert on one line: an
// error may quote a file's text.
func (p *footer) SetStatus(s string, isErr bool) { p.status, p.isErr = safetext.Line(s), isErr }

// Update redraws the footer on a frameMsg.
func (p *footer) Update(msg tea.Msg) (*footer, tea.Cmd) {
	if f, ok := msg.(frameMsg); ok {
		live := len(f.f.runs) > 0 && f.f.runs[0].meta.Live
		line := " " + p.shortHelp(p.W-1, live)
		if p.status != "" {
			style := p.St.Status
			if p.isErr {
				style = p.St.Error
			}
			status := " " + style.Render(p.status)
			line = status
			p.help.Width = 0
			tail := p.help.ShortHelpView([]key.Binding{p.keys.Help, p.keys.Quit})
			if p.W-ansi.StringWidth(status)-3 >= ansi.StringWidth(tail) {
				line += p.St.Muted.Render("  │") + tail
			}
		}
		p.Rendered = common.Fit(line, p.W, p.H)
	}
	return p, nil
}

// shortHelp renders the short help in w cells: as many of the keymap's short bindings as fit,
// whole, then "? full help" and quit, which always show. (bubbles/help v1 lets the item that
// overflows through when its ellipsis does not fit either, so the line would be cut mid-word.)
// On live traffic (live) the speed and step keys, which do not apply, are left out.
func (p *footer) shortHelp(w int, live bool) string {
	p.help.Width = 0
	tail := []key.Binding{p.keys.Help, p.keys.Quit}
	skip := tail
	if live {
		skip = append(slices.Clip(skip), help.NotLive(p.keys)...)
	}
	sep := p.St.Help.ShortSeparator.Inline(true).Render(p.help.ShortSeparator)
	tailView := p.help.ShortHelpView(tail)
	room := w - ansi.StringWidth(tailView)
	var head []string
	short := p.keys.ShortHelp()
	if p.summary {
		short = p.keys.SummaryHelp()
	}
	for _, b := range short {
		if help.SameKeys(skip, b) {
			continue
		}
		item := p.help.ShortHelpView([]key.Binding{b})
		if room-ansi.StringWidth(item+sep) < 0 {
			break
		}
		room -= ansi.StringWidth(item + sep)
		head = append(head, item)
	}
	return strings.Join(append(head, tailView), sep)
}
