// Package footer is the dashboard's bottom line, a component of its own: a status message (an
// export's path, an error) and the short help rendered by bubbles/help from the key map's
// bindings, as many whole bindings as fit. The root model sets the message and says what the
// screen shows (live traffic, the summary); the footer redraws itself and caches the line.
package footer

import (
	"slices"
	"strings"

	bubbleshelp "github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/keymap"
	"github.com/cortex-tui/cortex-tui/tui/common"
	"github.com/cortex-tui/cortex-tui/tui/help"
)

// Model is the bottom line: a status message left of the short help, or the short help alone.
// It is used from the Bubble Tea goroutine only.
type Model struct {
	common.Base
	help   bubbleshelp.Model
	keys   keymap.KeyMap
	status string
	isErr  bool
	// live says that the run is live traffic: the speed and step keys, which do not apply, go.
	live bool
	// summary says that the end-of-run summary shows: the short help is what leads on from it.
	summary bool
	drawn   bool // rendered at least once
}

// New returns a footer for keys, drawn with st.
func New(st common.Styles, keys keymap.KeyMap) *Model {
	h := bubbleshelp.New()
	h.Styles = st.Help
	return &Model{Base: common.Base{St: st}, help: h, keys: keys}
}

// SetStatus sets the message shown left of the help ("" clears it), made inert on one line (an
// error may quote a file's text), and redraws.
func (p *Model) SetStatus(s string, isErr bool) {
	p.status, p.isErr = safetext.Line(s), isErr
	p.render()
}

// Status returns the message shown, "" for none.
func (p *Model) Status() string { return p.status }

// Show says what the screen shows, live traffic and the summary, and redraws when that
// changed (the root calls it at every frame; the line depends on nothing else it is given).
func (p *Model) Show(live, summary bool) {
	if p.drawn && live == p.live && summary == p.summary {
		return
	}
	p.live, p.summary = live, summary
	p.render()
}

// SetSize sets the footer's size in cells and redraws it.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	p.render()
}

// render draws the line: the message and, when it leaves room, help and quit; or the short help.
func (p *Model) render() {
	line := " " + p.shortHelp(p.W-1)
	if p.status != "" {
		style := p.St.Status
		if p.isErr {
			style = p.St.Error
		}
		text := p.status
		if ansi.StringWidth(text) > p.W-1 { // cut visibly, never mid-word silently
			text = ansi.Truncate(text, max(p.W-2, 0), "…")
		}
		status := " " + style.Render(text)
		line = status
		p.help.Width = 0
		tail := p.help.ShortHelpView([]key.Binding{p.keys.Help, p.keys.Quit})
		if p.W-ansi.StringWidth(status)-3 >= ansi.StringWidth(tail) {
			line += p.St.Muted.Render("  │") + tail
		}
	}
	p.Rendered, p.drawn = common.Fit(line, p.W, p.H), true
}

// shortHelp renders the short help in w cells: as many of the keymap's short bindings as fit,
// whole, then "? full help" and quit, which always show. (bubbles/help v1 lets the item that
// overflows through when its ellipsis does not fit either, so the line would be cut mid-word.)
// On live traffic the speed and step keys, which do not apply, are left out.
func (p *Model) shortHelp(w int) string {
	p.help.Width = 0
	tail := []key.Binding{p.keys.Help, p.keys.Quit}
	skip := tail
	if p.live {
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
