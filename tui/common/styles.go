package common

import (
	"strconv"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/source"
)

// The named palette. Every colour of the dashboard comes from here; each adapts to light and
// dark terminals, and lipgloss drops them all under NO_COLOR or a colourless terminal.
var (
	colText      = lipgloss.AdaptiveColor{Light: "#1F2328", Dark: "#E6EDF3"}
	colMuted     = lipgloss.AdaptiveColor{Light: "#6E7781", Dark: "#8B949E"}
	colBorder    = lipgloss.AdaptiveColor{Light: "#AFB8C1", Dark: "#3D444D"}
	colAccent    = lipgloss.AdaptiveColor{Light: "#0550AE", Dark: "#58A6FF"}
	colHealthy   = lipgloss.AdaptiveColor{Light: "#1A7F37", Dark: "#3FB950"}
	colDegraded  = lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#E3B341"}
	colCritical  = lipgloss.AdaptiveColor{Light: "#BC4C00", Dark: "#F0883E"}
	colEmergency = lipgloss.AdaptiveColor{Light: "#CF222E", Dark: "#F85149"}
	colInk       = lipgloss.AdaptiveColor{Light: "#FFFFFF", Dark: "#0D1117"}
	colOriginals = lipgloss.AdaptiveColor{Light: "#0969DA", Dark: "#79C0FF"}
	colRetries   = lipgloss.AdaptiveColor{Light: "#8250DF", Dark: "#D2A8FF"}
	colSuccess   = colHealthy
	colCapacity  = colMuted
)

// Styles is every lipgloss style the dashboard renders with, built once by NewStyles (or
// DefaultStyles) and handed to each panel, so no panel builds a style while rendering. Every
// style is bound to the renderer it was built with: its colour profile, NO_COLOR and dark or
// light background are that renderer's, so dashboards drawn for different terminals (the
// sessions of an SSH server) can run in one process. A Styles is a plain value, safe to copy
// and to read from several goroutines.
type Styles struct {
	Text, Muted, Bold, Accent, Selected lipgloss.Style
	Title                               lipgloss.Style // panel titles
	Panel                               lipgloss.Style // rounded border around a panel, top side drawn by box
	BorderLine                          lipgloss.Style // the top border, drawn by hand to hold the title
	Header                              lipgloss.Style // the top line
	Caption                             lipgloss.Style // the scenario's current note
	Status                              lipgloss.Style // the footer's status message
	Error                               lipgloss.Style // errors in the footer
	Warn                                lipgloss.Style // "window is small" and similar

	Badge [4]lipgloss.Style // state badges, indexed by engine.State
	Band  [4]lipgloss.Style // state band colours as foreground, indexed by engine.State

	Originals, Retries, Successes, Capacity lipgloss.Style // traffic series
	CPSLine                                 lipgloss.Style // the CPS series

	ServiceUp, ServiceDown, ServiceWarming lipgloss.Style

	FleetJoint, FleetLocal lipgloss.Style // the fleet panel's mode: every engine on the fleet's view, or some on their own

	GaugeFull, GaugeEmpty lipgloss.Style
	Events                [6]lipgloss.Style // event log lines, indexed by source.EventKind

	Help help.Styles
}

// DefaultStyles returns the dashboard's styles for the process's own terminal: NewStyles with
// lipgloss's default renderer (standard output, the process's environment).
func DefaultStyles() Styles { return NewStyles(lipgloss.DefaultRenderer()) }

// NewStyles returns the dashboard's styles, built from the named palette, rendered by r: r's
// colour profile (none under NO_COLOR) and background decide what the colours become.
func NewStyles(r *lipgloss.Renderer) Styles {
	s := r.NewStyle()
	in := func(c lipgloss.AdaptiveColor) lipgloss.AdaptiveColor { return inProfile(r.ColorProfile(), c) }
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return s.Foreground(in(c)) }
	badge := func(c lipgloss.AdaptiveColor) lipgloss.Style {
		return s.Bold(true).Foreground(in(colInk)).Background(in(c)).Padding(0, 1)
	}
	st := Styles{
		Text:       fg(colText),
		Muted:      fg(colMuted),
		Bold:       fg(colText).Bold(true),
		Accent:     fg(colAccent),
		Selected:   fg(colAccent).Bold(true).Reverse(true),
		Title:      fg(colAccent).Bold(true),
		Panel:      s.Border(lipgloss.RoundedBorder()).BorderTop(false).BorderForeground(in(colBorder)),
		BorderLine: fg(colBorder),
		Header:     fg(colText),
		Caption:    fg(colText).Italic(true),
		Status:     fg(colAccent),
		Error:      fg(colEmergency).Bold(true),
		Warn:       fg(colDegraded).Bold(true),
		FleetJoint: fg(colHealthy).Bold(true),
		FleetLocal: fg(colCritical).Bold(true),

		Badge: [4]lipgloss.Style{badge(colHealthy), badge(colDegraded), badge(colCritical), badge(colEmergency)},
		Band:  [4]lipgloss.Style{fg(colHealthy), fg(colDegraded), fg(colCritical), fg(colEmergency)},

		Originals: fg(colOriginals),
		Retries:   fg(colRetries),
		Successes: fg(colSuccess),
		Capacity:  fg(colCapacity),
		CPSLine:   fg(colText).Bold(true),

		ServiceUp:      fg(colHealthy).Bold(true),
		ServiceDown:    fg(colEmergency).Bold(true),
		ServiceWarming: fg(colDegraded).Bold(true),

		GaugeFull:  fg(colAccent),
		GaugeEmpty: fg(colBorder),
		Events:     [6]lipgloss.Style{fg(colText).Italic(true), fg(colCritical), fg(colEmergency), fg(colDegraded), fg(colAccent), fg(colCritical)},

		Help: helpStyles(fg),
	}
	return st
}

// helpStyles are bubbles' help styles (the colours of help.New) built by fg, so that the help
// too renders with the styles' renderer rather than lipgloss's default one.
func helpStyles(fg func(lipgloss.AdaptiveColor) lipgloss.Style) help.Styles {
	key := fg(lipgloss.AdaptiveColor{Light: "#909090", Dark: "#626262"})
	desc := fg(lipgloss.AdaptiveColor{Light: "#B2B2B2", Dark: "#4A4A4A"})
	sep := fg(lipgloss.AdaptiveColor{Light: "#DDDADA", Dark: "#3C3C3C"})
	return help.Styles{
		ShortKey: key, ShortDesc: desc, ShortSeparator: sep, Ellipsis: sep,
		FullKey: key, FullDesc: desc, FullSeparator: sep,
	}
}

// inProfile returns c with each of its hex colours converted once, here, to the colour profile
// p shows it in: on a 256- or 16-colour terminal lipgloss converts a hex colour at every
// Render (the nearest of the 256 by HSLuv distance), which was a fifth of a served dashboard's
// CPU; the index it finds is the same, so the screen is too. A true-colour or colourless
// profile keeps c as it is.
func inProfile(p termenv.Profile, c lipgloss.AdaptiveColor) lipgloss.AdaptiveColor {
	if p != termenv.ANSI256 && p != termenv.ANSI {
		return c
	}
	conv := func(hex string) string {
		switch tc := p.Color(hex).(type) {
		case termenv.ANSI256Color:
			return strconv.Itoa(int(tc))
		case termenv.ANSIColor:
			return strconv.Itoa(int(tc))
		}
		return hex
	}
	return lipgloss.AdaptiveColor{Light: conv(c.Light), Dark: conv(c.Dark)}
}

// StateBadge renders the state band as a coloured badge, e.g. " HEALTHY " on green.
func (st Styles) StateBadge(s engine.State) string {
	if s < engine.Healthy || s > engine.Emergency {
		return st.Muted.Render(" n/a ")
	}
	return st.Badge[s].Render(s.String())
}

// BandOf is the foreground style of a state band.
func (st Styles) BandOf(s engine.State) lipgloss.Style {
	if s < engine.Healthy || s > engine.Emergency {
		return st.Muted
	}
	return st.Band[s]
}

// Service renders a service state (UP, DOWN, CRASHED, WARMING) in its colour, "-" before
// the first tick.
func (st Styles) Service(state source.ServiceState) string {
	return st.ServiceOf(source.Service{State: state})
}

// ServiceOf is Service for a service's whole state: "not measured" for a service not the
// source's to measure (live --target: your own) while nothing says it is down, where UP would
// claim a health the source never saw (it said UP while every attempt was answered 500).
func (st Styles) ServiceOf(svc source.Service) string {
	state := svc.State
	if svc.Unmeasured && state == source.ServiceUp {
		return st.Muted.Render("not measured")
	}
	switch state {
	case source.ServiceUp:
		return st.ServiceUp.Render(state.String())
	case source.ServiceWarming:
		return st.ServiceWarming.Render(state.String())
	case source.ServiceUnknown:
		return st.Muted.Render("-")
	}
	return st.ServiceDown.Render(state.String())
}

// Level is the colour of the band a value in [0,1] (a signal) falls in on the CPS's scale with
// the default emergency threshold (engine.StateFor), so a signal's sparkline reads like the CPS.
func (st Styles) Level(v float64) lipgloss.Style {
	return st.BandOf(engine.StateFor(v, engine.DefaultEmergencyThreshold))
}
