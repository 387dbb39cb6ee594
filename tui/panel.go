package tui

import "github.com/charmbracelet/bubbles/key"

// base holds what every panel has: its styles, its size in cells and its cached rendering.
// Panels redraw into view during Update; View only returns it.
type base struct {
	st   Styles
	w, h int
	view string
}

// SetSize sets the panel's outer size in cells (border included).
func (b *base) SetSize(w, h int) { b.w, b.h = max(w, 0), max(h, 0) }

// View returns the panel as last drawn, exactly its size.
func (b *base) View() string { return b.view }

// keyName is the key a binding shows in the help ("space", "q/ctrl+c"), so texts that name a
// key follow a remapped key file.
func keyName(b keyBinding) string { return b.Help().Key }

// keyBinding is a key binding of the keymap (bubbles/key).
type keyBinding = key.Binding
