package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// presentMode is what presenter mode shows: one chart over the whole window under the header
// and the caption in full, readable from the back of a room (the present key cycles them).
type presentMode int

const (
	presentOff     presentMode = iota // the dashboard
	presentTraffic                    // the traffic chart against the capacity
	presentCPS                        // the CPS chart with its bands
)

// presentNames say in the footer what presenter mode shows.
var presentNames = [...]string{presentOff: "off", presentTraffic: "traffic", presentCPS: "CPS"}

// togglePresent cycles presenter mode: traffic, then the CPS (skipped when no run has one),
// then the dashboard again.
func (m *Model) togglePresent() tea.Cmd {
	next := (m.fr.present + 1) % (presentCPS + 1)
	if next == presentCPS && !m.fr.cortex() && len(m.fr.runs) < 2 {
		next = presentOff // this strategy has no CPS to show
	}
	m.fr.present = next
	switch next {
	case presentOff:
		m.setStatus("presenter mode off", false)
	default:
		m.setStatus("presenter mode: "+presentNames[next]+" ("+m.keys.Present.Help().Key+" for the next, then off)", false)
	}
	m.layout()
	m.redraw()
	return nil
}

// presentLayout is the layout of presenter mode for the runs shown: one run's chart, or both
// runs' side by side in compare mode.
func (m *Model) presentLayout() layoutID {
	compare := len(m.fr.runs) > 1
	switch {
	case m.fr.present == presentCPS && compare:
		return layoutPresentCPS2
	case m.fr.present == presentCPS:
		return layoutPresentCPS
	case compare:
		return layoutPresentTraffic2
	}
	return layoutPresentTraffic
}

// presentCaptionH is the caption's height in presenter mode: room for a note in full (three
// lines at 80 columns hold some 230 characters; four from 30 rows).
func presentCaptionH(_, h int) int {
	if h >= 30 {
		return 4
	}
	return 3
}
