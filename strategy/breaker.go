package strategy

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// BreakerConfig configures the Hystrix-style circuit breaker. The defaults are Hystrix's.
type BreakerConfig struct {
	Window          time.Duration // rolling statistical window (metrics.rollingStats.timeInMilliseconds, default 10s); > 0
	Buckets         int           // buckets in the window (metrics.rollingStats.numBuckets, default 10); >= 1, Window divisible by it
	VolumeThreshold int           // attempts in the window below which it never trips (circuitBreaker.requestVolumeThreshold, default 20); >= 1
	ErrorPercent    int           // error percentage at or above which it trips (circuitBreaker.errorThresholdPercentage, default 50); 1..100
	SleepWindow     time.Duration // time open before a single probe is let through (circuitBreaker.sleepWindowInMilliseconds, default 5s); > 0
	Backoff         BackoffConfig // the retries while closed (default DefaultBackoffConfig())
}

// DefaultBreakerConfig returns Hystrix's defaults: 10 s window of 10 buckets, volume 20, 50%
// errors, 5 s sleep window; retries with the AWS full-jitter backoff (100 ms, 20 s, 3 retries).
func DefaultBreakerConfig() BreakerConfig {
	return BreakerConfig{
		Window:          10 * time.Second,
		Buckets:         10,
		VolumeThreshold: 20,
		ErrorPercent:    50,
		SleepWindow:     5 * time.Second,
		Backoff:         DefaultBackoffConfig(),
	}
}

// Validate reports the first field out of range, naming it.
func (c BreakerConfig) Validate() error {
	switch {
	case c.Window <= 0:
		return fmt.Errorf("breaker: Window must be > 0, got %v", c.Window)
	case c.Buckets < 1:
		return fmt.Errorf("breaker: Buckets must be >= 1, got %d", c.Buckets)
	case c.Window%time.Duration(c.Buckets) != 0:
		return fmt.Errorf("breaker: Window (%v) must be divisible by Buckets (%d)", c.Window, c.Buckets)
	case c.VolumeThreshold < 1:
		return fmt.Errorf("breaker: VolumeThreshold must be >= 1, got %d", c.VolumeThreshold)
	case c.ErrorPercent < 1 || c.ErrorPercent > 100:
		return fmt.Errorf("breaker: ErrorPercent must be in 1..100, got %d", c.ErrorPercent)
	case c.SleepWindow <= 0:
		return fmt.Errorf("breaker: SleepWindow must be > 0, got %v", c.SleepWindow)
	}
	if err := c.Backoff.Validate(); err != nil {
		return fmt.Errorf("breaker: %w", err)
	}
	return nil
}

// Breaker is a Hystrix circuit breaker in front of backoff retries (the article's Baseline B).
//
// Closed: every attempt goes; each recorded attempt is counted in a rolling window (Window,
// Buckets). When the window holds at least VolumeThreshold attempts and the integer error
// percentage errors*100/total is >= ErrorPercent, the breaker opens (Hystrix's
// HystrixCircuitBreakerImpl; Hystrix checks on its 500 ms health snapshot, this checks on every
// Record). Errors are timeouts, fast failures, 5xx and 429; a BadRequest is not counted
// (HystrixBadRequestException does not count toward the breaker).
//
// Open: Admit refuses every attempt, originals included, and Decide answers CircuitOpen, until
// SleepWindow has passed since opening; then the next Admit lets one probe through
// (half-open) and refuses the rest. The probe's success (or a BadRequest: the service answered)
// closes the breaker and empties the window; its failure re-opens it for another SleepWindow.
// A probe that never reports is replaced by a new one after another SleepWindow.
//
// Source: Netflix Hystrix, "How it Works: Circuit Breaker" and its Configuration wiki
// (defaults above); retries: Brooker, "Exponential Backoff And Jitter" (AWS, 2015).
//
// Not safe for concurrent use.
type Breaker struct {
	cfg    BreakerConfig
	rnd    *rand.Rand
	window *rolling // [0] attempts, [1] errors
	state  engine.CircuitState
	// waitEnds is, while Open, the end of the sleep window (when it opened + SleepWindow); while
	// HalfOpen, when the probe admitted counts as lost (when admitted + SleepWindow).
	waitEnds Time
}

func init() {
	register(entry{name: "breaker", rank: 50, describe: "Hystrix circuit breaker (10s window, 20 requests, 50% errors, 5s sleep, one probe) + backoff",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 512, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return NewBreaker(env.Rand, DefaultBreakerConfig()) }})
}

var _ Strategy = (*Breaker)(nil)

// NewBreaker returns a closed breaker drawing its backoff jitter from r. It returns an error
// naming the problem if r is nil or cfg is invalid.
func NewBreaker(r *rand.Rand, cfg BreakerConfig) (*Breaker, error) {
	if r == nil {
		return nil, errNilRand("breaker")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Breaker{cfg: cfg, rnd: r, window: newRolling(cfg.Buckets, cfg.Window/time.Duration(cfg.Buckets))}, nil
}

// Name returns "breaker".
func (*Breaker) Name() string { return "breaker" }

// Circuit returns the breaker's state as of the last call (Open becomes HalfOpen only when
// Admit lets the probe through).
func (b *Breaker) Circuit() engine.CircuitState { return b.state }

// Admit admits an attempt (original or retry) always when closed; when open, only the single
// probe once SleepWindow has passed. It refuses the others with engine.CircuitOpen, reason
// CIRCUIT_OPEN while open and HALF_OPEN_PROBES_BUSY while the probe is out.
func (b *Breaker) Admit(now Time, _ Attempt) Admission {
	switch b.state {
	case engine.Open:
		if now < b.waitEnds {
			return Admission{Action: engine.CircuitOpen, Reason: ReasonCircuitOpen}
		}
		b.state, b.waitEnds = engine.HalfOpen, now.Add(b.cfg.SleepWindow)
	case engine.HalfOpen:
		if now < b.waitEnds {
			return Admission{Action: engine.CircuitOpen, Reason: ReasonHalfOpenProbeBusy}
		}
		b.waitEnds = now.Add(b.cfg.SleepWindow) // the probe was lost: let another one through
	}
	return Admission{}
}

// Record counts a sent attempt's outcome in the window and moves the breaker: a failure while
// closed may trip it; any answer while half-open closes (success, BadRequest) or re-opens it. A
// Canceled attempt changes nothing (a canceled probe is replaced after SleepWindow, as a lost one).
func (b *Breaker) Record(now Time, _ Attempt, o Outcome, _ time.Duration) {
	if o == Canceled {
		return
	}
	failed := o.Retryable()
	if failed {
		b.window.add(now, 1, 1)
	} else if o == Success {
		b.window.add(now, 1, 0)
	}
	switch b.state {
	case engine.HalfOpen:
		if failed {
			b.open(now)
			return
		}
		b.state = engine.Closed
		b.window.reset()
	case engine.Closed:
		if failed && b.shouldTrip() {
			b.open(now)
		}
	}
}

// open opens the breaker at now for SleepWindow.
func (b *Breaker) open(now Time) {
	b.state, b.waitEnds = engine.Open, now.Add(b.cfg.SleepWindow)
}

// shouldTrip applies Hystrix's test to the window, which Record has just moved to now: the
// integer percentage errs*100/total at or above ErrorPercent (percentReached: without a 64-bit
// division on every failure).
func (b *Breaker) shouldTrip() bool {
	total, errs := b.window.totals()
	if total < int64(b.cfg.VolumeThreshold) {
		return false
	}
	return percentReached(errs, total, int64(b.cfg.ErrorPercent))
}

// percentReached reports whether the integer percentage errs*100/total (errs >= 0, total > 0)
// is at least p: errs*100 >= p*total, which is the same for a whole p.
func percentReached(errs, total, p int64) bool { return errs*100 >= p*total }

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >=
// MaxRetries, CircuitOpen while the breaker is open (reason CIRCUIT_OPEN) or its probe is out
// (HALF_OPEN_PROBES_BUSY), and otherwise Retry after the full-jitter backoff.
func (b *Breaker) Decide(now Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	if v, ok := precheck(o, retry, b.cfg.Backoff.MaxRetries); !ok {
		return v
	}
	switch {
	case b.state == engine.Open && now < b.waitEnds:
		return Verdict{Action: engine.CircuitOpen, Reason: ReasonCircuitOpen}
	case b.state == engine.HalfOpen && now < b.waitEnds:
		return Verdict{Action: engine.CircuitOpen, Reason: ReasonHalfOpenProbeBusy}
	}
	return retryAfter(b.cfg.Backoff.delay(b.rnd, retry))
}

// SetPending does nothing.
func (*Breaker) SetPending(int) {}
