package cortexgrpc

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// DefaultPriorityKey is the outgoing metadata key a call's priority is read from by default.
const DefaultPriorityKey = "x-cortex-priority"

// Config configures an Interceptor. DefaultConfig returns the documented defaults; New
// validates. Nil interfaces and funcs mean "the default" (Strategy, Clock) or "none"
// (OnAttempt); zero numbers mean what they say (no retries, pushback ignored, no replay), as
// documented per field.
type Config struct {
	// Strategy admits attempts, records their outcomes and decides retries. Nil means a new
	// CORTEX strategy (strategy.New("cortex", ...): engine.DefaultConfig, its own randomly
	// seeded random source, Clock as its clock). One Interceptor drives it for every call of
	// its unary and stream interceptors: do not call it from elsewhere unless it is safe for
	// concurrent use.
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
	// Clock gives the now passed to the strategy (as a strategy.Time, 0 at New). Nil means the
	// wall clock. Latencies and the call's deadline are always measured on the real
	// (monotonic) clock; the deadline the strategy sees (strategy.Attempt.Deadline) is the
	// context's, placed on this clock.
	Clock engine.Clock

	// DefaultPriority is the priority of a call that carries none, 0..10 (default 5).
	DefaultPriority int
	// PriorityKey is the outgoing metadata key a priority is read from when the context has
	// none (default DefaultPriorityKey); "" means no metadata is read. It is sent on unchanged.
	PriorityKey string

	// MaxRetries caps the retries of one call whatever the strategy says, >= 0 (default 10; the
	// strategies stop at 3 themselves). 0 means every call is sent once.
	MaxRetries int
	// AttemptTimeout bounds each attempt of a unary call on its own, >= 0 (default 0: only the
	// call's context bounds it). An attempt that runs out of it ends in DEADLINE_EXCEEDED, a
	// Timeout that may be retried. Streams are bounded by their context only.
	AttemptTimeout time.Duration
	// MaxPushback caps the floor a server's grpc-retry-pushback-ms puts on the delay before a
	// retry, >= 0 (default 30s). 0 means pushback is ignored, a negative one included.
	MaxPushback time.Duration
	// RetryAborted makes ABORTED a retryable failure (a ServerError) rather than a final
	// answer (default false: gRPC's status guide leaves the retry of an aborted transaction to
	// the application, at a level that can start it again).
	RetryAborted bool
	// StreamReplay is the most messages a stream keeps to send again on a retry, >= 0 (default
	// 64). A stream is retried only before its first message is received, and only while it
	// has sent no more than this; 0 means a stream is retried only if it failed before
	// sending anything. The messages are kept by reference, as gRPC allows ("it is not safe to
	// modify the message after calling SendMsg").
	StreamReplay int
	// RetriesDisabled declares that the channel was built with grpc.WithDisableRetry()
	// (Interceptor.DialOptions includes it), so CORTEX retries every method. False (the
	// default): a method whose service config has a retryPolicy is retried by gRPC alone, and
	// CORTEX stands aside (it admits each call and records its final outcome, and decides no
	// retry), so the two never multiply each other's attempts.
	RetriesDisabled bool

	// OnAttempt, when set, is called after every attempt (sent, or refused by Admit) with what
	// happened and what was decided, from the goroutine of the call (a stream's: the one that
	// received), before the wait for a retry. It must be safe for concurrent use and quick: it
	// runs on the call's path.
	OnAttempt func(Attempt)
}

// DefaultConfig returns the defaults: a CORTEX strategy on the wall clock, priority 5 or the
// x-cortex-priority metadata, at most 10 retries, no per-attempt timeout, pushback honoured up
// to 30 s, ABORTED not retried, 64 messages kept to replay a stream, gRPC's own retry policy
// left to retry the methods it covers.
func DefaultConfig() Config {
	return Config{
		DefaultPriority: 5,
		PriorityKey:     DefaultPriorityKey,
		MaxRetries:      10,
		MaxPushback:     30 * time.Second,
		StreamReplay:    64,
	}
}

// ConfigFromFile returns DefaultConfig with Engine read from the cortex.toml file at path
// (engineconf.ParseFile: strictly, every problem as "file:line: key: message"), so that a
// service runs the engine configuration `cortex-tui tune` wrote or `cortex-tui engine --toml`
// printed.
func ConfigFromFile(path string) (Config, error) {
	eng, err := engineconf.ParseFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", "cortexgrpc", err)
	}
	c := DefaultConfig()
	c.Engine = &eng
	return c, nil
}

// Validate reports every field out of range, each named, joined in one error (nil if none).
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("cortexgrpc: "+format, args...)) }
	if c.DefaultPriority < engine.MinPriority || c.DefaultPriority > engine.MaxPriority {
		bad("DefaultPriority must be in %d..%d, got %d", engine.MinPriority, engine.MaxPriority, c.DefaultPriority)
	}
	if c.PriorityKey != "" && !validKey(c.PriorityKey) {
		bad("PriorityKey must be a lowercase metadata key (a-z 0-9 - _ .) not starting with \"grpc-\", got %q", c.PriorityKey)
	}
	if c.MaxRetries < 0 {
		bad("MaxRetries must be >= 0, got %d", c.MaxRetries)
	}
	if c.AttemptTimeout < 0 {
		bad("AttemptTimeout must be >= 0, got %v", c.AttemptTimeout)
	}
	if c.MaxPushback < 0 {
		bad("MaxPushback must be >= 0, got %v", c.MaxPushback)
	}
	if c.StreamReplay < 0 {
		bad("StreamReplay must be >= 0, got %d", c.StreamReplay)
	}
	if c.Strategy == nil && c.Engine != nil {
		if err := c.Engine.Validate(); err != nil {
			bad("Engine: %v", err)
		}
	}
	return errors.Join(errs...)
}

// validKey reports whether k is a metadata key gRPC sends as given: lowercase ASCII letters,
// digits, '-', '_' and '.', not reserved ("grpc-"), not binary ("-bin": its value is not text).
func validKey(k string) bool {
	if k == "" || strings.HasPrefix(k, "grpc-") || strings.HasSuffix(k, "-bin") {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
