package sim

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/ring"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/model"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// TierRetries is the number of immediate retries each intermediate tier makes when Layers > 1
// (a naive retrier: 1 + 3 attempts per call it receives).
const TierRetries = 3

// epoch is the virtual clock's reading at t = 0 of every run.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Random streams: each purpose draws from its own PCG stream of the run's seed, so what one
// part consumes never shifts another (arrivals are identical whatever the strategy).
const (
	streamService = 2 // (arrivals: scenarios.ArrivalStream, 1)
	streamThink   = 3
	streamClient  = 1 << 20 // + client index + switch count << 32
)

// Sim is one simulation run: a fleet of clients with their strategies, the arrivals, and the
// downstream service, stepped in ticks of virtual time. Each Step is a pure function of the
// state, the seed and the controls applied before it: the same seed, scenario, strategy and
// controls give the same snapshots, byte for byte. A Sim is not safe for concurrent use; wrap
// it with NewSource for that.
type Sim struct {
	scn      scenarios.Scenario
	opts     Options
	strategy string
	began    string // the strategy the run began (or restarted) with
	seed     int64
	switches uint64 // strategy switches, to derive fresh strategy streams

	now      int64 // virtual time at the end of the last tick, ns
	tick     int64 // dt in ns
	total    int64 // Duration + Drain in ns
	duration int64 // arrival phase in ns
	timeout  int64
	deadline int64
	done     bool

	clock   *engine.ManualClock
	clockAt int64

	svcRand, thinkRand *rand.Rand
	arr                *scenarios.Arrivals // open-loop arrivals, from their own stream
	arrivals           []scenarios.Arrival // this tick's, in time order
	classRates         []float64           // rate x share of each class, this tick

	ctl     model.Controls // the classes' shares and priorities, the CORTEX weights and adaptive switch
	clients []client
	users   []user // closed loop only

	reqs    []request
	freeReq []int32
	wakeBuf []int32                     // the parked requests a wake releases (park.go)
	wakeN   [engine.MaxPriority + 1]int // how many of each priority (park.go)
	atts    []attempt
	freeAtt []int32

	svcTimeouts ring.Ring[timeoutEntry] // per-attempt timeouts, in send order
	cliTimeouts ring.Ring[timeoutEntry] // client timeouts when Layers > 1
	timers      eventHeap               // retry wake-ups, closed-loop think ends
	parks       parkHeap                // parked attempts' hold timers (park.go), sequenced with timers

	svc service
	tl  model.Timeline    // the fault timeline and the captions
	sch model.Schedule    // the scenario's controls ([[control]]), applied when their tick begins
	fx  scenarios.Effects // what the faults in effect do to the service (the timeline's)

	fleet *fleetSync // the clients' engines sharing one budget (scenario budget = "shared"); nil otherwise
	// build, when set (tests only), builds each client's strategy instead of strategy.New.
	build func(name string, env strategy.Env) (strategy.Strategy, error)

	lastCircuits    [2]int          // clients with a HALF_OPEN and an OPEN circuit at the end of the previous tick
	kept            *decisionKeeper // the latest decisions, while KeepDecisions keeps them (nil: off)
	lastReason      string          // the reason of the last REJECT or CIRCUIT_OPEN verdict counted
	lastCode        source.Reason   // its code (countVerdict)
	lastRefusal     string          // the reason of the last local refusal counted
	lastRefusalCode source.Reason   // its code (refuse)
	counts          source.Counts
	engSnap         engine.Snapshot  // fleetView's buffer for one client's engine snapshot
	cortexSum       source.CortexSum // fleetView's sum of the engines' snapshots
	emergency       float64          // the clients' engines' EmergencyThreshold, for the fleet's band
	classTicks      []source.ClassTick
	events          []source.Event
}

// client is one instance of the fleet with its own strategy state.
type client struct {
	strat       strategy.Strategy
	holder      strategy.EngineHolder // non-nil for cortex
	pending     int                   // retries waiting out their delay (or held by the strategy when due)
	held        int                   // originals held by the strategy (Admission.Wait), not yet sent
	lastPending int

	waker   strategy.Waker                    // non-nil for a strategy that parks held attempts
	parkQ   [engine.MaxPriority + 1]parkQueue // parked attempts by priority (park.go)
	parked  int                               // how many, stale entries not counted
	wakeAt  int64                             // when the wake timer is due (noWake: none)
	wakeGen uint32                            // the wake timer's generation: an older one is stale
}

// user is one closed-loop user: its class and client.
type user struct {
	class, client int
}

// request is one original request while it is alive; the slot is reused afterwards (gen
// tells a stale reference from a live one).
type request struct {
	gen      uint32
	epoch    uint32 // client attempts sent so far; answers carry it
	class    int16
	retry    int16 // retry index of the current (or next) client attempt
	prio     int8
	waiting  bool   // a client attempt is outstanding
	park     uint16 // odd while parked (park.go): the parks and unparks so far
	client   int32
	user     int32 // closed-loop user, -1 in open loop
	sentAt   int64 // send time of the current client attempt; while held, when its hold ends
	deadline int64
}

// attempt is one attempt sent to the service. It is freed once its sender has an outcome
// and the service no longer holds it.
type attempt struct {
	gen       uint32
	reqGen    uint32
	epoch     uint32
	req       int32
	retry     int16 // client retry index
	tiers     uint8 // retry indexes at the intermediate tiers (Layers > 1), 2 bits per tier
	answered  bool  // the sender has its outcome (response or timeout)
	inService bool  // queued or being served
	sentAt    int64
}

// timeoutEntry is one pending timeout: an attempt (idx, gen) or, for client timeouts, a
// request (idx, gen, epoch).
type timeoutEntry struct {
	at    int64
	idx   int32
	gen   uint32
	epoch uint32
}

// Timer kinds in the timers heap.
const (
	timerRetry uint8 = iota // a retry's delay ends
	timerThink              // a closed-loop user's think time ends
	timerHold               // a held attempt's wait ends (Admission.Wait)
	timerWake               // a client's parked attempts may be released (park.go): idx is the client
)

// New builds a simulation of scn with every client running strategyName, from seed. Zero
// fields of scn get the defaults of package scenarios (see withDefaults; sigma, drain and
// refusal_cost keep their 0). New checks only what the simulator relies on and returns an error naming each bad
// field: a scenario from Parse has already passed the stricter scenarios.Validate, while one
// built in code need not (no name or summary, a fault of duration 0 lasting until the end).
func New(scn scenarios.Scenario, strategyName string, seed int64) (*Sim, error) {
	return NewWith(scn, strategyName, seed, Options{})
}

// Options are what a run may set beyond its scenario, strategy and seed. The zero value is
// the run New builds.
type Options struct {
	// Engine, when set, is the engine configuration of the cortex strategy for the whole fleet
	// (a cortex.toml file's, package engineconf), in place of the scenario's (its [engine]) or
	// else engine.DefaultConfig: each client's
	// engine gets its share (Config.Split), and a shared budget's bucket is its capacity. Its
	// Fleet is the scenario's to decide (the budget), and each engine's seed the run's.
	Engine *engine.Config
	// EngineName names Engine in the run's Meta (source.Meta.Engine), e.g. the file's name;
	// "" with an Engine reads "custom".
	EngineName string
}

// NewWith builds a simulation as New does, with opts.
func NewWith(scn scenarios.Scenario, strategyName string, seed int64, opts Options) (*Sim, error) {
	scn = withDefaults(scn)
	if err := validate(scn); err != nil {
		return nil, err
	}
	if opts.Engine == nil && scn.Engine != nil { // the scenario's [engine], unless the run has its own
		opts.Engine, opts.EngineName = scn.Engine, scn.EngineName
	}
	if opts.Engine != nil {
		if err := opts.Engine.Validate(); err != nil {
			return nil, err
		}
		c := *opts.Engine
		opts.Engine = &c
		if opts.EngineName == "" {
			opts.EngineName = "custom"
		}
	}
	s := &Sim{scn: scn, seed: seed, opts: opts}
	if err := s.reset(strategyName); err != nil {
		return nil, err
	}
	return s, nil
}

// reset (re)builds the whole run state for strategyName at t = 0.
func (s *Sim) reset(strategyName string) error {
	scn := s.scn
	seed := uint64(s.seed)
	s.now, s.done = 0, false
	s.tick = int64(scn.Tick)
	s.duration = int64(scn.Duration)
	s.total = int64(scn.Duration + scn.Drain)
	s.timeout = int64(scn.Timeout)
	s.deadline = int64(scn.Deadline)
	s.clock = engine.NewManualClock(epoch)
	s.clockAt = 0
	s.arr = scenarios.NewArrivals(scn, rand.New(rand.NewPCG(seed, scenarios.ArrivalStream)), scn.Clients)
	s.svcRand = rand.New(rand.NewPCG(seed, streamService))
	s.thinkRand = rand.New(rand.NewPCG(seed, streamThink))

	s.ctl = model.NewControls(scn.Classes, 1)
	s.reqs, s.freeReq, s.atts, s.freeAtt = s.reqs[:0], s.freeReq[:0], s.atts[:0], s.freeAtt[:0]
	s.svcTimeouts.Clear()
	s.cliTimeouts.Clear()
	s.timers.clear()
	s.timers.seq = 0
	s.parks.clear()
	s.svc = service{Service: model.NewService(scn.Service, scn.Tick),
		queue: ring.New[int32](scn.Service.QueueLimit)} // arrive never queues past it: the ring stays within it
	s.tl = model.NewTimeline(scn.Faults, scn.Notes, sideOf{s})
	s.sch = model.NewSchedule(scn.Controls)
	s.fx = s.tl.Effects()
	s.lastCircuits = [2]int{}
	s.classTicks = make([]source.ClassTick, len(s.ctl.Classes))
	s.events = nil
	s.counts = source.Counts{}
	if s.kept != nil {
		s.kept.forget()
	}

	s.switches = 0
	s.clients = nil
	if err := s.buildClients(strategyName); err != nil {
		return err
	}
	s.strategy = strings.ToLower(strings.TrimSpace(strategyName))
	s.began = s.strategy
	s.users = nil
	if scn.Loop.Closed {
		s.startUsers()
	}
	return nil
}

// buildClients gives every client a fresh strategy called name, each with its own stream.
// With a shared budget, the clients' CORTEX engines join a fresh fleet (newFleetSync).
func (s *Sim) buildClients(name string) error {
	clients := make([]client, s.scn.Clients)
	fs, err := s.newFleetSync(name)
	if err != nil {
		return err
	}
	var member *engine.FleetConfig
	if fs != nil {
		member = &fs.member
	}
	var shared *strategy.Shared
	if s.scn.Budget == scenarios.BudgetShared {
		shared = &strategy.Shared{}
	}
	for i := range clients {
		// cortex seeds its engine from r and reads the shared virtual clock.
		r := rand.New(rand.NewPCG(uint64(s.seed), streamClient+uint64(i)+s.switches<<32))
		build := strategy.New
		if s.build != nil {
			build = s.build
		}
		st, err := build(name, strategy.Env{Clock: s.clock, Rand: r, Clients: len(clients), Cortex: s.cortexConfig(name, len(clients)), Fleet: member, Shared: shared})
		if err != nil {
			return err
		}
		clients[i].strat = st
		clients[i].waker, _ = st.(strategy.Waker)
		clients[i].wakeAt = noWake
		if h, ok := st.(strategy.EngineHolder); ok {
			clients[i].holder = h
			s.emergency = h.Engine().Config().EmergencyThreshold
			if err := s.ctl.Configure(h.Engine()); err != nil {
				return err
			}
		}
		if s.clients != nil && i < len(s.clients) {
			clients[i].pending, clients[i].held = s.clients[i].pending, s.clients[i].held
			clients[i].parkQ, clients[i].parked = s.clients[i].parkQ, s.clients[i].parked
		}
	}
	if fs != nil {
		if err := fs.join(clients); err != nil {
			return err
		}
	}
	s.clients, s.fleet = clients, fs
	return nil
}

// cortexConfig returns one client's engine configuration for strategy name, a fleet of n:
// Options.ClientEngine for cortex, nil (the strategy's own) otherwise.
func (s *Sim) cortexConfig(name string, n int) *engine.Config {
	if !s.usesEngine(name) {
		return nil
	}
	return s.opts.ClientEngine(n)
}

// ClientEngine returns the engine configuration each of n clients of a run gets from o.Engine:
// its share (Config.Split), its Fleet off (the scenario's budget decides); nil without an
// Engine (each client then gets engine.DefaultConfig's share).
func (o Options) ClientEngine(n int) *engine.Config {
	if o.Engine == nil {
		return nil
	}
	c := o.Engine.Split(n)
	c.Fleet = engine.FleetConfig{}
	return &c
}

// usesEngine reports whether strategy name runs Options.Engine (cortex does).
func (s *Sim) usesEngine(name string) bool {
	return strings.EqualFold(strings.TrimSpace(name), strategy.CortexName)
}

// startUsers creates the closed-loop population: users are spread over the classes in
// proportion to their rates and over the clients round-robin; each sends its first request
// at a uniform time within the first think time (or the first tick with no think time).
func (s *Sim) startUsers() {
	n := s.scn.Loop.Users
	s.users = make([]user, n)
	total := 0.0
	for _, c := range s.ctl.Classes {
		total += c.Rate
	}
	for u := range s.users {
		cls := 0
		if total > 0 {
			x := (float64(u) + 0.5) / float64(n) * total
			for cls < len(s.ctl.Classes)-1 && x > s.ctl.Classes[cls].Rate {
				x -= s.ctl.Classes[cls].Rate
				cls++
			}
		}
		s.users[u] = user{class: cls, client: u % len(s.clients)}
		first := s.thinkRand.Float64() * float64(max(int64(s.scn.Loop.Think), s.tick))
		s.timers.push(timer(int64(first), timerThink, int32(u), 0))
	}
}

// Meta describes the run as configured now.
func (s *Sim) Meta() source.Meta {
	m := source.Meta{
		Scenario: s.scn.Name,
		Summary:  s.scn.Summary,
		Story:    s.scn.Story,
		Strategy: s.strategy,
		Seed:     s.seed,
		Tick:     s.scn.Tick,
		Total:    s.scn.Duration + s.scn.Drain,
		Duration: s.scn.Duration,
		Classes:  s.ctl.Meta(),
	}
	if s.opts.Engine != nil && s.usesEngine(s.strategy) {
		m.Engine = s.opts.EngineName
	}
	return m
}

// Fleet says that the clients' engines share one budget in an in-process store (a shared
// budget with a CORTEX strategy); nil otherwise.
func (s *Sim) Fleet() *source.FleetMeta {
	if s.fleet == nil {
		return nil
	}
	return &source.FleetMeta{Name: s.scn.Name, Store: "in-process (simulated)", Instance: "client"}
}

// Done reports whether the run is over: the arrival phase and the drain have elapsed.
func (s *Sim) Done() bool { return s.done }

// Now returns the virtual time elapsed since the start of the run.
func (s *Sim) Now() time.Duration { return time.Duration(s.now) }

// setClock returns the virtual time t (ns) as a strategy.Time (the run's t = 0 is its origin)
// and, when the client's strategy reads the shared clock (cortex: its engine), moves the clock
// there first. The baselines get the time as an argument and never read the clock, so their
// calls skip moving it.
func (s *Sim) setClock(t int64, c *client) strategy.Time {
	if c.holder != nil && t != s.clockAt {
		s.clock.SetElapsed(time.Duration(t)) // reads epoch + t
		s.clockAt = t
	}
	return strategy.Time(t)
}
