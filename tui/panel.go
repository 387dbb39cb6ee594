package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// component is what every panel of the layout table is (soft-serve's common.Component is the
// model): it takes its outer size in cells, updates on a message and returns its view, exactly
// its size. On a frameMsg it redraws its cached view from the frame (a full redraw, or a partial
// change it shows: see frameMsg.shows); a panel with keys of its own (the help screen) handles
// them too. Update returns the panel's own type P, as glow's and bubbles' components do, so a
// panel used on its own (in a test) reads naturally; the layout table holds it through mount.
type component[P any] interface {
	SetSize(w, h int)
	Update(msg tea.Msg) (P, tea.Cmd)
	View() string
}

// panel is a component as the layout table holds it, its type erased by mount: the root model
// sizes, updates and draws every panel through this interface, with no switch over types.
type panel interface {
	SetSize(w, h int)
	Update(msg tea.Msg) tea.Cmd
	View() string
}

// mount returns p as a panel of the layout table. A type that lacks a method of component
// fails to compile where the table mounts it.
func mount[P component[P]](p P) panel { return &mounted[P]{p} }

// mounted adapts a component of type P to panel.
type mounted[P component[P]] struct{ p P }

func (m *mounted[P]) SetSize(w, h int) { m.p.SetSize(w, h) }
func (m *mounted[P]) View() string     { return m.p.View() }
func (m *mounted[P]) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.p, cmd = m.p.Update(msg)
	return cmd
}
