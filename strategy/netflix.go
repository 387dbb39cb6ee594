package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// This file is Netflix concurrency-limits' limiter, shared by the gradient2 and vegas
// strategies: a limit algorithm (netflixLimit) sets how many calls may be in flight; the
// limiter (SimpleLimiter, or AbstractPartitionedLimiter with partitions) admits a call under
// it, and feeds each call's outcome back as a sample (the gRPC client interceptor's mapping).
// Source: github.com/Netflix/concurrency-limits @ 78a74b98, concurrency-limits-core
// limiter/SimpleLimiter.java, AbstractLimiter.java, AbstractPartitionedLimiter.java,
// limit/WindowedLimit.java, limit/window/ImmutableAverageSampleWindow.java, and
// concurrency-limits-grpc client/ConcurrencyLimitClientInterceptor.java.

// netflixLimit is a limit algorithm: it takes samples and answers the concurrency limit.
type netflixLimit interface {
	// sample is one call's (or one window's) round trip, the calls in flight when it started,
	// and whether it was dropped; it returns the new limit.
	sample(rtt time.Duration, inflight int, dropped bool) int
}

// Partition is a share of a partitioned limiter's limit, guaranteed to the priorities from
// MinPriority up (to the next partition's MinPriority).
type Partition struct {
	Name        string  // e.g. "live", "batch"
	MinPriority int     // the lowest priority in the partition
	Share       float64 // its share of the limit (the partitions' shares sum to at most 1)
}

// NetflixConfig configures the limiter around a Netflix limit.
type NetflixConfig struct {
	// Partitions, highest MinPriority first, make the limiter partitioned; nil: a SimpleLimiter.
	Partitions []Partition
	// Windowed wraps the limit in a WindowedLimit (1 s windows of at least 10 samples, their
	// average round trip; samples under 100 µs ignored).
	Windowed bool
	// Backoff is the retries' (the library has no retry policy; default DefaultBackoffConfig).
	Backoff BackoffConfig
}

// Validate reports the first field out of range, naming it.
func (c NetflixConfig) Validate(name string) error {
	sum := 0.0
	for i, p := range c.Partitions {
		switch {
		case !(p.Share >= 0 && p.Share <= 1):
			return fmt.Errorf("%s: Partitions[%d] (%s).Share must be in [0, 1], got %v", name, i, p.Name, p.Share)
		case i > 0 && p.MinPriority >= c.Partitions[i-1].MinPriority:
			return fmt.Errorf("%s: Partitions[%d] (%s).MinPriority must be below the previous partition's (%d), got %d",
				name, i, p.Name, c.Partitions[i-1].MinPriority, p.MinPriority)
		}
		sum += p.Share
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("%s: the partitions' shares must sum to at most 1, got %v", name, sum)
	}
	if err := c.Backoff.Validate(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// netflix is a strategy made of a Netflix limiter and backoff retries (gradient2, vegas).
type netflix struct {
	name     string
	cfg      NetflixConfig
	rnd      *rand.Rand
	lim      netflixLimit
	limit    int // the limit algorithm's current limit
	inflight int
	busy     []int // calls in flight per partition
	plimit   []int // each partition's limit: max(1, ceil(limit x share))
	win      sampleWindow
	nextWin  Time // when the window's next aggregate goes to the limit
}

// newNetflix builds the limiter around lim, whose initial limit is initial.
func newNetflix(name string, r *rand.Rand, lim netflixLimit, initial int, cfg NetflixConfig) (*netflix, error) {
	if r == nil {
		return nil, errNilRand(name)
	}
	if err := cfg.Validate(name); err != nil {
		return nil, err
	}
	n := &netflix{name: name, cfg: cfg, rnd: r, lim: lim, busy: make([]int, len(cfg.Partitions)),
		plimit: make([]int, len(cfg.Partitions))}
	n.setLimit(initial)
	n.win.reset()
	return n, nil
}

// Limit returns the current concurrency limit.
func (n *netflix) Limit() int { return n.limit }

// Inflight returns the calls in flight.
func (n *netflix) Inflight() int { return n.inflight }

// setLimit sets the limit and the partitions' limits (AbstractPartitionedLimiter.onNewLimit).
func (n *netflix) setLimit(l int) {
	n.limit = l
	for i, p := range n.cfg.Partitions {
		n.plimit[i] = max(1, int(math.Ceil(float64(l)*p.Share)))
	}
}

// partition returns the index of the partition of priority prio, -1 for none (the unknown
// partition, whose limit is 0: it only uses excess capacity).
func (n *netflix) partition(prio int) int {
	for i, p := range n.cfg.Partitions {
		if prio >= p.MinPriority {
			return i
		}
	}
	return -1
}

// Name returns the strategy's catalog name.
func (n *netflix) Name() string { return n.name }

// Admit admits a call (original or retry) under the limit: a SimpleLimiter refuses it when the
// calls in flight reach the limit; a partitioned one then still admits it while its partition is
// under its share (the partition's limit only applies over the global limit, so a partition
// bursts into spare capacity). A refusal is LIMIT_EXCEEDED.
func (n *netflix) Admit(_ Time, a Attempt) Admission {
	if len(n.busy) == 0 {
		if n.inflight >= n.limit {
			return Refuse(engine.Reject, ReasonLimitExceeded)
		}
		n.inflight++
		return Admission{}
	}
	p := n.partition(a.Priority)
	if n.inflight >= n.limit && (p < 0 || n.busy[p] >= n.plimit[p]) {
		return Refuse(engine.Reject, ReasonLimitExceeded)
	}
	if p >= 0 {
		n.busy[p]++
	}
	n.inflight++
	return Admission{}
}

// Record releases the call and feeds its sample to the limit, as the gRPC client interceptor
// maps a call's status: OK (Success) is a sample; UNAVAILABLE (a refused connection or a 503,
// FastFail; a 429, Throttled) a dropped sample; any other status (a timeout, a 5xx, a 4xx) and a
// canceled call no sample. A call's in-flight count is the limiter's as it ends, itself included.
func (n *netflix) Record(now Time, a Attempt, o Outcome, latency time.Duration) {
	inflight := n.inflight
	n.inflight = max(0, n.inflight-1)
	if len(n.busy) > 0 {
		if p := n.partition(a.Priority); p >= 0 {
			n.busy[p] = max(0, n.busy[p]-1)
		}
	}
	switch o {
	case Success:
		n.sample(now, latency, inflight, false)
	case FastFail, Throttled:
		n.sample(now, latency, inflight, true)
	}
}

// sample gives one call's sample to the limit, through the window when the limit is windowed
// (WindowedLimit.onSample: samples under 100 µs are ignored; when a call ends after the window's
// end, the window's average round trip, largest in-flight count and drop go to the limit if it
// holds at least 10 samples, and the next window ends min(max(2 x its least round trip, 1 s),
// 1 s) later).
func (n *netflix) sample(now Time, rtt time.Duration, inflight int, dropped bool) {
	if !n.cfg.Windowed {
		n.setLimit(n.lim.sample(rtt, inflight, dropped))
		return
	}
	if rtt < windowMinRTT {
		return
	}
	n.win.add(rtt, inflight, dropped)
	if now <= n.nextWin {
		return
	}
	w := n.win
	n.win.reset()
	n.nextWin = now.Add(min(max(2*w.minRTT, windowTime), windowTime))
	if w.count >= windowSize && w.minRTT < math.MaxInt64 {
		n.setLimit(n.lim.sample(w.sum/time.Duration(w.count), w.maxInflight, w.dropped))
	}
}

// The WindowedLimit defaults.
const (
	windowTime   = time.Second            // DEFAULT_MIN_WINDOW_TIME = DEFAULT_MAX_WINDOW_TIME
	windowMinRTT = 100 * time.Microsecond // DEFAULT_MIN_RTT_THRESHOLD
	windowSize   = 10                     // DEFAULT_WINDOW_SIZE: samples a window needs
)

// sampleWindow is ImmutableAverageSampleWindow: the samples of one window.
type sampleWindow struct {
	minRTT, sum time.Duration
	maxInflight int
	count       int
	dropped     bool
}

// reset empties the window.
func (w *sampleWindow) reset() { *w = sampleWindow{minRTT: math.MaxInt64} }

// add adds one sample.
func (w *sampleWindow) add(rtt time.Duration, inflight int, dropped bool) {
	w.minRTT = min(w.minRTT, rtt)
	w.sum += rtt
	w.maxInflight = max(w.maxInflight, inflight)
	w.count++
	w.dropped = w.dropped || dropped
}

// Decide answers NotRetryable for a non-retryable outcome, MaxRetriesExceeded once retry >=
// MaxRetries, and otherwise Retry after the full-jitter backoff (the retry goes back through
// the limiter's Admit).
func (n *netflix) Decide(_ Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	if v, ok := precheck(o, retry, n.cfg.Backoff.MaxRetries); !ok {
		return v
	}
	return retryAfter(n.cfg.Backoff.delay(n.rnd, retry))
}

// SetPending does nothing.
func (*netflix) SetPending(int) {}

// log10Root is Log10RootIntFunction: max(1, floor(log10 L)) (1 for L < 100).
func log10Root(l int) int {
	if l < 1000 {
		switch {
		case l >= 100:
			return 2
		default:
			return 1
		}
	}
	return int(math.Log10(float64(l)))
}
