package tui

import "github.com/charmbracelet/lipgloss"

// side joins blocks left to right, top-aligned.
func side(blocks ...string) string { return lipgloss.JoinHorizontal(lipgloss.Top, blocks...) }

// stack joins blocks top to bottom, left-aligned.
func stack(blocks ...string) string { return lipgloss.JoinVertical(lipgloss.Left, blocks...) }
