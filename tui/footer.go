package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/keymap"
)

// footer is the bottom line: a status message (an export's path, an error) and the short help
// rendered by bubbles/help from the keymap's bindings.
type footer struct {
	base
	help   help.Model
	keys   keymap.KeyMap
	status string
	isErr  bool
}

// newFooter returns a footer for keys.
func newFooter(st Styles, keys keymap.KeyMap) *footer {
	h := help.New()
	h.Styles = st.Help
	return &footer{base: base{st: st}, help: h, keys: keys}
}

// SetStatus sets the message shown left of the help ("" clears it).
func (p *footer) SetStatus(s string, isErr bool) { p.status, p.isErr = s, isErr }

// Update redraws the footer on a frameMsg.
func (p *footer) Update(msg tea.Msg) (*footer, tea.Cmd) {
	if _, ok := msg.(frameMsg); ok {
		p.help.Width = p.w
		short := p.help.ShortHelpView(p.keys.ShortHelp())
		line := " " + short
		if p.status != "" {
			style := p.st.Status
			if p.isErr {
				style = p.st.Error
			}
			status := " " + style.Render(strings.ReplaceAll(p.status, "\n", " "))
			line = status
			if rest := p.w - ansi.StringWidth(status) - 3; rest > 10 {
				p.help.Width = rest
				line += p.st.Muted.Render("  │") + p.help.ShortHelpView([]keyBinding{p.keys.Help, p.keys.Quit})
			}
		}
		p.view = fit(line, p.w, p.h)
	}
	return p, nil
}

// helpScreen is the full help: every binding, grouped, from the same keymap as the footer, with
// a word on remapping keys.
type helpScreen struct {
	base
	help help.Model
	keys keymap.KeyMap
}

// newHelpScreen returns the full help for keys.
func newHelpScreen(st Styles, keys keymap.KeyMap) *helpScreen {
	h := help.New()
	h.Styles = st.Help
	h.ShowAll = true
	return &helpScreen{base: base{st: st}, help: h, keys: keys}
}

// Update redraws the help on a frameMsg.
func (p *helpScreen) Update(msg tea.Msg) (*helpScreen, tea.Cmd) {
	if _, ok := msg.(frameMsg); ok {
		iw, _ := inner(p.w, p.h)
		p.help.Width = iw
		body := strings.Join([]string{
			p.st.Muted.Render("time · faults (inject / clear) · tuning · views"),
			"",
			p.help.FullHelpView(p.keys.FullHelp()),
			"",
			p.st.Muted.Render("Faults: 1 outage, 2 blackhole, 3 latency +1s, 4 errors 50%, 5 throttle at 50% of capacity,"),
			p.st.Muted.Render("6 capacity x0.3; press again to clear. Weights move by 0.05 and are renormalised at once."),
			p.st.Muted.Render("Classes: up/down select, [ ] share of traffic (x0.25 steps), { } priority (0..10)."),
			p.st.Muted.Render("Remap keys in " + keyFileHint() + `, e.g.  pause = ["space", "p"]`),
			"",
			p.st.Muted.Render("Press ? or esc to close."),
		}, "\n")
		p.view = box(p.st, "Help", body, p.w, p.h)
	}
	return p, nil
}

// keyFileHint is where the key file lives, in words that hold on every OS (the real path is
// os.UserConfigDir()/cortex-tui/keys.toml; the help must not differ from machine to machine).
func keyFileHint() string { return "<user config dir>/cortex-tui/keys.toml" }
