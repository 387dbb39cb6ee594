package upstream

import (
	"errors"
	"fmt"
	"math"
	"net"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Defaults of a Config, as DefaultConfig sets them.
const (
	DefaultAddr         = "127.0.0.1:0"          // loopback, a port chosen by the system
	DefaultWorkers      = 50                     // concurrent slots
	DefaultServiceTime  = 100 * time.Millisecond // mean service time: 500 requests/s with 50 workers
	DefaultSigma        = scenarios.DefaultSigma // lognormal shape of the service time
	DefaultQueueLimit   = 100                    // bounded FIFO in front of the workers
	DefaultRefusalCost  = scenarios.DefaultRefusalCost
	DefaultWarmStart    = scenarios.DefaultWarmStart
	DefaultTick         = 100 * time.Millisecond // period of the control loop, the simulator's dt
	DefaultMaxBodyBytes = 64 << 10               // request bodies are read and discarded up to 64 KiB
	DefaultSeed         = 1
)

// Limits checked by Validate beyond the scenario format's own.
const (
	MinTick = time.Millisecond // shortest control period
	MaxTick = time.Second      // longest control period (the utilisation window is one second)
	// MaxBodyLimit is the largest MaxBodyBytes: a target that discards bodies needs no more.
	MaxBodyLimit = 64 << 20
)

// Config configures a Target. Start from DefaultConfig or FromScenario; Validate names every
// bad field. A Config is a plain value.
type Config struct {
	// Addr is the address to listen on, host:port; port 0 picks a free port once, at Start,
	// and every restart listens again on that same port. Default "127.0.0.1:0" (loopback only).
	Addr string

	// Workers is the number of concurrent slots, 1 to scenarios.MaxWorkers. Default 50.
	Workers int
	// ServiceTime is the mean time a request holds a worker (> 0); capacity is
	// Workers / ServiceTime requests/s. Default 100ms.
	ServiceTime time.Duration
	// Sigma is the lognormal shape of the service time, 0 (constant) to scenarios.MaxSigma:
	// each request holds its worker for ServiceTime * exp(Sigma*Z - Sigma^2/2), Z ~ N(0,1),
	// whose mean is ServiceTime. Default 0.25.
	Sigma float64
	// QueueLimit is the length of the FIFO queue in front of the workers, 0 (no queue) to
	// scenarios.MaxQueueLimit; a request finding every worker busy and the queue full is
	// answered 503 at once. Default 100.
	QueueLimit int
	// DropExpired skips, when its turn comes, a queued request whose client has gone
	// (cancelled, timed out, disconnected). False (the default, as in the simulator): the
	// request is served anyway, holding its worker for its whole service time.
	DropExpired bool
	// RefusalCost is the load of a request answered without being served (503 queue full,
	// 413 body too large), as a fraction of one served request, in [0, 1]. Default 0.1.
	RefusalCost float64
	// CrashFactor is the utilisation (offered work / capacity over the last second) above
	// which the target is overloaded: 0 never crashes (the default), otherwise at least 1.
	CrashFactor float64
	// CrashAfter is how long overload must last, without a break, before the crash (>= 0).
	CrashAfter time.Duration
	// RestartDelay is how long a crashed target stays down (> 0 when CrashFactor is set).
	RestartDelay time.Duration
	// WarmStart is the fraction of capacity right after a restart or an outage, in (0, 1].
	// Default 0.3.
	WarmStart float64
	// Warmup is the time to ramp from WarmStart to full capacity (>= 0; 0: full at once).
	Warmup time.Duration

	// Tick is the period of the control loop that samples utilisation, runs the crash clock,
	// restarts and warms up, MinTick to MaxTick; the utilisation the crash rule reads is that
	// of the last 1s / Tick steps (at least one), as in the simulator: one second for a Tick
	// that divides a second.
	// Default 100ms (the simulator's dt).
	Tick time.Duration
	// MaxBodyBytes is the largest request body the target reads (and discards); a longer one
	// is answered 413 and its connection closed. 0 to MaxBodyLimit; default 64 KiB.
	MaxBodyBytes int64
	// Seed seeds the service-time draws unless WithRand gives a source. Default 1.
	Seed int64
}

// DefaultConfig returns a target of 50 workers, 100 ms of service time (500 requests/s), a
// queue of 100, listening on a free port of 127.0.0.1, that never crashes.
func DefaultConfig() Config {
	return Config{
		Addr:         DefaultAddr,
		Workers:      DefaultWorkers,
		ServiceTime:  DefaultServiceTime,
		Sigma:        DefaultSigma,
		QueueLimit:   DefaultQueueLimit,
		RefusalCost:  DefaultRefusalCost,
		WarmStart:    DefaultWarmStart,
		Tick:         DefaultTick,
		MaxBodyBytes: DefaultMaxBodyBytes,
		Seed:         DefaultSeed,
	}
}

// FromScenario returns DefaultConfig with the service parameters of a scenario's [service]
// (workers, service_time, sigma, queue_limit, drop_expired, refusal_cost, crash_factor,
// crash_after, restart_delay, warm_start, warmup) copied as they are: a parsed scenario has
// its defaults filled already, and Validate reports a zero value that is not allowed.
func FromScenario(svc scenarios.Service) Config {
	c := DefaultConfig()
	c.Workers = svc.Workers
	c.ServiceTime = svc.ServiceTime
	c.Sigma = svc.Sigma
	c.QueueLimit = svc.QueueLimit
	c.DropExpired = svc.DropExpired
	c.RefusalCost = svc.RefusalCost
	c.CrashFactor = svc.CrashFactor
	c.CrashAfter = svc.CrashAfter
	c.RestartDelay = svc.RestartDelay
	c.WarmStart = svc.WarmStart
	c.Warmup = svc.Warmup
	return c
}

// service is the scenario's [service] the configuration describes, for the physics.
func (c Config) service() scenarios.Service {
	return scenarios.Service{Workers: c.Workers, ServiceTime: c.ServiceTime, Sigma: c.Sigma, QueueLimit: c.QueueLimit,
		DropExpired: c.DropExpired, RefusalCost: c.RefusalCost, CrashFactor: c.CrashFactor, CrashAfter: c.CrashAfter,
		RestartDelay: c.RestartDelay, WarmStart: c.WarmStart, Warmup: c.Warmup}
}

// ConfigError is one invalid field of a Config.
type ConfigError struct {
	Field string // the field's name as in a scenario's [service] (e.g. "queue_limit"), or "addr", "tick", "max_body_bytes"
	Msg   string // what is wrong, e.g. "must be between 1 and 100000, got 0"
}

// Error formats the problem as "target: field: message".
func (e *ConfigError) Error() string { return "target: " + e.Field + ": " + e.Msg }

// Validate checks every field and returns nil, or the errors.Join of one *ConfigError per bad
// field (errors.As finds the first; the message lists them all, one a line).
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		bad("addr", "must be host:port (like %q), got %q", DefaultAddr, c.Addr)
	}
	if c.Workers < 1 || c.Workers > scenarios.MaxWorkers {
		bad("workers", "must be between 1 and %d, got %d", scenarios.MaxWorkers, c.Workers)
	}
	if c.ServiceTime <= 0 {
		bad("service_time", "must be positive, got %s", c.ServiceTime)
	}
	if !(c.Sigma >= 0 && c.Sigma <= scenarios.MaxSigma) {
		bad("sigma", "must be between 0 and %v, got %v", scenarios.MaxSigma, c.Sigma)
	}
	if c.QueueLimit < 0 || c.QueueLimit > scenarios.MaxQueueLimit {
		bad("queue_limit", "must be between 0 and %d, got %d", scenarios.MaxQueueLimit, c.QueueLimit)
	}
	if !(c.RefusalCost >= 0 && c.RefusalCost <= 1) {
		bad("refusal_cost", "must be in [0, 1] (a fraction of one served request), got %v", c.RefusalCost)
	}
	switch {
	case math.IsNaN(c.CrashFactor) || math.IsInf(c.CrashFactor, 0) || c.CrashFactor < 0:
		bad("crash_factor", "must be 0 (never crashes) or at least 1, got %v", c.CrashFactor)
	case c.CrashFactor > 0 && c.CrashFactor < 1:
		bad("crash_factor", "must be 0 (never crashes) or at least 1 (a service below capacity does not crash), got %v", c.CrashFactor)
	}
	if c.CrashAfter < 0 {
		bad("crash_after", "must not be negative, got %s", c.CrashAfter)
	}
	switch {
	case c.RestartDelay < 0:
		bad("restart_delay", "must not be negative, got %s", c.RestartDelay)
	case c.CrashFactor > 0 && c.RestartDelay == 0:
		bad("restart_delay", "must be positive when crash_factor is set")
	}
	if !(c.WarmStart > 0 && c.WarmStart <= 1) {
		bad("warm_start", "must be in (0, 1], got %v", c.WarmStart)
	}
	if c.Warmup < 0 {
		bad("warmup", "must not be negative, got %s", c.Warmup)
	}
	if c.Tick < MinTick || c.Tick > MaxTick {
		bad("tick", "must be between %s and %s, got %s", MinTick, MaxTick, c.Tick)
	}
	if c.MaxBodyBytes < 0 || c.MaxBodyBytes > MaxBodyLimit {
		bad("max_body_bytes", "must be between 0 and %d, got %d", MaxBodyLimit, c.MaxBodyBytes)
	}
	return errors.Join(errs...)
}
