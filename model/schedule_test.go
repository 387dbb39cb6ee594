package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// at is a scheduled control of kind k at d.
func at(d time.Duration, k scenarios.ControlKind) scenarios.ScheduledControl {
	return scenarios.ScheduledControl{At: d, ControlEvent: scenarios.ControlEvent{Control: k}}
}

// Asserts that a schedule hands out each control once, when its time has come, in order, and
// several at once when a tick covers them.
func TestScheduleDue(t *testing.T) {
	s := NewSchedule([]scenarios.ScheduledControl{at(time.Second, scenarios.ControlClearAll),
		at(2*time.Second, scenarios.ControlAdaptive), at(2*time.Second, scenarios.ControlStrategy)})
	assert.Empty(t, s.Due(900*time.Millisecond))
	assert.Equal(t, []scenarios.ControlEvent{{Control: scenarios.ControlClearAll}}, s.Due(time.Second))
	assert.Empty(t, s.Due(time.Second), "handed out once")
	assert.Equal(t, []scenarios.ControlEvent{{Control: scenarios.ControlAdaptive}, {Control: scenarios.ControlStrategy}}, s.Due(5*time.Second))
	assert.Empty(t, s.Due(time.Hour))
}

// Asserts that Played is what was applied, in order, a restart and the dashboard's words left
// out, followed by the timeline's controls not yet due.
func TestSchedulePlayed(t *testing.T) {
	s := NewSchedule([]scenarios.ScheduledControl{at(time.Second, scenarios.ControlClearAll), at(3*time.Second, scenarios.ControlAdaptive)})
	assert.Equal(t, []scenarios.ScheduledControl{at(time.Second, scenarios.ControlClearAll), at(3*time.Second, scenarios.ControlAdaptive)},
		s.Played(), "nothing applied: the timeline as it stands")
	s.Applied(0, scenarios.ControlEvent{Control: scenarios.ControlWeights})
	s.Applied(0, scenarios.ControlEvent{Control: scenarios.ControlText})
	s.Applied(0, scenarios.ControlEvent{Control: scenarios.ControlInject, Fault: scenarios.Fault{Kind: scenarios.FaultErrors, Value: 2}})
	for _, c := range s.Due(time.Second) {
		s.Applied(time.Second, c)
	}
	s.Applied(2*time.Second, scenarios.ControlEvent{Control: scenarios.ControlRestart})
	s.Applied(2*time.Second, scenarios.ControlEvent{Control: scenarios.ControlStrategy, Strategy: "naive"})
	assert.Equal(t, []scenarios.ScheduledControl{at(0, scenarios.ControlWeights), at(time.Second, scenarios.ControlClearAll),
		{At: 2 * time.Second, ControlEvent: scenarios.ControlEvent{Control: scenarios.ControlStrategy, Strategy: "naive"}},
		at(3*time.Second, scenarios.ControlAdaptive)}, s.Played())
}
