package source

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// EventKind classifies an event for colour and filtering.
type EventKind int

// The kinds of events.
const (
	EventNote    EventKind = iota // a scenario caption began
	EventFault                    // a fault started, ended, was cleared or refused
	EventService                  // the service crashed, restarted, finished warming
	EventCircuit                  // the number of clients with an OPEN or HALF_OPEN circuit changed
	EventControl                  // a user control was applied
	EventTarget                   // what a --target does wrong, said once per cause of failure (Text)
)

var eventKinds = [...]string{EventNote: "note", EventFault: "fault", EventService: "service", EventCircuit: "circuit", EventControl: "control", EventTarget: "target"}

// String names the kind as the event log does: "note", "fault", "service", "circuit",
// "control", "target".
func (k EventKind) String() string {
	if k >= 0 && int(k) < len(eventKinds) {
		return eventKinds[k]
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one entry of the event log, as data: Kind says which of Fault, Service, Circuit and
// Control describes it; the dashboard (or any other reader) words it. Only a note, and a control
// the dashboard applies itself (pause, speed...), come as words, in Text.
type Event struct {
	T    time.Duration
	Kind EventKind
	// Text is the caption of an EventNote, what an EventTarget says, or the words of an
	// EventControl whose Control is ControlText; "" otherwise.
	Text    string
	Fault   FaultEvent   // EventFault
	Service ServiceEvent // EventService
	Circuit CircuitEvent // EventCircuit
	Control ControlEvent // EventControl
}

// FaultChange says what happened to a fault.
type FaultChange uint8

// The changes of a fault.
const (
	FaultStarted FaultChange = iota // it began: injected, or from the scenario's timeline
	FaultEnded                      // its duration ran out
	FaultCleared                    // a control cleared it
	FaultRefused                    // an injection was refused; Reason says why
)

// FaultEvent is a fault starting, ending, being cleared or being refused.
type FaultEvent struct {
	Change   FaultChange
	Kind     scenarios.FaultKind
	Value    float64       // FaultStarted, FaultRefused: the fault's value (scenarios.FaultSpec)
	Duration time.Duration // FaultStarted: how long it lasts from now; 0 until cleared
	Injected bool          // FaultStarted: injected at run time (false: the scenario's timeline)
	Reason   string        // FaultRefused: why
}

// ServiceCause says why the service changed state.
type ServiceCause uint8

// The causes of a service event.
const (
	CauseOverload ServiceCause = iota // crashed: utilisation above crash_factor for crash_after
	CauseRestart                      // restarted, after a crash or at the end of an outage
	CauseWarmedUp                     // its warm-up ended: full capacity
)

// ServiceEvent is the service entering State, for Cause.
type ServiceEvent struct {
	State ServiceState
	Cause ServiceCause
	// CauseOverload: the utilisation over the last second (offered / capacity), how long it had
	// been above crash_factor, and the time until the restart.
	Utilisation float64
	Overloaded  time.Duration
	RestartIn   time.Duration
	// CauseRestart into ServiceWarming: the share of full capacity it restarts at (0..1] and
	// how long it takes to reach full capacity.
	WarmStart float64
	Warmup    time.Duration
}

// CircuitEvent counts the clients whose circuit is OPEN and HALF_OPEN, out of Clients, after a
// change of either count.
type CircuitEvent struct {
	Open, HalfOpen, Clients int
}
