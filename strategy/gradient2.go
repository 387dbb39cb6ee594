package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Gradient2Config configures Netflix's Gradient2Limit (the builder's defaults) and the limiter
// around it.
type Gradient2Config struct {
	InitialLimit   int           // initialLimit (default 20); in MinLimit..MaxConcurrency
	MinLimit       int           // minLimit (default 20); >= 1
	MaxConcurrency int           // maxConcurrency (default 200); >= MinLimit
	Smoothing      float64       // smoothing (default 0.2); in (0, 1]
	QueueSize      float64       // queueSize (default 4); >= 0
	LongWindow     int           // longWindow, samples of the long round-trip average (default 600); >= 1
	RTTTolerance   float64       // rttTolerance (default 1.5); >= 1
	Limiter        NetflixConfig // the limiter: partitions, window, retries
}

// DefaultGradient2Config returns Gradient2Limit's defaults behind a WindowedLimit, in a
// partitioned limiter as the library's README partitions traffic: "live" (priority 4 and up)
// with 90% of the limit and "batch" (priorities 0-3) with 10%; retries with the full-jitter
// backoff (100 ms, 20 s, 3 retries).
func DefaultGradient2Config() Gradient2Config {
	return Gradient2Config{InitialLimit: 20, MinLimit: 20, MaxConcurrency: 200, Smoothing: 0.2, QueueSize: 4,
		LongWindow: 600, RTTTolerance: 1.5, Limiter: NetflixConfig{
			Partitions: []Partition{{Name: "live", MinPriority: 4, Share: 0.9}, {Name: "batch", MinPriority: 0, Share: 0.1}},
			Windowed:   true,
			Backoff:    DefaultBackoffConfig(),
		}}
}

// Validate reports the first field out of range, naming it.
func (c Gradient2Config) Validate() error {
	switch {
	case c.MinLimit < 1:
		return fmt.Errorf("gradient2: MinLimit must be >= 1, got %d", c.MinLimit)
	case c.MaxConcurrency < c.MinLimit:
		return fmt.Errorf("gradient2: MaxConcurrency must be >= MinLimit (%d), got %d", c.MinLimit, c.MaxConcurrency)
	case c.InitialLimit < c.MinLimit || c.InitialLimit > c.MaxConcurrency:
		return fmt.Errorf("gradient2: InitialLimit must be in MinLimit..MaxConcurrency (%d..%d), got %d", c.MinLimit, c.MaxConcurrency, c.InitialLimit)
	case !(c.Smoothing > 0 && c.Smoothing <= 1):
		return fmt.Errorf("gradient2: Smoothing must be in (0, 1], got %v", c.Smoothing)
	case !(c.QueueSize >= 0) || math.IsInf(c.QueueSize, 0):
		return fmt.Errorf("gradient2: QueueSize must be >= 0 and finite, got %v", c.QueueSize)
	case c.LongWindow < 1:
		return fmt.Errorf("gradient2: LongWindow must be >= 1, got %d", c.LongWindow)
	case !(c.RTTTolerance >= 1) || math.IsInf(c.RTTTolerance, 0):
		return fmt.Errorf("gradient2: RTTTolerance must be >= 1 and finite, got %v", c.RTTTolerance)
	}
	return c.Limiter.Validate("gradient2")
}

// Gradient2 is Netflix concurrency-limits' Gradient2Limit in a partitioned limiter: a
// concurrency limit L moved by the gradient of the round trip, long against short. Each sample
// (a window's average round trip, by default: see NetflixConfig.Windowed) updates
//
//	long = an exponential average of the samples over LongWindow (a plain mean of the first 10),
//	       cut by 5% whenever it is more than twice the sample (latency back to normal)
//	g    = clamp(RTTTolerance x long / sample, 0.5, 1)
//	L    = clamp((1 - Smoothing) L + Smoothing (L g + QueueSize), MinLimit, MaxConcurrency)
//
// unless fewer than L/2 calls were in flight (the client is not limited by L: it stays). Drops
// are ignored (Netflix/concurrency-limits#176). Every attempt, originals and retries, goes
// through the limiter: over L calls in flight it refuses a call (LIMIT_EXCEEDED) unless its
// partition is under its share of L.
//
// The priorities map to the partitions by their MinPriority: the defaults give the scenarios'
// user-facing classes (priority 4 and up) the "live" partition, 90% of the limit, and their
// background ones (0-3) "batch", 10%, the README's example shares. Retries use the backoff
// strategy's full jitter: the library limits calls and has no retry policy.
//
// Source: github.com/Netflix/concurrency-limits @ 78a74b98, limit/Gradient2Limit.java,
// limit/measurement/ExpAvgMeasurement.java, limit/WindowedLimit.java, README.md (the partitioned
// server limiter with WindowedLimit(Gradient2Limit)); the limiter: see netflix.go.
//
// Not safe for concurrent use.
type Gradient2 struct {
	*netflix
	g *gradient2Limit
}

func init() {
	register(entry{name: "gradient2", rank: 130,
		describe:  "Netflix Gradient2 concurrency limit (long vs short RTT), partitions live p4+ 90% / batch 10%, + backoff",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 640, TickNs: 10},
		build:     func(env Env) (Strategy, error) { return NewGradient2(env.Rand, DefaultGradient2Config()) }})
}

var _ Strategy = (*Gradient2)(nil)

// NewGradient2 returns a Gradient2 limiter at its initial limit, drawing its backoff jitter
// from r. It returns an error naming the problem if r is nil or cfg is invalid.
func NewGradient2(r *rand.Rand, cfg Gradient2Config) (*Gradient2, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &gradient2Limit{cfg: cfg, limit: float64(cfg.InitialLimit), long: expAvg{window: cfg.LongWindow, warmup: 10}}
	n, err := newNetflix("gradient2", r, g, cfg.InitialLimit, cfg.Limiter)
	if err != nil {
		return nil, err
	}
	return &Gradient2{netflix: n, g: g}, nil
}

// gradient2Limit is Gradient2Limit's state: the estimated limit and the long round trip.
type gradient2Limit struct {
	cfg   Gradient2Config
	limit float64
	long  expAvg
}

// sample is Gradient2Limit._update; it returns (int) of the estimated limit.
func (g *gradient2Limit) sample(rtt time.Duration, inflight int, _ bool) int {
	if rtt <= 0 { // the window never passes one; the Java limit would divide by zero
		return int(g.limit)
	}
	short := float64(rtt)
	long := g.long.add(short)
	if long/short > 2 {
		g.long.value *= 0.95
	}
	if float64(inflight) < g.limit/2 {
		return int(g.limit)
	}
	grad := max(0.5, min(1, g.cfg.RTTTolerance*long/short))
	l := g.limit*grad + g.cfg.QueueSize
	l = g.limit*(1-g.cfg.Smoothing) + l*g.cfg.Smoothing
	g.limit = max(float64(g.cfg.MinLimit), min(float64(g.cfg.MaxConcurrency), l))
	return int(g.limit)
}

// expAvg is ExpAvgMeasurement: the mean of the first warmup samples, then an exponential average
// with factor 2 / (window + 1).
type expAvg struct {
	window, warmup int
	count          int
	sum, value     float64
}

// add adds a sample and returns the average.
func (e *expAvg) add(x float64) float64 {
	if e.count < e.warmup {
		e.count++
		e.sum += x
		e.value = e.sum / float64(e.count)
		return e.value
	}
	f := 2 / (float64(e.window) + 1)
	e.value = e.value*(1-f) + x*f
	return e.value
}
