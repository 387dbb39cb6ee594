package strategy

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// Cortex is the CORTEX engine behind the Strategy interface: every outcome feeds the engine's
// signals, and every retry is decided by its five checks (not retryable, attempt limit,
// emergency and circuit, priority floor and recovery ramp and token budget, backoff scaled by the
// pressure score). The client's pending retries are the engine's queue depth (signal Q). New
// requests are admitted by the engine's Admit: while the service queues it sheds the share it
// cannot complete, lowest priorities first (engine.Config.AdmitOriginals; the article's
// parameters admit every one).
//
// Outcomes: Success is RecordSuccess; Timeout, FastFail, ServerError and Throttled (429) are
// RecordFailure. A BadRequest is the caller's fault, not the service's: the service answered, so
// it is recorded as a success (it lowers F like any answered request). Decide always answers
// NotRetryable "NOT_RETRYABLE" for it, as every strategy does.
//
// The engine reads its own clock (Env.Clock, the same clock the caller takes now from), so the
// now arguments are not used. Source: the article and the Java README (shared/seeds), and
// spec/engine.md.
//
// Safe for concurrent use (the engine is).
type Cortex struct {
	eng  *engine.Engine
	name string
}

// The catalog names of the strategies built on the engine.
const (
	CortexName  = "cortex"         // the tuned defaults, engine.DefaultConfig
	ArticleName = "cortex-article" // the article's parameters, engine.ArticleConfig
)

func init() {
	engines := Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 96e3, TickNs: 96}
	register(entry{name: CortexName, rank: 10, describe: "CORTEX engine: one pressure score (failures, latency, queue, budget, circuit) sheds low priorities first",
		footprint: engines, build: newCortexFromEnv})
	register(entry{name: ArticleName, rank: 20, describe: "CORTEX with the article's exact parameters (60s window, flat refill + success bonus, 10s/15s breaker)",
		footprint: engines, build: newArticleFromEnv})
}

var (
	_ Strategy       = (*Cortex)(nil)
	_ EngineHolder   = (*Cortex)(nil)
	_ Explainer      = (*Cortex)(nil)
	_ AdmitExplainer = (*Cortex)(nil)
	_ Concurrent     = (*Cortex)(nil)
)

// NewCortex wraps an existing engine; its Name is "cortex". It returns an error if eng is nil.
func NewCortex(eng *engine.Engine) (*Cortex, error) {
	if eng == nil {
		return nil, errors.New("cortex: the engine is nil")
	}
	return &Cortex{eng: eng, name: CortexName}, nil
}

// newCortexFromEnv builds the cortex strategy's engine from env.Cortex, or the tuned defaults
// split over the fleet (engine.DefaultConfig().Split(env.Clients)).
func newCortexFromEnv(env Env) (Strategy, error) {
	cfg := engine.DefaultConfig().Split(env.Clients)
	if env.Cortex != nil {
		cfg = *env.Cortex
	}
	return newCortexWith(CortexName, cfg, env)
}

// newArticleFromEnv builds the cortex-article strategy's engine: the article's parameters
// exactly as published (engine.ArticleConfig), split over the fleet like the defaults.
func newArticleFromEnv(env Env) (Strategy, error) {
	return newCortexWith(ArticleName, engine.ArticleConfig().Split(env.Clients), env)
}

// newCortexWith builds a Cortex named name on an engine configured by cfg, with env.Clock as
// its clock (when set) and a seed drawn from env.Rand, so that a run is reproducible and the
// clients of one run do not share their jitter.
func newCortexWith(name string, cfg engine.Config, env Env) (Strategy, error) {
	if env.Clock != nil {
		cfg.Clock = env.Clock
	}
	if env.Fleet != nil {
		cfg.Fleet = *env.Fleet
	}
	cfg.Seed = seedFrom(env.Rand)
	eng, err := engine.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c, err := NewCortex(eng)
	if err != nil {
		return nil, err
	}
	c.name = name
	return c, nil
}

// FleetConfig returns the engine configuration the named strategy stands for as a whole fleet,
// before each client's share is split off: engine.DefaultConfig for cortex, engine.ArticleConfig
// for cortex-article (case and spaces ignored). ok is false for a strategy without an engine. A
// fleet sharing one budget (package fleet) sizes its bucket from it (fleet.BudgetOf).
func FleetConfig(name string) (cfg engine.Config, ok bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case CortexName:
		return engine.DefaultConfig(), true
	case ArticleName:
		return engine.ArticleConfig(), true
	}
	return engine.Config{}, false
}

// seedFrom draws a non-zero engine seed (0 would mean a time-based seed).
func seedFrom(r *rand.Rand) int64 {
	s := int64(r.Uint64() >> 1)
	if s == 0 {
		s = 1
	}
	return s
}

// Name returns the catalog name: "cortex", or "cortex-article" for the article's parameters.
func (c *Cortex) Name() string { return c.name }

// Engine returns the wrapped engine; Cortex implements EngineHolder.
func (c *Cortex) Engine() *engine.Engine { return c.eng }

// Admit asks the engine's AdmitRequest for the attempt (its priority, retry index and the time
// its deadline leaves): a refusal with the engine's action and reason (Reject SHED_LOW_PRIORITY,
// CircuitOpen CIRCUIT_OPEN), a hold for the engine's Delay (HELD: the circuit has not probed the
// service yet, or the recovery ramp has not reached the priority), or an admission.
func (c *Cortex) Admit(now Time, a Attempt) Admission {
	var d engine.Decision // filled in place, as in Decide
	c.eng.AdmitRequestTo(&d, requestOf(now, a))
	return admissionOf(&d)
}

// AdmitExplained is Admit with what the engine's admission saw written into *x (nil is
// allowed): the same answer, the same state changes (engine.Engine.AdmitRequestExplained).
// Cortex implements AdmitExplainer.
func (c *Cortex) AdmitExplained(now Time, a Attempt, x *engine.Explanation) Admission {
	d := c.eng.AdmitRequestExplained(requestOf(now, a), x)
	return admissionOf(&d)
}

// requestOf is the engine's description of attempt a about to be sent at now.
func requestOf(now Time, a Attempt) engine.Request {
	return engine.Request{Priority: a.Priority, Retry: a.Retry, Remaining: remaining(now, a), Hold: true, Park: a.Park, Ask: a.Ask}
}

// Wake releases the engine's parked attempts whose send slots have come (engine.Engine.Wake);
// Cortex implements Waker.
func (c *Cortex) Wake(_ Time, n *[engine.MaxPriority + 1]int) (time.Duration, bool) {
	return c.eng.Wake(n)
}

// NextWake is how long until the engine may release a parked attempt (engine.Engine.NextWake).
func (c *Cortex) NextWake(Time) (time.Duration, bool) { return c.eng.NextWake() }

// Unpark takes an abandoned parked attempt off the engine's (engine.Engine.Unpark).
func (c *Cortex) Unpark(_ Time, p int) { c.eng.Unpark(p) }

// admissionOf maps the engine's answer to an Admission: a refusal with its action and reason,
// a hold for its Delay, or an admission.
func admissionOf(d *engine.Decision) Admission {
	switch {
	case d.Action != engine.Retry:
		return Admission{Action: d.Action, Reason: d.Reason}
	case d.Delay > 0:
		return Admission{Reason: d.Reason, Wait: d.Delay, Parked: d.Parked, Wake: d.Wake}
	}
	return Admission{}
}

// remaining is the time left before a's deadline at now, for the engine (engine.Request and
// engine.Failure: 0 means no deadline, so a deadline already reached counts as a nanosecond
// left).
func remaining(now Time, a Attempt) time.Duration {
	left, ok := a.Remaining(now)
	if !ok {
		return 0
	}
	return max(left, 1)
}

// ConcurrentSafe declares Cortex safe for concurrent use (Concurrent).
func (*Cortex) ConcurrentSafe() {}

// Record feeds the outcome to the engine: Success and BadRequest as RecordSuccess, a Timeout
// as RecordTimeout, a FastFail or Throttled answer (the service refused it for want of room)
// as RecordRefused, the other failures as RecordFailure, with the attempt's latency; a Canceled
// attempt is not recorded.
func (c *Cortex) Record(_ Time, _ Attempt, o Outcome, latency time.Duration) {
	switch {
	case o == Canceled:
	case o == Timeout:
		c.eng.RecordTimeout(latency)
	case o == FastFail || o == Throttled:
		c.eng.RecordRefused(latency)
	case o.Retryable():
		c.eng.RecordFailure(latency)
	default:
		c.eng.RecordSuccess(latency)
	}
}

// Decide asks the engine's Decide for the failure (its priority, retry index, whether it is
// retryable and whether it was a Timeout, which makes the retry cost more of the budget) and
// maps its Decision to a Verdict with the same Action, Delay (non-zero only for a retry) and
// Reason. A BadRequest, not retryable, gets the engine's check 1: NotRetryable
// "NOT_RETRYABLE", as from every strategy.
func (c *Cortex) Decide(now Time, a Attempt, o Outcome) Verdict {
	var d engine.Decision // filled in place: a Decision returned by value is copied whole, which stalls
	c.eng.DecideTo(&d, failureOf(now, a, o))
	return Verdict{Retry: d.Action == engine.Retry, Delay: d.Delay, Action: d.Action, Reason: d.Reason}
}

// DecideExplained is Decide with what the engine's checks saw written into *x (nil is
// allowed): the same verdict, the same state changes (engine.Engine.DecideExplained). Cortex
// implements Explainer.
func (c *Cortex) DecideExplained(now Time, a Attempt, o Outcome, x *engine.Explanation) Verdict {
	d := c.eng.DecideExplained(failureOf(now, a, o), x)
	return Verdict{Retry: d.Action == engine.Retry, Delay: d.Delay, Action: d.Action, Reason: d.Reason}
}

// SetPending sets the engine's queue depth to n retries (signal Q = n / QueueCapacity).
func (c *Cortex) SetPending(n int) { c.eng.SetQueueDepth(n) }

// failureOf is the engine's description of attempt a's failure with outcome o at now.
func failureOf(now Time, a Attempt, o Outcome) engine.Failure {
	return engine.Failure{Priority: a.Priority, Attempt: a.Retry, NotRetryable: !o.Retryable(), Timeout: o == Timeout,
		Remaining: remaining(now, a), Hold: true}
}
