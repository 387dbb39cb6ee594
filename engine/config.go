package engine

import "time"

// Config configures an Engine. DefaultConfig returns the documented defaults; New validates.
// Zero is valid for counts and capacities where it has a clear meaning (no success bonus, no
// queue signal); Window, cooldowns and thresholds must be positive.
type Config struct {
	Window             time.Duration // sliding window for F and L (default 60s)
	FailureHorizon     time.Duration // short span of F, L's P99 and the breaker's trip; 0 (or >= Window) = Window (default 5s; article 0)
	Weights            Weights       // w1..w5 for F L Q B C, >= 0 with a positive sum; stored normalised (default 0.30/0.20/0.15/0.15/0.20)
	AdaptiveWeights    bool          // self-tuning weights (default false)
	EmergencyThreshold float64       // CPS at or above which the circuit is forced OPEN, in (0,1] (default 0.75)
	MaxRetryAttempts   int           // attempt (0-based retry index) >= this is MAX_RETRIES_EXCEEDED (default 3)

	TokenBucketCapacity int     // retry budget in tokens (default 500)
	TokenRefillRate     float64 // tokens per second (default 100)
	TokenSuccessBonus   int     // tokens returned per success, capped at capacity (default 0; article 5)
	// TokenRefillPerSuccess, when > 0, ties the refill to the service's successes: each success
	// earns this many tokens of refill, paid into the bucket no faster than TokenRefillRate, so
	// the budget cannot refill while nothing succeeds. 0 = the article's flat refill (default 1).
	TokenRefillPerSuccess float64
	// SlowdownCost prices a retry by how slow the service's latest successes were: a retry
	// costs 1 + SlowdownCost*S tokens, and a retry after a timeout 1 + 2*SlowdownCost*S, where S
	// in [0,1] is the slowdown (see Snapshot.Slowdown). Slow successes mean the server queues,
	// so a retry joins the queue (and a timed-out attempt is still being worked on); a network
	// loss or a DNS failure does not slow successes, so its retries stay cheap, and neither does
	// a slowness the pacer has found to be the service's own (a slow dependency, no queue: S is
	// then 0) (default 19; article 0).
	SlowdownCost float64
	// BudgetReserve keeps the last tokens of the bucket for the higher priorities: a retry of
	// priority p may spend only while BudgetReserve*(10-p)/10 of the capacity stays in the
	// bucket after it, so analytics (1) stops long before payment (9), and health checks (10)
	// may empty it. 0 = first come, first served, as in the article (default 0.9).
	BudgetReserve float64

	CircuitFailureThreshold float64 // failure rate that trips the circuit, in (0,1] (default 0.60)
	// TripOnTimeouts counts timeouts (RecordTimeout) towards the trip. Off, only answered
	// failures trip the circuit (refused, 5xx, 429): a timeout does not say the service refuses,
	// and F, L and the retry cost already weigh it (default false; article true).
	TripOnTimeouts           bool
	CircuitSustainedDuration time.Duration // ... when sustained this long (default 1s; article 10s)
	// TripFast makes the breaker read its failure rate over the last one to two window slices
	// (two seconds of the default window) instead of the short span (FailureHorizon), so that
	// the seconds before an outage do not dilute its failures (default true; article false).
	TripFast bool
	// ProbeOnSuccess makes an OPEN circuit go HALF_OPEN as soon as an attempt sent after it
	// opened succeeds (counted as the first probe), instead of waiting out CircuitCooldown: the
	// service answers again (default true; article false).
	ProbeOnSuccess     bool
	CircuitMinRequests int           // no trip below this many outcomes in the whole window (default 20)
	CircuitCooldown    time.Duration // OPEN -> HALF_OPEN after this (default 5s; article 15s)
	HalfOpenProbes     int           // successes in HALF_OPEN needed to close (default 5)

	BackoffBaseDelay time.Duration // base of the backoff (default 500ms)
	BackoffMaxDelay  time.Duration // cap on any delay (default 30s)

	QueueCapacity   int           // Q = depth / capacity; 0 disables the Q signal (default 1000)
	BaselineLatency time.Duration // 0 = learn the baseline P50; > 0 = fixed baseline (default 0)
	// LearnTail measures L from the healthy P99 instead of the baseline P50:
	// L = (P99 - tail) / (3 base), tail learned like base, so an ordinary lognormal spread reads
	// as no pressure (default true; article false).
	LearnTail    bool
	RecoveryRamp time.Duration // gradual re-admission after the circuit closes; 0 = none (default 10s; article 30s)

	Deterministic bool  // every random draw returns the midpoint of its range (default false)
	Seed          int64 // seeds the engine's own random source; 0 = time-based (default 0)
	Clock         Clock // injected time source; nil = wall clock

	// AdmitOriginals makes Admit shed new requests while the service queues: it admits a tenth
	// more than the service completes and sheds the rest, lowest priorities first, and retries
	// of the priorities it sheds whole are shed too (SHED_LOW_PRIORITY). Off, Admit admits every
	// request, as in the article, where only retries are decided (default true; article false).
	AdmitOriginals bool
	// HoldForProbe holds the requests of the priorities the floors protect while the circuit is
	// OPEN (and while HALF_OPEN has no probe slot free, and outside the recovery ramp's share),
	// instead of refusing them: AdmitRequest answers RETRY with a Delay, "ask again then", until
	// the circuit has probed the service, as long as the request's deadline leaves the time;
	// Decide gives their retries a RETRY rather than CIRCUIT_OPEN. A request that failed at the
	// start of an outage then goes once the service is back, within its deadline (default true;
	// article false).
	HoldForProbe bool
	// DeadlineAware cuts a retry's delay to the latest moment that leaves the request time to
	// be answered before its deadline (Failure.Remaining), and refuses the retry that has none
	// left (DEADLINE_EXCEEDED) instead of spending tokens on it (default true; article false).
	DeadlineAware bool
	// Admit holds the thresholds by which admission reads that the service queues (the
	// slowdown of the fastest success, the shares of refusals and failures) and the smoothing
	// of the successes the pace follows (AdmitConfig; a zero field takes its default,
	// DefaultAdmit).
	Admit AdmitConfig
	// Pace holds the pacer's constants (AdmitOriginals): its margin over what the service
	// completes, its reservation horizon, its release of parked work, ... (PaceConfig; a zero
	// field takes its default, DefaultPace).
	Pace PaceConfig

	// Fleet makes the engine one instance of a fleet that shares its signals and its retry
	// budget through a store (fleet.Store; see FleetConfig; the zero value is off: alone, as before).
	Fleet FleetConfig
}

// DefaultConfig returns the tuned defaults: the article's model (ArticleConfig) under the same
// five signals and checks, with a 5 s failure horizon (fast attack, slow release), a breaker that
// trips within seconds on answered failures and probes after 5 s, a budget refilled only by
// successes and kept for the higher priorities, retries priced by how slow the successes are,
// a learned latency tail and a 10 s recovery ramp. docs/engine.md gives the measurements behind
// each value.
func DefaultConfig() Config {
	c := ArticleConfig()
	c.FailureHorizon = 5 * time.Second
	c.TokenSuccessBonus = 0
	c.TokenRefillPerSuccess = 1
	c.SlowdownCost = 19
	c.BudgetReserve = 0.9
	c.LearnTail = true
	c.TripOnTimeouts = false
	c.CircuitSustainedDuration = time.Second
	c.CircuitCooldown = 5 * time.Second
	c.RecoveryRamp = 10 * time.Second
	c.TripFast = true
	c.ProbeOnSuccess = true
	c.AdmitOriginals = true
	c.HoldForProbe = true
	c.DeadlineAware = true
	return c
}

// ArticleConfig returns the parameters of the article and of the Java original, exactly as
// published (spec/engine.md's table): one 60 s window, a flat refill of 100 tokens/s plus 5 per
// success, a breaker sustained over 10 s with a 15 s cooldown, L against the baseline P50.
func ArticleConfig() Config {
	return Config{
		Window:                   60 * time.Second,
		Weights:                  DefaultWeights(),
		EmergencyThreshold:       DefaultEmergencyThreshold,
		MaxRetryAttempts:         3,
		TokenBucketCapacity:      500,
		TokenRefillRate:          100,
		TokenSuccessBonus:        5,
		CircuitFailureThreshold:  0.60,
		TripOnTimeouts:           true,
		CircuitSustainedDuration: 10 * time.Second,
		CircuitMinRequests:       20,
		CircuitCooldown:          15 * time.Second,
		HalfOpenProbes:           5,
		BackoffBaseDelay:         500 * time.Millisecond,
		BackoffMaxDelay:          30 * time.Second,
		QueueCapacity:            1000,
		RecoveryRamp:             30 * time.Second,
		Admit:                    DefaultAdmit(),
		Pace:                     DefaultPace(),
	}
}

// Split returns the configuration of one of n engines that share the work c describes, each
// seeing 1/n of the traffic (a fleet of n clients, each with its own engine): each gets 1/n of
// the retry budget (at least one token), of the refill rate and of the queue capacity (at least
// one slot), so that the n engines together retry no more than one engine with c would, and
// their B and Q signals respond to their own share. Quantities per success or per retry
// (TokenSuccessBonus, TokenRefillPerSuccess, SlowdownCost) already scale with each engine's
// share of the traffic and are kept. n < 2 returns c unchanged.
func (c Config) Split(n int) Config {
	if n < 2 {
		return c
	}
	if c.TokenBucketCapacity > 0 {
		c.TokenBucketCapacity = max(1, (c.TokenBucketCapacity+n/2)/n)
	}
	c.TokenRefillRate /= float64(n)
	if c.QueueCapacity > 0 {
		c.QueueCapacity = max(1, (c.QueueCapacity+n/2)/n)
	}
	return c
}
