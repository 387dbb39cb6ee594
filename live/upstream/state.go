package upstream

import (
	"fmt"
	"time"

	"github.com/cortex-tui/cortex-tui/source"
)

// State is the target's state. Every state but StateStopped is one of the simulator's service
// states, with the same name (see Service).
type State int

// The states of a Target.
const (
	// StateStopped: not started yet, or closed. Not a simulator state.
	StateStopped State = iota
	// StateUp: serving at full capacity (times the capacity factor).
	StateUp
	// StateDown: an outage (Down): the listener is closed until Up.
	StateDown
	// StateCrashed: crashed under overload: the listener is closed until the restart.
	StateCrashed
	// StateWarming: listening again after a restart or an outage, capacity ramping up.
	StateWarming
)

var stateNames = [...]string{"STOPPED", "UP", "DOWN", "CRASHED", "WARMING"}

// String returns "UP", "DOWN", "CRASHED", "WARMING" or "STOPPED".
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Service returns the state as the dashboard and the reports name it: ServiceUp, ServiceDown,
// ServiceCrashed or ServiceWarming; ServiceUnknown for StateStopped.
func (s State) Service() source.ServiceState {
	switch s {
	case StateUp:
		return source.ServiceUp
	case StateDown:
		return source.ServiceDown
	case StateCrashed:
		return source.ServiceCrashed
	case StateWarming:
		return source.ServiceWarming
	}
	return source.ServiceUnknown
}

// stateOf is the target's State of a service state: StateStopped for ServiceUnknown.
func stateOf(s source.ServiceState) State {
	switch s {
	case source.ServiceUp:
		return StateUp
	case source.ServiceDown:
		return StateDown
	case source.ServiceCrashed:
		return StateCrashed
	case source.ServiceWarming:
		return StateWarming
	}
	return StateStopped
}

// Counters are the target's running totals since Start. A request is counted once in Accepted,
// Refused or TooLarge when it is answered or admitted, and an accepted one once more when it
// ends: in Served, Dropped or Lost (or not at all if it is still queued or in service). A
// request that reaches a handler just as the target goes down is closed without being counted.
type Counters struct {
	Accepted int64 // requests that got a worker at once or a place in the queue
	Served   int64 // requests whose service time completed (Wasted included)
	Wasted   int64 // of Served: requests whose client had gone before the work was done
	Refused  int64 // requests answered 503 because every worker was busy and the queue full
	TooLarge int64 // requests answered 413: a body longer than MaxBodyBytes
	Dropped  int64 // queued requests skipped because their client had gone (DropExpired)
	Lost     int64 // queued or in-service requests whose connection a crash, an outage or Close closed
	Crashes  int64 // overload crashes
}

// Snapshot is the target's state at one instant, a plain value that shares nothing with the
// target.
type Snapshot struct {
	State State
	Addr  string // host:port the target listens on (the same after every restart); "" before Start

	Workers        int           // configured workers
	Effective      int           // workers in use now: max(1, round(Workers * CapacityFactor * Warm)) while serving, 0 otherwise
	Busy           int           // workers holding a request (may exceed Effective for a while after a capacity drop)
	Queue          int           // queued requests, including abandoned ones waiting for their turn to be skipped
	QueueLimit     int           // configured queue limit
	ServiceTime    time.Duration // mean service time in effect: Config.ServiceTime + Latency
	Capacity       float64       // requests/s: Effective / ServiceTime; 0 when not serving
	CapacityFactor float64       // factor set by SetCapacity, (0, 1]; 1 by default
	Latency        time.Duration // latency added by SetLatency; 0 by default
	Warm           float64       // warm-up fraction of capacity, WarmStart to 1; 0 when not serving

	// Utilisation is the offered work over what capacity could serve during the last control
	// tick (a refused request counting RefusalCost); WindowUtilisation the same over the last
	// second, which is what the crash rule reads. +Inf for work offered with no capacity.
	Utilisation, WindowUtilisation float64
	// Overload is how long WindowUtilisation has stayed above CrashFactor without a break: the
	// crash clock (the target crashes when it reaches CrashAfter). 0 when not overloaded.
	Overload time.Duration
	// CrashUtilisation and CrashOverload are what the crash rule read at the last overload
	// crash: the utilisation over the last second and how long it had stayed above
	// CrashFactor (the crash resets both clocks, so Utilisation and Overload read 0 after it).
	// 0 before the first crash.
	CrashUtilisation float64
	CrashOverload    time.Duration
	// RestartIn is, while CRASHED, the time left before the restart (0 once it is due: a
	// restart that failed to listen is retried every tick, see Err).
	RestartIn time.Duration
	// Outage is true between Down and a successful Up.
	Outage bool
	// Err is the last failure to listen again on Addr after a crash (the port taken by
	// another process, say); nil once listening. The restart is retried every tick.
	Err error

	Counters Counters
}
