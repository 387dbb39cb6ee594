package engine

import (
	"fmt"
	"time"
)

// Clock is the engine's time source. A nil Clock in Config means the wall clock.
type Clock interface{ Now() time.Time }

// Action is what ShouldRetry decided.
type Action int

// The five possible actions, in the order of the checks that produce them.
const (
	Retry              Action = iota // retry after Decision.Delay
	Reject                           // shed by priority, recovery ramp or exhausted budget
	CircuitOpen                      // the circuit is open (or forced open by an emergency): fail fast
	NotRetryable                     // the error is not retryable (4xx)
	MaxRetriesExceeded               // the attempt limit is reached
)

// Actions lists every Action in declaration order, for tables and loops.
var Actions = []Action{Retry, Reject, CircuitOpen, NotRetryable, MaxRetriesExceeded}

// String returns the action's name, e.g. "RETRY" or "MAX_RETRIES_EXCEEDED".
func (a Action) String() string {
	switch a {
	case Retry:
		return "RETRY"
	case Reject:
		return "REJECT"
	case CircuitOpen:
		return "CIRCUIT_OPEN"
	case NotRetryable:
		return "NOT_RETRYABLE"
	case MaxRetriesExceeded:
		return "MAX_RETRIES_EXCEEDED"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// State is the band the CPS falls in.
type State int

// The four state bands: HEALTHY [0,0.25), DEGRADED [0.25,0.50), CRITICAL [0.50,EmergencyThreshold),
// EMERGENCY [EmergencyThreshold,1].
const (
	Healthy State = iota
	Degraded
	Critical
	Emergency
)

// Where the bands begin: DEGRADED at DegradedFrom, CRITICAL at CriticalFrom, EMERGENCY at the
// configured EmergencyThreshold (DefaultEmergencyThreshold unless a Config says otherwise).
// StateFor applies them; use BandStarts to draw them.
const (
	DegradedFrom              = 0.25
	CriticalFrom              = 0.50
	DefaultEmergencyThreshold = 0.75
)

// BandStarts returns the CPS at which DEGRADED, CRITICAL and EMERGENCY begin for an emergency
// threshold: the lines between the four bands, lowest first.
func BandStarts(emergencyThreshold float64) [3]float64 {
	return [3]float64{DegradedFrom, CriticalFrom, emergencyThreshold}
}

// String returns the band's name, e.g. "HEALTHY".
func (s State) String() string {
	switch s {
	case Healthy:
		return "HEALTHY"
	case Degraded:
		return "DEGRADED"
	case Critical:
		return "CRITICAL"
	case Emergency:
		return "EMERGENCY"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// CircuitState is the state of the engine's circuit breaker.
type CircuitState int

// The three circuit states; their C signal is 0.0, 0.5 and 1.0.
const (
	Closed CircuitState = iota
	HalfOpen
	Open
)

// String returns the circuit state's name, e.g. "HALF_OPEN".
func (c CircuitState) String() string {
	switch c {
	case Closed:
		return "CLOSED"
	case HalfOpen:
		return "HALF_OPEN"
	case Open:
		return "OPEN"
	}
	return fmt.Sprintf("CircuitState(%d)", int(c))
}

// Signals are the five inputs of the CPS, each in [0,1]: failure rate F, latency deviation L,
// queue pressure Q, budget burn B and circuit state C.
type Signals struct{ F, L, Q, B, C float64 }

// Weights are w1..w5 of the CPS for F, L, Q, B and C. The engine keeps them normalised to sum 1.
type Weights struct{ F, L, Q, B, C float64 }

// DefaultWeights returns the article's weights: 0.30 0.20 0.15 0.15 0.20.
func DefaultWeights() Weights { return Weights{F: 0.30, L: 0.20, Q: 0.15, B: 0.15, C: 0.20} }

// Failure describes a failed attempt for Engine.Decide. The zero value is a retryable, fast
// failure of the first attempt at priority 0.
type Failure struct {
	Priority     int  // 0..10 (clamped): 1 analytics ... 9 payment, 10 health check
	Attempt      int  // 0-based retry index of the attempt that failed; negative counts as 0
	NotRetryable bool // the error may not be retried (a 4xx other than 408/429): NOT_RETRYABLE
	// Timeout says the attempt got no answer in time. The server may still be working on it, so
	// its retry costs 1 + 2*SlowdownCost*S tokens instead of 1 + SlowdownCost*S
	// (Config.SlowdownCost, Snapshot.Slowdown).
	Timeout bool
	// Remaining is the time left before the request's deadline when the retry is decided; 0
	// when it has none. A retry that could not be sent and answered before the deadline (the
	// delay plus the latest successes' latency) is not worth its tokens: it is refused
	// (DEADLINE_EXCEEDED), and a longer delay is cut to the latest moment that still leaves
	// that time.
	Remaining time.Duration
	// Hold says that the caller asks AdmitRequest (with Request.Hold) before it sends the retry:
	// the engine may then hold it (Config.HoldForProbe), so a retry of a protected priority is
	// decided RETRY even while the circuit is OPEN, and its tokens are taken when it is sent
	// rather than now (the bucket only has to be able to pay). Without Hold the decision is the
	// article's: CIRCUIT_OPEN while OPEN, the tokens taken now.
	Hold bool
}

// Request describes an attempt about to be sent, for Engine.AdmitRequest. The zero value is a
// new request of priority 0 with no deadline.
type Request struct {
	Priority int // 0..10 (clamped)
	// Retry is 0 for a new request (an original), n for its n-th retry, decided earlier by
	// Decide (negative counts as 0).
	Retry int
	// Remaining is the time left before the request's deadline; 0 when it has none. A request
	// is held only while it can still be sent and answered before its deadline.
	Remaining time.Duration
	// Hold says, for a retry, that it was decided with Failure.Hold: it may be held, and its
	// tokens are taken now. A retry decided without it has paid, and goes.
	Hold bool
	// Park says the caller wakes the attempts it holds when Engine.Wake releases them: an
	// attempt the pacer holds is then parked (Decision.Parked) instead of being told to ask
	// again on a timer.
	Park bool
	// Ask says how the attempt comes to ask: AskNew the first time, AskAgain after a hold's
	// Delay ended, AskWoken when Wake released it, AskExpired when it was parked and its Delay
	// ended first. Only AskNew counts as an arrival for the pacer.
	Ask Ask
}

// Decision is the answer of ShouldRetry.
type Decision struct {
	Action   Action
	Delay    time.Duration // > 0 only for Retry
	CPS      float64
	State    State
	Priority int    // the request's priority, after clamping to 0..10
	Floor    int    // floor(CPS*10) at decision time
	Reason   string // machine-readable, e.g. SHED_LOW_PRIORITY, BUDGET_EXHAUSTED, EMERGENCY
	Fallback bool   // true when the decision came from the fallback path
	// Parked says the attempt (Request.Park) is held until Engine.Wake releases it, or at most
	// Delay, the longest its deadline lets it wait: then it asks again with AskExpired.
	Parked bool
	// Wake, for a parked attempt, is how long from now until Wake may release a parked attempt:
	// what NextWake would answer at once, so that the caller parking it need not ask (0 otherwise).
	Wake    time.Duration
	Signals Signals
}

// ShouldRetry reports whether the decision is to retry.
func (d Decision) ShouldRetry() bool { return d.Action == Retry }

// String formats the decision like the Java original:
// RetryDecision[RETRY, delay=523ms, CPS=0.0400, state=HEALTHY, priority=9/0].
func (d Decision) String() string {
	return fmt.Sprintf("RetryDecision[%s, delay=%dms, CPS=%.4f, state=%s, priority=%d/%d]",
		d.Action, d.Delay.Milliseconds(), d.CPS, d.State, d.Priority, d.Floor)
}

// Transition is one change of the circuit breaker's state.
type Transition struct {
	At       time.Time
	From, To CircuitState
	Reason   string // e.g. "FAILURE_RATE", "EMERGENCY", "COOLDOWN_ELAPSED", "PROBES_SUCCEEDED", "PROBE_FAILED", "FORCED", "RESET"
}

// Snapshot is a point-in-time copy of the engine's state. It shares no memory with the engine.
type Snapshot struct {
	Signals  Signals
	Weights  Weights // current, normalised (adaptive weights move them)
	Adaptive bool    // adaptive weights enabled
	// Fleet says whether the signals and the budget read the fleet's view (FLEET) or the
	// engine's own (LOCAL: no view yet, the last sync failed, or the view is older than
	// Config.Fleet.MaxAge; OFF: no fleet configured). Engine.FleetStatus gives the view's
	// figures. (One byte, in the padding after Adaptive: the snapshot is no bigger.)
	Fleet   FleetMode
	CPS     float64
	State   State
	Floor   int // floor(CPS*10)
	Circuit CircuitState

	Tokens        float64 // retry tokens left
	TokenCapacity int

	Baseline time.Duration // learned (or fixed) baseline P50; 0 until formed
	P99      time.Duration // P99 latency over the short span (FailureHorizon), what L reads
	Tail     time.Duration // learned healthy P99 (LearnTail); 0 until formed or when off
	Slowdown float64       // S in [0,1]: how much slower than the baseline the latest successes were
	Outcomes int           // outcomes in the window
	Failures int           // failures in the window

	RecoveryShare float64 // share of retries the recovery ramp admits now (1 outside a ramp)

	Successes uint64    // all RecordSuccess calls since New or Reset
	Failed    uint64    // all RecordFailure and RecordTimeout calls since New or Reset
	Decisions [5]uint64 // ShouldRetry answers by Action since New or Reset
	Fallbacks uint64    // decisions answered by the fallback path

	TransitionCount uint64     // circuit transitions since New or Reset
	LastTransition  Transition // the latest one (zero if none)

	// Admission of new requests (Admit, Config.AdmitOriginals): whether the engine sheds now
	// (the service queues), the share of new requests it sheds, lowest priorities first, and the
	// admission floor (priorities below it shed whole, part of the floor's own class), as of the
	// last window slice; and Admit's answers since New or Reset.
	Shedding          bool
	ShedShare         float64
	AdmitFloor        int
	OriginalsAdmitted uint64
	OriginalsShed     uint64
}
