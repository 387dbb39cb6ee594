package picker

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/list"

	"github.com/cortex-tui/cortex-tui/tui/common"
)

// listKeys maps the list's bindings to ours, so a remapped key file drives the list too. The
// list's own bindings without a counterpart here (go to start or end, help, quit) match nothing.
func (p *Model) listKeys() list.KeyMap {
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

// renderHint draws the picker's one-line key hint.
func (p *Model) renderHint() string {
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
	return common.Fit(p.help.ShortHelpView(bindings), p.w, 1)
}
