package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Scenario is one complete, validated simulation setup: who sends traffic, to what service,
// what goes wrong when, and what the viewer is told along the way. All durations are virtual
// time from the start of the run. A Scenario is a plain value; Parse fills defaults.
type Scenario struct {
	Name     string        // short identifier, e.g. "black-friday"
	Summary  string        // one line for the catalog
	Story    string        // a few sentences: what happens and what to watch
	Duration time.Duration // length of the arrival phase; the run drains up to Drain more
	Drain    time.Duration // extra time after the last arrival for pending work (default 30s)
	Tick     time.Duration // simulation step dt (default 100ms)
	Seed     int64         // default seed when the user gives none (default 1)
	// Strategy is the strategy a run starts with when the user gives none (a recorded demo
	// says which it began with); "" for cortex.
	Strategy string

	Clients  int           // client instances sharing the arrivals, each with its own strategy state (default 20)
	Loop     Loop          // open (default) or closed
	Deadline time.Duration // overall deadline of an original request (default 30s)
	Timeout  time.Duration // per-attempt client timeout (default 2s)
	Layers   int           // retry layers between client and service (default 1; 2 = retries at two layers)
	Budget   Budget        // the fleet's retry budget: one per client (default) or one shared by the fleet

	Classes []Class     // priority classes of traffic (at least one)
	Load    []LoadPoint // load profile: rate multiplier over time, piecewise linear (default flat 1.0)
	Service Service     // the downstream service
	Faults  []Fault     // fault timeline
	// Controls are the timeline's controls ([[control]]), in time order: applied at their
	// times as the dashboard's keys apply them (a recorded demo's are the presenter's).
	Controls []ScheduledControl
	Notes    []Note // timed captions

	// Engine is the engine configuration the cortex strategy runs ([engine]: a cortex.toml's
	// keys, as run --record writes the --engine FILE a run used, so that its replay runs the
	// same engine), nil for engine.DefaultConfig. A run given an engine of its own (--engine)
	// runs that one instead.
	Engine *engine.Config
	// EngineName names Engine as the run showed it ("cortex (tuned.toml)"): the [engine]
	// table's name key; "" reads "custom".
	EngineName string
}

// Budget says how a fleet's clients hold their retry budget.
type Budget uint8

// The two budgets of [fleet] budget.
const (
	// BudgetPerClient: each client has its own budget, its share of the fleet's (the
	// engine's Config.Split), as without this key.
	BudgetPerClient Budget = iota
	// BudgetShared: the clients' CORTEX engines share one budget and one view of the service
	// (package fleet: one in-process store, synced every 200 ms of virtual time).
	BudgetShared
)

// Budgets lists the budgets in declaration order, for loops and messages.
var Budgets = []Budget{BudgetPerClient, BudgetShared}

// String returns the budget's name in a scenario file: "per-client" or "shared".
func (b Budget) String() string {
	switch b {
	case BudgetPerClient:
		return "per-client"
	case BudgetShared:
		return "shared"
	}
	return fmt.Sprintf("Budget(%d)", int(b))
}

// Loop says whether arrivals wait for earlier requests.
type Loop struct {
	Closed bool          // false: open loop (Poisson arrivals); true: a fixed population of users
	Users  int           // closed loop: number of users, each with one request in flight
	Think  time.Duration // closed loop: think time between a user's requests
}

// Class is one priority class of traffic.
type Class struct {
	Name     string  // e.g. "payment"
	Priority int     // 0..10 (1 analytics ... 9 payment, 10 health check)
	Rate     float64 // base arrival rate in requests/s (open loop) or share of users (closed loop)
	// Load is the class's own load profile, piecewise linear like Scenario.Load and multiplied
	// with it, so one class can surge alone (a prefetch spike beside flat user traffic). No
	// points: a flat 1.0, the class follows the scenario's profile only.
	Load []LoadPoint
}

// LoadPoint is one point of a piecewise-linear load profile: the scenario's, which multiplies
// every class's base rate, or a class's own, which multiplies that class's rate on top.
type LoadPoint struct {
	At     time.Duration // time of the point
	Factor float64       // rate multiplier (>= 0)
}

// Service describes the downstream service.
type Service struct {
	Workers      int           // concurrent slots
	ServiceTime  time.Duration // mean service time S; capacity = Workers / S
	Sigma        float64       // lognormal shape of the service time (default 0.25; 0 = constant)
	QueueLimit   int           // bounded FIFO in front of the workers; a full queue fails fast (503)
	DropExpired  bool          // skip queued attempts whose client already timed out
	RefusalCost  float64       // load of an attempt answered without being served (503, 429, 4xx), in service times, [0, 1] (default 0.1)
	CrashFactor  float64       // utilisation (offered/capacity) above which the service is overloaded (0 = never crashes)
	CrashAfter   time.Duration // how long overload must last before the crash
	RestartDelay time.Duration // time a crashed service stays down
	WarmStart    float64       // capacity fraction right after a restart or an outage (default 0.3)
	Warmup       time.Duration // time to ramp from WarmStart to full capacity
}

// Fault is one entry of the fault timeline.
type Fault struct {
	Kind     FaultKind
	At       time.Duration // start
	Duration time.Duration // length
	Value    float64       // meaning depends on Kind (seconds of latency, fraction, rate, factor)
}

// Note is a caption shown from At until the next note for the same strategy.
type Note struct {
	At   time.Duration
	Text string
	// Strategies are the strategies the note is about (catalog names, e.g. "naive"): a run of
	// another strategy does not show it. Empty: every strategy (but Except).
	Strategies []string
	// Except are the strategies the note is not about: a run of one of them does not show it,
	// every other strategy's does (a strategy added to the catalog later included). At most one
	// of Strategies and Except is set.
	Except []string
}

// For reports whether the note is shown to a run of the named strategy: one it names in
// Strategies, one it does not name in Except, every strategy when it names none. A name the
// strategy switch built from several ("cortex+naive") is not matched: the dashboard asks with
// the strategy running now.
func (n Note) For(strategy string) bool {
	if len(n.Strategies) > 0 {
		return slices.Contains(n.Strategies, strategy)
	}
	return !slices.Contains(n.Except, strategy)
}

// WithTiming returns s with its zero Tick, Clients, Deadline and Timeout set to their defaults
// (DefaultTick, DefaultClients, DefaultDeadline, DefaultTimeout), the fields every run of a
// scenario, simulated or live, needs; the other fields are left as they are.
func (s Scenario) WithTiming() Scenario {
	if s.Tick == 0 {
		s.Tick = DefaultTick
	}
	if s.Clients == 0 {
		s.Clients = DefaultClients
	}
	if s.Deadline == 0 {
		s.Deadline = DefaultDeadline
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	return s
}
