package live

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Defaults of a Config.
const (
	DefaultMaxRPS      = 2000                  // cap on the arrival rate of originals, requests/s
	DefaultMaxInFlight = 4096                  // floor of the derived bound on requests alive at once (InFlightFor)
	MaxInFlightCeiling = 50_000                // ceiling of the derived bound: about 0.5 GB of requests alive (InFlightFor)
	DefaultDrainLimit  = 64 << 10              // bytes of a response body read before it is closed
	MinTick            = 10 * time.Millisecond // shortest live tick: a shorter scenario dt is raised to it
)

// Config configures a Run. Scenario, Strategy and Stack are required; zero numbers take the
// defaults documented per field.
type Config struct {
	// Scenario is the scenario played: classes, load profile, fleet, fault timeline, notes. Its
	// loop must be open and its layers 1 (live mode sends from one retry layer).
	Scenario scenarios.Scenario
	// Strategy is the catalog name of every client's retry strategy (strategy.Names).
	Strategy string
	// Seed seeds the arrivals and every client's strategy (0: the scenario's seed).
	Seed int64
	// Scale multiplies every class's rate (and, through the Stack the caller builds, the
	// embedded target's capacity), in (0, 1]; 0 means 1. A throttle fault's rate is scaled too.
	Scale float64
	// MaxRPS caps the arrival rate of originals, requests/s (default DefaultMaxRPS); retries
	// come on top of it. The cap holds whatever the class shares are set to.
	MaxRPS float64
	// MaxInFlight bounds the requests alive at once (sending, held or waiting for a retry);
	// an arrival that finds none free is refused locally (Counts.InFlightCapRefused). 0 derives
	// it from the scenario so that its own load cannot reach it (InFlightFor).
	MaxInFlight int
	// Duration is the length of the run in wall time: arrivals during the scenario's duration
	// (or all of it, if shorter), then a drain. A request still alive at its end is waited
	// for, up to EndGrace (1 s) more or the scenario's deadline if shorter: the run ends at the
	// first tick after Duration with none alive, so that an original a healthy service is
	// answering is not counted as failed, and at that bound whatever the target does; every
	// request left is then cancelled (and counted as failed). 0 means the scenario's
	// duration plus its drain. Negative means unbounded (until Close): arrivals go on at the
	// load profile's last factor.
	Duration time.Duration
	// DrainLimit is how many bytes of each response body are read before it is closed
	// (default DefaultDrainLimit): a huge body costs at most that much.
	DrainLimit int64
	// Clock is the wall clock of the run (default engine.WallClock); tests pass a manual clock
	// and call Advance instead of Start.
	Clock engine.Clock
	// Base is the transport every client's cortexhttp.Transport sends its attempts with; nil
	// means a pooled http.Transport sized for MaxInFlight (see NewBaseTransport), which the run
	// closes its idle connections of on Close.
	Base http.RoundTripper
	// Stack is where the traffic goes: built at the start and at every Restart, closed on Close.
	Stack StackBuilder
	// Join, when set, makes every CORTEX engine of the run a member of a fleet that shares its
	// signals and its retry budget through a store (live --fleet: Redis); nil: every engine
	// is alone, with its own share of the budget.
	Join *Join
	// Engine, when set, is the engine configuration of the cortex strategy for the whole fleet
	// (a cortex.toml file's, package engineconf), in place of the scenario's ([engine]) or else
	// engine.DefaultConfig: each client gets its share (engine.Config.Split), a fleet's bucket (Join) its capacity. Its Fleet is
	// Join's to decide. EngineName names it in the run's Meta ("custom" when empty).
	Engine     *engine.Config
	EngineName string
}

// engineFor returns the whole fleet's engine configuration of strategy name and whether it has
// an engine: c.Engine for cortex when set, else the strategy's own (strategy.FleetConfig).
func (c Config) engineFor(name string) (engine.Config, bool) {
	if c.Engine != nil && strings.EqualFold(strings.TrimSpace(name), strategy.CortexName) {
		return *c.Engine, true
	}
	return strategy.FleetConfig(name)
}

// customEngine returns one client's engine configuration for strategy name in a fleet of n
// (c.Engine's share, its Fleet off: Join decides) and true when name runs c.Engine.
func (c Config) customEngine(name string) (*engine.Config, bool) {
	if c.Engine == nil || !strings.EqualFold(strings.TrimSpace(name), strategy.CortexName) {
		return nil, false
	}
	e := c.Engine.Split(max(c.Scenario.Clients, 1))
	e.Fleet = engine.FleetConfig{}
	return &e, true
}

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	if c.Engine == nil && c.Scenario.Engine != nil { // the scenario's [engine], unless the run has its own
		c.Engine, c.EngineName = c.Scenario.Engine, c.Scenario.EngineName
	}
	if c.Engine != nil && c.EngineName == "" {
		c.EngineName = "custom"
	}
	if c.Seed == 0 {
		c.Seed = c.Scenario.Seed
	}
	if c.Scale == 0 {
		c.Scale = 1
	}
	if c.MaxRPS == 0 {
		c.MaxRPS = DefaultMaxRPS
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = InFlightFor(c.Scenario, c.Scale, c.MaxRPS)
	}
	if c.DrainLimit == 0 {
		c.DrainLimit = DefaultDrainLimit
	}
	if c.Clock == nil {
		c.Clock = engine.WallClock{}
	}
	return c
}

// Validate reports every field out of range, each named, joined in one error (nil if none).
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Stack == nil {
		bad("live: Stack is nil (nowhere to send the traffic)")
	}
	if !(c.Scale >= 0 && c.Scale <= 1) {
		bad("live: scale must be in (0, 1], got %v", c.Scale)
	}
	if !(c.MaxRPS >= 0) || math.IsInf(c.MaxRPS, 0) {
		bad("live: max_rps must be a finite number > 0, got %v", c.MaxRPS)
	}
	if c.MaxInFlight < 0 || c.MaxInFlight > 1_000_000 {
		bad("live: max_inflight must be in 1..1000000, got %d", c.MaxInFlight)
	}
	if c.DrainLimit < 0 {
		bad("live: drain_limit must be >= 0, got %d", c.DrainLimit)
	}
	if err := CheckScenario(c.Scenario); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// CheckScenario reports what keeps a scenario from being played live: a closed loop (live
// mode's arrivals are open loop) or retries at more than one layer; and the scenario's own
// validation errors.
func CheckScenario(scn scenarios.Scenario) error {
	if scn.Loop.Closed {
		return fmt.Errorf("live: scenario %q is closed loop; live mode plays open-loop scenarios only", scn.Name)
	}
	if scn.Layers > 1 {
		return fmt.Errorf("live: scenario %q retries at %d layers; live mode sends from one retry layer (the clients')", scn.Name, scn.Layers)
	}
	if len(scn.Classes) == 0 {
		return fmt.Errorf("live: scenario %q has no class of traffic", scn.Name)
	}
	if scn.Duration <= 0 {
		return fmt.Errorf("live: scenario %q has no duration", scn.Name)
	}
	return nil
}

// InFlightMargin is the share of InFlightFor's bound above the most requests a scenario's own
// load keeps alive: the arrivals' randomness, a retry's last attempt answered after the deadline.
const InFlightMargin = 1.25

// InFlightFor returns the bound on requests alive at once that a run of scn at scale (0: 1),
// its originals' rate capped at maxRPS (0: no cap), takes when Config.MaxInFlight is 0: no
// request lives longer than the scenario's deadline, so at most peak rate x deadline are alive
// at once (whatever a strategy holds, parks or retries), plus InFlightMargin; at least
// DefaultMaxInFlight, at most MaxInFlightCeiling. A request alive costs about 10 KiB (its
// goroutine's stack, its context, its request and its state; black-friday's live run, cortex, measured
// 132 MiB of peak RSS with 4,096 alive at most, 291 MiB with up to 20,000: about 162 MiB more
// for about 16,000 more requests alive): the ceiling is about 0.5 GB.
func InFlightFor(scn scenarios.Scenario, scale, maxRPS float64) int {
	if scale <= 0 {
		scale = 1
	}
	rate := scn.PeakRate() * scale
	if maxRPS > 0 {
		rate = min(rate, maxRPS)
	}
	alive := rate * scn.WithTiming().Deadline.Seconds() * InFlightMargin
	if !(alive < MaxInFlightCeiling) { // NaN too
		return MaxInFlightCeiling
	}
	return max(DefaultMaxInFlight, int(math.Ceil(alive)))
}

// ScaleFor returns the scale that keeps scn's peak arrival rate, times scale, at or under
// maxRPS: scale itself when it already does, else maxRPS / peak rate.
func ScaleFor(scn scenarios.Scenario, scale, maxRPS float64) float64 {
	if scale <= 0 {
		scale = 1
	}
	peak := scn.PeakRate() * scale
	if maxRPS > 0 && peak > maxRPS {
		return scale * maxRPS / peak
	}
	return scale
}
