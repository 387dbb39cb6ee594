package model

import (
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Schedule walks a scenario's timeline of controls ([[control]]) over a run and records the
// controls the run applied. Due hands out, in order, the controls whose time has come: the
// simulator applies them when a tick begins on virtual time, live mode on the wall clock, each
// as its own Control applies the dashboard's. Applied records every control the run applied
// (the timeline's and the dashboard's keys alike) and Played returns them, so a recorded demo
// (the presenter's controls, at their times) plays again exactly. The zero value is an empty
// timeline. Not safe for concurrent use.
type Schedule struct {
	controls []scenarios.ScheduledControl
	next     int                          // the first control not handed out
	played   []scenarios.ScheduledControl // applied so far, in the order applied
}

// NewSchedule returns the schedule of controls (its own copy, in the order given: a parsed
// scenario's are in time order) from t = 0, nothing applied yet.
func NewSchedule(controls []scenarios.ScheduledControl) Schedule {
	return Schedule{controls: slices.Clone(controls)}
}

// Due returns the controls at or before t not handed out yet, oldest first (none when there
// are none: no allocation), and moves past them. The run records those it applies (Applied).
func (s *Schedule) Due(t time.Duration) []scenarios.ControlEvent {
	var out []scenarios.ControlEvent
	for s.next < len(s.controls) && s.controls[s.next].At <= t {
		out = append(out, s.controls[s.next].ControlEvent)
		s.next++
	}
	return out
}

// Applied records that the run applied c at t (a multiple of the tick, t >= every earlier
// one's). A control a timeline cannot hold (a restart, the dashboard's own words) is not
// recorded, nor a fault the run refused (a value out of its kind's range).
func (s *Schedule) Applied(t time.Duration, c scenarios.ControlEvent) {
	if c.Control == scenarios.ControlInject {
		if _, msg := c.Fault.Kind.Check(c.Fault.Value); msg != "" || c.Fault.Duration < 0 {
			return
		}
	}
	if c.Scheduled() {
		s.played = append(s.played, scenarios.ScheduledControl{At: t, ControlEvent: c})
	}
}

// Played returns the run's timeline of controls as played so far: every control applied, at
// its time, then those of the timeline not yet due (a demo recorded halfway through a replay
// keeps the rest of its timeline). It is a new slice.
func (s *Schedule) Played() []scenarios.ScheduledControl {
	return append(slices.Clone(s.played), s.controls[s.next:]...)
}
