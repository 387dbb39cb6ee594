package cortexhttp

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// DefaultPriorityHeader is the request header the priority is read from by default.
const DefaultPriorityHeader = "X-Cortex-Priority"

// Config configures a Transport. DefaultConfig returns the documented defaults; New validates.
// Nil interfaces and funcs mean "the default" (Base, Strategy, Clock) or "none" (OnAttempt);
// zero numbers mean what they say (no attempt timeout, no retries, Retry-After ignored, no
// draining), as documented per field.
type Config struct {
	// Base sends each attempt. Nil means http.DefaultTransport.
	Base http.RoundTripper
	// Strategy admits attempts, records their outcomes and decides retries. Nil means a new
	// CORTEX strategy (strategy.New("cortex", ...): engine.DefaultConfig, its own randomly
	// seeded random source, Clock as its clock). The Transport owns the calls into it: do not
	// call it from elsewhere unless it is safe for concurrent use.
	Strategy strategy.Strategy
	// ConcurrentStrategy declares that Strategy is safe for concurrent use, so calls into it
	// are not serialised. It need not be set for a strategy that declares it itself
	// (strategy.Concurrent: cortex, naive, none). Default false.
	ConcurrentStrategy bool
	// Engine configures the CORTEX strategy built when Strategy is nil (nil: engine.DefaultConfig);
	// ConfigFromFile reads it from a cortex.toml file, so that the service runs what was tuned
	// on the simulator. The file describes the engine of one client; a fleet of n instances
	// that was tuned as n clients gives each its share: c := cfg.Engine.Split(n). Its Clock and
	// Seed are replaced by the transport's clock and a random seed. Ignored with a Strategy.
	Engine *engine.Config
	// Clock gives the now passed to the strategy (as a strategy.Time, 0 at New) and the time a
	// Retry-After date is measured from. Nil means the wall clock. Latencies and the request's
	// context deadline are always measured on the real (monotonic) clock; the deadline the
	// strategy sees is now plus the time left before it.
	Clock engine.Clock

	// DefaultPriority is the priority of a request that carries none, 0..10 (default 5).
	DefaultPriority int
	// PriorityHeader is the request header a priority is read from when the context has none
	// (default DefaultPriorityHeader); "" means no header is read. It is forwarded unchanged.
	PriorityHeader string

	// MaxRetries caps the retries of one request whatever the strategy says, >= 0 (default 10;
	// the strategies stop at 3 themselves). 0 means every request is sent once.
	MaxRetries int
	// AttemptTimeout bounds each attempt, >= 0 (default 0: none, only the request's context
	// bounds it). Like http.Client.Timeout it covers the attempt up to the response headers
	// and, for the response RoundTrip returns, the reading of its body, which Close ends. An
	// attempt that runs out of it fails with ErrAttemptTimeout, a Timeout that may be retried.
	AttemptTimeout time.Duration
	// MaxRetryAfter caps the floor a Retry-After header puts on the delay before a retry,
	// >= 0 (default 30s). 0 means Retry-After is ignored.
	MaxRetryAfter time.Duration
	// DrainLimit is how many bytes of an abandoned response body (one whose attempt will be
	// retried) are read before it is closed, so that its connection can be reused, >= 0
	// (default 64 KiB). A longer body is closed unread past the limit, which costs the
	// connection. 0 means bodies are closed without draining.
	DrainLimit int64

	// OnAttempt, when set, is called after every attempt (sent, or refused by Admit) with what
	// happened and what was decided, from the goroutine that called RoundTrip, before the wait
	// for a retry. It must be safe for concurrent use and quick: it runs on the request's path.
	OnAttempt func(Attempt)
}

// DefaultConfig returns the defaults: http.DefaultTransport, a CORTEX strategy on the wall
// clock, priority 5 or the X-Cortex-Priority header, at most 10 retries, no per-attempt
// timeout, Retry-After honoured up to 30 s, abandoned bodies drained up to 64 KiB.
func DefaultConfig() Config {
	return Config{
		DefaultPriority: 5,
		PriorityHeader:  DefaultPriorityHeader,
		MaxRetries:      10,
		MaxRetryAfter:   30 * time.Second,
		DrainLimit:      64 << 10,
	}
}

// ConfigFromFile returns DefaultConfig with Engine read from the cortex.toml file at path
// (engineconf.ParseFile: strictly, every problem as "file:line: key: message"), so that a
// service runs the engine configuration `cortex-tui tune` wrote or `cortex-tui engine --toml`
// printed.
func ConfigFromFile(path string) (Config, error) {
	eng, err := engineconf.ParseFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", "cortexhttp", err)
	}
	c := DefaultConfig()
	c.Engine = &eng
	return c, nil
}

// Validate reports every field out of range, each named, joined in one error (nil if none).
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("cortexhttp: "+format, args...)) }
	if c.DefaultPriority < engine.MinPriority || c.DefaultPriority > engine.MaxPriority {
		bad("DefaultPriority must be in %d..%d, got %d", engine.MinPriority, engine.MaxPriority, c.DefaultPriority)
	}
	if c.PriorityHeader != "" && !validToken(c.PriorityHeader) {
		bad("PriorityHeader must be a valid header name, got %q", c.PriorityHeader)
	}
	if c.MaxRetries < 0 {
		bad("MaxRetries must be >= 0, got %d", c.MaxRetries)
	}
	if c.AttemptTimeout < 0 {
		bad("AttemptTimeout must be >= 0, got %v", c.AttemptTimeout)
	}
	if c.MaxRetryAfter < 0 {
		bad("MaxRetryAfter must be >= 0, got %v", c.MaxRetryAfter)
	}
	if c.DrainLimit < 0 {
		bad("DrainLimit must be >= 0, got %d", c.DrainLimit)
	}
	if c.Strategy == nil && c.Engine != nil {
		if err := c.Engine.Validate(); err != nil {
			bad("Engine: %v", err)
		}
	}
	return errors.Join(errs...)
}

// validToken reports whether s is an RFC 9110 token (the characters a header name may hold).
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c < 0x80 && c > ' ' && c != 0x7f && !isSeparator(c):
		default:
			return false
		}
	}
	return s != ""
}

// isSeparator reports whether c is one of RFC 9110's delimiters, which a token may not hold.
func isSeparator(c byte) bool {
	switch c {
	case '"', '(', ')', ',', '/', ':', ';', '<', '=', '>', '?', '@', '[', '\\', ']', '{', '}':
		return true
	}
	return false
}
