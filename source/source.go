// Package source defines what the dashboard consumes: a Source produces one immutable Snapshot
// per simulation tick (or per interval of real traffic in live mode) and takes controls back
// (inject a fault, set weights, change a class, switch the strategy, restart). The simulator and
// live mode each implement Source; the dashboard depends on this package only, never on their
// internals. The package imports no UI library.
package source

import (
	"fmt"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Source is a stream of snapshots with controls: snapshots out (Advance), controls in
// (Control), described by Meta. Implementations are safe for concurrent use: the dashboard calls
// Advance from a command goroutine and Control from its Update loop. What only some sources can
// do is a small interface of its own, checked with a type assertion: Pauser (a source that runs
// on its own in real time), Inspector (its latest retry decisions) and Fleet (the fleet its
// engines joined).
type Source interface {
	// Meta describes the run: scenario, strategy, classes, timing. It changes only after a
	// ControlClass, ControlStrategy or ControlRestart.
	Meta() Meta
	// Advance moves the source forward by d of its own time (virtual time for the simulator,
	// ignored by live mode, which follows the wall clock) and returns the snapshots of every
	// whole tick completed, oldest first; it may return none. Fractions of a tick carry over.
	// After the run is over it returns nil.
	Advance(d time.Duration) []Snapshot
	// Control applies one control from now on (ControlEvent says what each does); the
	// source's event log says what it applied. A control the source cannot apply (an invalid
	// weight, share or priority, an unknown class or strategy, ControlText) is an error and
	// changes nothing; a fault the source refuses is a FaultRefused event, not an error.
	Control(c ControlEvent) error
	// Close stops the source and releases what it holds (goroutines, connections).
	Close() error
}

// Pauser is implemented by sources that run on their own, in real time (live mode): while
// paused they send no traffic and their time stands still. The dashboard pauses every source
// that implements it when it pauses; a source that does not (the simulator) stops simply
// because Advance is no longer called.
type Pauser interface {
	// SetPaused stops (true) or resumes (false) the source.
	SetPaused(on bool)
}

// Recording is implemented by sources that record the controls they apply (the simulator,
// live mode): the dashboard's record key writes the scenario a run played as a file that
// replays it. Its method is safe for concurrent use.
type Recording interface {
	// Played returns the run's scenario as played since it began or restarted: its seed and
	// the strategy it began with set, its controls ([[control]]) every control applied so far
	// at its time, then the scenario's own still to come.
	Played() scenarios.Scenario
}

// Fleet is implemented by sources whose CORTEX engines may share a fleet (the simulator's
// shared budget, live --fleet). Its method is safe for concurrent use.
type Fleet interface {
	// Fleet says which fleet the run's CORTEX engines join; nil when the run has none.
	Fleet() *FleetMeta
}

// Meta describes a run.
type Meta struct {
	Scenario string
	Summary  string
	Story    string
	Strategy string
	Seed     int64
	Tick     time.Duration // dt
	Total    time.Duration // arrival phase + drain; 0 for an unbounded live run
	Duration time.Duration // arrival phase alone (new originals arrive only during it); 0 for an unbounded live run
	Classes  []ClassMeta
	Live     bool
	// Engine names the engine configuration the cortex strategy runs when it is not the
	// defaults: a cortex.toml file's name ("" for engine.DefaultConfig, and for every other
	// strategy).
	Engine string
}

// StrategyLabel is how a screen names the run's strategy: "cortex", or "cortex (tuned.toml)"
// when it runs an engine configuration of its own.
func (m Meta) StrategyLabel() string {
	if m.Engine == "" {
		return m.Strategy
	}
	return m.Strategy + " (" + m.Engine + ")"
}

// FleetMeta says which fleet a run's CORTEX engines joined (Fleet).
type FleetMeta struct {
	Name     string // the fleet's name: its keys start with cortex:{Name}:
	Store    string // where the fleet meets, as shown: "redis://127.0.0.1:6379" (no password)
	Instance string // this process's instance name; its engines sync as Instance.0, Instance.1, ...
}

// ClassMeta is one priority class as currently configured.
type ClassMeta struct {
	Name     string
	Priority int
	Share    float64 // multiplier of the base rate (1 = as in the scenario)
	Rate     float64 // base rate in requests/s
}

// Snapshot is one tick. Counts are for this tick only; gauges are values at its end.
// A Snapshot shares no memory with the source that produced it.
type Snapshot struct {
	T    time.Duration // virtual (or elapsed real) time at the end of the tick
	Dt   time.Duration // length of the tick
	Done bool          // the run is over (this is the last snapshot)

	Counts  Counts
	Service Service
	Classes []ClassTick // one per class, same order as Meta.Classes
	Cortex  *CortexView // nil unless the strategy is cortex
	Events  []Event     // what happened during this tick
	Note    string      // current scenario caption ("" if none)
	Faults  []ActiveFault
	// Pending is how many retries were waiting out their delay at the end of the tick: decided,
	// not yet sent (Counts.RetryLate and the others say why a decided retry is never sent). A
	// retry its strategy held when due (Admission.Wait) is still pending.
	Pending int
	// HeldOriginals is how many originals their strategy held at the end of the tick
	// (Admission.Wait: a rate limiter without a token), not yet sent.
	HeldOriginals int
}

// Clone returns a copy of s that shares no memory with it (its slices and the CORTEX view are
// copied): for a source that hands one snapshot to several consumers, each of which may change
// its copy (the dashboard makes the texts inert in place).
func (s Snapshot) Clone() Snapshot {
	s.Classes = slices.Clone(s.Classes)
	s.Events = slices.Clone(s.Events)
	s.Faults = slices.Clone(s.Faults)
	if s.Cortex != nil {
		cv := *s.Cortex
		if cv.Fleet != nil {
			fh := *cv.Fleet
			cv.Fleet = &fh
		}
		s.Cortex = &cv
	}
	return s
}

// Counts are the per-tick counters of the fleet.
type Counts struct {
	Originals int // original requests that arrived
	Attempts  int // attempts sent to the service (originals + retries)
	Retries   int // retry attempts sent
	Successes int // attempts that succeeded
	Failures  int // attempts that failed, any cause (sum of the five below)

	Timeouts     int // attempts that timed out at the client
	FastFails    int // refused or 503 (crashed service, full queue)
	ServerErrors int // 5xx
	Throttled    int // 429
	BadRequests  int // 4xx, not retryable

	LocalRejects int // attempts a strategy refused to send (open breaker, adaptive throttle): Admit refused them
	Completed    int // originals that finished successfully within their deadline
	Abandoned    int // originals that gave up (deadline, or no retry allowed)

	// Decisions counts the retry decisions by engine.Action (index = int(action)).
	Decisions [5]int
	// Shed counts retries rejected by priority shedding (REJECT, SHED_LOW_PRIORITY).
	Shed int
	// BudgetRejected counts retries rejected for an exhausted budget.
	BudgetRejected int

	// RetryFailures counts retry attempts (Retries) that failed, any cause: the wasted retries.
	RetryFailures int
	// Crashes counts overload crashes of the service that began during this tick.
	Crashes int

	// Reasons counts the retry decisions by reason (index = Reason): the decisions of each
	// action split by what decided them (REJECT is shed, recovery ramp, budget, ...).
	Reasons [NumReasons]int
	// TierRetries counts the retries sent by the intermediate tiers (scenario layers > 1):
	// retries in Retries that no client decided.
	TierRetries int
	// RetryLate counts RETRY decisions dropped at once: the delay would have ended at or after
	// the request's deadline, so the retry was never scheduled.
	RetryLate int
	// RetryExpired counts scheduled retries whose request's deadline had passed when their
	// delay ended: not sent.
	RetryExpired int
	// RetryRefused counts scheduled retries the client's strategy refused to send when their
	// delay ended (an open breaker, a throttle); they are in LocalRejects too.
	RetryRefused int
	// RetryCapped counts RETRY decisions past the simulator's retry cap (a strategy that never
	// stops): not sent.
	RetryCapped int

	// Refusals counts the attempts the client's strategy refused to send (LocalRejects), by the
	// Admission's reason (index = Reason): CIRCUIT_OPEN, SHED_LOW_PRIORITY, LIMIT_EXCEEDED, ...
	Refusals [NumReasons]int
	// FailureCauses counts the failed attempts by cause (index = FailureCause): what the
	// target, the network or the fault injector did. Live mode fills it, the simulator leaves
	// it at zero.
	FailureCauses [NumFailureCauses]int
	// Held counts the times a strategy held an attempt (Admission.Wait): each hold, not each
	// attempt; the attempt is asked about again once its wait is over.
	Held int
	// HeldExpired counts held attempts whose wait would have ended at or after their request's
	// deadline: their request is abandoned (not counted in LocalRejects).
	HeldExpired int
	// InFlightCapRefused counts the originals live mode refused because its bound on requests
	// alive at once (live.Config.MaxInFlight, --max-inflight) was reached: abandoned, in
	// LocalRejects too, whatever their priority. The simulator has no such bound: always 0.
	InFlightCapRefused int
}

// Reason is why a retry decision went the way it did: the engine's reasons and those of the
// other strategies, as a small number a Counts can index. String gives the decision's own
// words ("SHED_LOW_PRIORITY"); ReasonOf maps them back.
type Reason uint8

// The reasons, in the order of the checks that give them; LIMIT_EXCEEDED, ADAPTIVE_THROTTLE and
// RATE_LIMITED are given by Admit only (a local refusal, a hold: Counts.Refusals).
const (
	ReasonRetry            Reason = iota // RETRY: every check passed
	ReasonNotRetryable                   // NOT_RETRYABLE: the error may not be retried
	ReasonMaxRetries                     // MAX_RETRIES_EXCEEDED: the attempt limit is reached
	ReasonEmergency                      // EMERGENCY: CPS at or above the emergency threshold
	ReasonCircuitOpen                    // CIRCUIT_OPEN: the circuit is OPEN
	ReasonProbesBusy                     // HALF_OPEN_PROBES_BUSY: every probe slot is taken
	ReasonShed                           // SHED_LOW_PRIORITY: priority below floor(CPS×10)
	ReasonRamp                           // RECOVERY_RAMP: outside the recovery ramp's share
	ReasonBudget                         // BUDGET_EXHAUSTED: no retry token left
	ReasonThrottled                      // RETRY_THROTTLED: grpc's retry throttle
	ReasonNoRetries                      // NO_RETRIES: strategy none never retries
	ReasonLimit                          // LIMIT_EXCEEDED: a concurrency limiter is at its limit (a refusal)
	ReasonAdaptiveThrottle               // ADAPTIVE_THROTTLE: the throttle's rejection probability (a refusal)
	ReasonRateLimited                    // RATE_LIMITED: a client-side rate limiter has no token (a hold)
	ReasonOther                          // any other reason (INTERNAL_ERROR, or one unknown here)
	NumReasons                           // how many reasons there are
)

var reasonNames = [NumReasons]string{
	ReasonRetry: "RETRY", ReasonNotRetryable: "NOT_RETRYABLE", ReasonMaxRetries: "MAX_RETRIES_EXCEEDED",
	ReasonEmergency: "EMERGENCY", ReasonCircuitOpen: "CIRCUIT_OPEN", ReasonProbesBusy: "HALF_OPEN_PROBES_BUSY",
	ReasonShed: "SHED_LOW_PRIORITY", ReasonRamp: "RECOVERY_RAMP", ReasonBudget: "BUDGET_EXHAUSTED",
	ReasonThrottled: "RETRY_THROTTLED", ReasonNoRetries: "NO_RETRIES", ReasonLimit: "LIMIT_EXCEEDED",
	ReasonAdaptiveThrottle: "ADAPTIVE_THROTTLE", ReasonRateLimited: "RATE_LIMITED", ReasonOther: "OTHER",
}

// String returns the reason as decisions write it, e.g. "RECOVERY_RAMP" ("OTHER" for ReasonOther).
func (r Reason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// ReasonOf returns the Reason of a decision's reason string; ReasonOther for one it does not know.
func ReasonOf(s string) Reason {
	switch s {
	case "RETRY":
		return ReasonRetry
	case "NOT_RETRYABLE":
		return ReasonNotRetryable
	case "MAX_RETRIES_EXCEEDED":
		return ReasonMaxRetries
	case "EMERGENCY":
		return ReasonEmergency
	case "CIRCUIT_OPEN":
		return ReasonCircuitOpen
	case "HALF_OPEN_PROBES_BUSY":
		return ReasonProbesBusy
	case "SHED_LOW_PRIORITY":
		return ReasonShed
	case "RECOVERY_RAMP":
		return ReasonRamp
	case "BUDGET_EXHAUSTED":
		return ReasonBudget
	case "RETRY_THROTTLED":
		return ReasonThrottled
	case "NO_RETRIES":
		return ReasonNoRetries
	case "LIMIT_EXCEEDED":
		return ReasonLimit
	case "ADAPTIVE_THROTTLE":
		return ReasonAdaptiveThrottle
	case "RATE_LIMITED":
		return ReasonRateLimited
	}
	return ReasonOther
}

// Service is the state of the downstream service at the end of a tick.
type Service struct {
	State ServiceState
	// Unmeasured says that the service is not the source's to measure (live mode against the
	// user's own service, --target): Capacity, Queue, QueueLimit, Utilisation and Overload are
	// unknown and 0, and the dashboard leaves them out rather than show a capacity of 0.
	Unmeasured  bool
	Capacity    float64 // current capacity in requests/s
	Queue       int     // queue length
	QueueLimit  int
	Utilisation float64 // offered load / capacity over the tick
	// Overload is how long the utilisation over the last second has stayed above the
	// scenario's crash_factor without a break, at the end of the tick: the crash rule's clock
	// (the service crashes when it reaches crash_after; a crash tick reports the value reached).
	// 0 when not overloaded, when the service is DOWN or CRASHED, or without a crash_factor.
	Overload time.Duration
}

// ServiceState is the state of the downstream service (scenarios.ServiceState, where the
// scenario format and the lessons' goals read its names). The zero value, ServiceUnknown, is a
// service no tick has reported yet.
type ServiceState = scenarios.ServiceState

// The states of the service.
const (
	ServiceUnknown = scenarios.ServiceUnknown // no tick yet; written ""
	ServiceUp      = scenarios.ServiceUp      // serving (full capacity, or reduced by a fault)
	ServiceDown    = scenarios.ServiceDown    // an outage: connection refused until it ends
	ServiceCrashed = scenarios.ServiceCrashed // crashed under overload, until it restarts
	ServiceWarming = scenarios.ServiceWarming // restarted, ramping up to full capacity
)

// ClassTick is one priority class during a tick.
type ClassTick struct {
	Priority       int // the class's priority during this tick (a ControlClass may change it)
	Arrived        int // originals that arrived
	Succeeded      int // originals that completed
	Admitted       int // retries admitted
	Shed           int // retries shed by priority
	BudgetRejected int // retries rejected by the budget
	OtherRejected  int // retries refused for any other reason

	// OriginalsShed counts originals the client's strategy refused to send for their priority
	// (Admit: SHED_LOW_PRIORITY).
	OriginalsShed int
	// OriginalsRefused counts originals the strategy refused to send for any other reason (an
	// open circuit, a full limit, a throttle).
	OriginalsRefused int
	// RetriesRefused counts retries the strategy refused to send when they were due (Admit), any
	// reason; their decision was counted in Admitted.
	RetriesRefused int
}

// CortexView is the CORTEX state averaged over the fleet's clients, with the spread.
type CortexView struct {
	Signals  engine.Signals      // mean over clients
	SigMin   engine.Signals      // minimum over clients
	SigMax   engine.Signals      // maximum over clients
	Weights  engine.Weights      // weights of the first client (all clients share controls)
	Adaptive bool                // adaptive weights on
	CPS      float64             // mean CPS
	CPSMin   float64             // minimum over clients
	CPSMax   float64             // maximum over clients
	State    engine.State        // band of the mean CPS
	Circuit  engine.CircuitState // most common circuit state
	Open     int                 // clients whose circuit is OPEN
	Floor    int                 // floor(CPS*10) of the mean CPS
	Tokens   float64             // mean retry tokens left
	Fleet    *FleetHealth        // the engines' fleet at the end of the tick; nil when they are alone

	// Admission of new requests (engine.Engine.Admit): how many engines shed now, the highest
	// admission floor among them (new requests of a lower priority are shed whole), and the
	// mean share of new requests shed over every engine.
	Shedding   int
	AdmitFloor int
	ShedShare  float64
}

// FleetHealth is what a run's CORTEX engines see of their fleet at the end of a tick
// (CortexView.Fleet). CortexView.CPS is the CPS they decide with: the fleet's F, L and B while
// their view is fresh; LocalCPS is the CPS of their own signals.
type FleetHealth struct {
	Joint     int           // engines reading a fresh fleet view (mode FLEET); the others read their own (LOCAL)
	Engines   int           // engines of this run in the fleet (one member: the process is one instance)
	LocalCPS  float64       // mean CPS of the engines' own signals (what they would decide alone)
	Age       time.Duration // age of the oldest view an engine holds (0 before any)
	Instances int           // members the store counts: instances, one per process (latest view)
	F         float64       // the fleet's failure rate (latest view)
	Burn      float64       // the fleet bucket's burn: share neither free nor leased (latest view)
	Held      float64       // tokens this run's engines hold on lease
	Syncs     uint64        // successful syncs of this run's engines since the start
	Failures  uint64        // failed syncs since the start
	LastError string        // the latest failed sync's error while the store fails ("" once a sync succeeds)
	Repaired  uint64        // bad values the store found in its own state and repaired (never applied), latest view
}

// ActiveFault is a fault in effect, with its remaining time (0 = until cleared).
type ActiveFault struct {
	Kind      scenarios.FaultKind
	Value     float64
	Remaining time.Duration
	Injected  bool // true if injected at run time, false if from the scenario
}

// DecisionRecord is one retry decision of a client, with what decided it: the failed attempt,
// the verdict and, for a strategy built on the CORTEX engine, the engine's checks.
type DecisionRecord struct {
	Seq      uint64        // its order among the run's decisions kept (1 the first)
	T        time.Duration // when it was made (virtual or elapsed real time)
	Client   int           // the client's index in the fleet
	Class    string        // the request's class
	Priority int           // the request's priority
	Attempt  int           // 0-based retry index of the attempt that failed (0 = the original)
	Failure  string        // how that attempt failed: "timeout", "refused", "5xx", "429" or "4xx"; "new" for a new request's admission (shed, refused or held)
	Action   engine.Action // the verdict
	Reason   string        // its reason, e.g. "SHED_LOW_PRIORITY"
	Delay    time.Duration // the retry's delay (RETRY only)
	// Explained says that Why holds the engine's checks (the cortex strategies); the other
	// strategies give their verdict only.
	Explained bool
	Why       engine.Explanation
}

// Inspector is implemented by sources that keep their latest retry decisions with what decided
// them (the simulator's source does), for the dashboard's decision inspector. Its method is safe
// for concurrent use.
type Inspector interface {
	// RecentDecisions returns a copy of the latest decisions kept, oldest first (none before
	// the first decision).
	RecentDecisions() []DecisionRecord
}
