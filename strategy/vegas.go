package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// VegasConfig configures Netflix's VegasLimit (the builder's defaults) and the limiter around it.
type VegasConfig struct {
	InitialLimit    int           // initialLimit (default 20); in 1..MaxConcurrency
	MaxConcurrency  int           // maxConcurrency (default 1000); >= 1
	Smoothing       float64       // smoothing (default 1); in (0, 1]
	ProbeMultiplier int           // probeMultiplier (default 30); >= 1
	Limiter         NetflixConfig // the limiter: no partitions and no window by default, retries
}

// DefaultVegasConfig returns VegasLimit's defaults in a SimpleLimiter, the library's default
// limiter (AbstractLimiter.Builder's limit is VegasLimit.newDefault()); retries with the
// full-jitter backoff (100 ms, 20 s, 3 retries).
func DefaultVegasConfig() VegasConfig {
	return VegasConfig{InitialLimit: 20, MaxConcurrency: 1000, Smoothing: 1, ProbeMultiplier: 30,
		Limiter: NetflixConfig{Backoff: DefaultBackoffConfig()}}
}

// Validate reports the first field out of range, naming it.
func (c VegasConfig) Validate() error {
	switch {
	case c.MaxConcurrency < 1:
		return fmt.Errorf("vegas: MaxConcurrency must be >= 1, got %d", c.MaxConcurrency)
	case c.InitialLimit < 1 || c.InitialLimit > c.MaxConcurrency:
		return fmt.Errorf("vegas: InitialLimit must be in 1..MaxConcurrency (%d), got %d", c.MaxConcurrency, c.InitialLimit)
	case !(c.Smoothing > 0 && c.Smoothing <= 1):
		return fmt.Errorf("vegas: Smoothing must be in (0, 1], got %v", c.Smoothing)
	case c.ProbeMultiplier < 1:
		return fmt.Errorf("vegas: ProbeMultiplier must be >= 1, got %d", c.ProbeMultiplier)
	}
	return c.Limiter.Validate("vegas")
}

// Vegas is Netflix concurrency-limits' VegasLimit, the library's default limit, in a
// SimpleLimiter: TCP Vegas's queue estimate on a concurrency limit L. With lg(L) = max(1,
// floor(log10 L)) (1 below 100), alpha = 3 lg(L), beta = 6 lg(L), each sample (one call's round
// trip) does, first match wins:
//
//	every U(0.5, 1) x ProbeMultiplier x L samples: rtt_noload = rtt (probe), no change
//	rtt_noload unset or rtt below it:               rtt_noload = rtt, no change
//	queue = ceil(L (1 - rtt_noload / rtt))
//	dropped (a refused connection, a 503, a 429):  L - lg(L)
//	fewer than L/2 calls in flight:                 no change
//	queue <= lg(L):                                 L + beta
//	queue < alpha:                                  L + lg(L)
//	queue > beta:                                   L - lg(L)
//	otherwise                                       no change
//
// then L = (1 - Smoothing) L + Smoothing clamp(new, 1, MaxConcurrency). Every attempt, originals
// and retries, goes through the limiter, which refuses a call over L in flight (LIMIT_EXCEEDED).
// Vegas has no priorities (a SimpleLimiter has no partitions). Retries use the backoff strategy's
// full jitter.
//
// Source: github.com/Netflix/concurrency-limits @ 78a74b98, limit/VegasLimit.java,
// limit/functions/Log10RootIntFunction.java; the limiter: see netflix.go.
//
// Not safe for concurrent use.
type Vegas struct {
	*netflix
	v *vegasLimit
}

func init() {
	register(entry{name: "vegas", rank: 140,
		describe:  "Netflix Vegas concurrency limit (queue = L(1 - minRTT/RTT)), the library's default limiter, + backoff",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 512, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return NewVegas(env.Rand, DefaultVegasConfig()) }})
}

var _ Strategy = (*Vegas)(nil)

// NewVegas returns a Vegas limiter at its initial limit, drawing its probe jitter and backoff
// from r. It returns an error naming the problem if r is nil or cfg is invalid.
func NewVegas(r *rand.Rand, cfg VegasConfig) (*Vegas, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errNilRand("vegas")
	}
	v := &vegasLimit{cfg: cfg, rnd: r, limit: float64(cfg.InitialLimit)}
	v.resetProbe()
	n, err := newNetflix("vegas", r, v, cfg.InitialLimit, cfg.Limiter)
	if err != nil {
		return nil, err
	}
	return &Vegas{netflix: n, v: v}, nil
}

// vegasLimit is VegasLimit's state.
type vegasLimit struct {
	cfg        VegasConfig
	rnd        *rand.Rand
	limit      float64
	noLoad     time.Duration // rtt_noload, 0 until the first sample
	probeCount int
	probeJit   float64 // U(0.5, 1)
}

// resetProbe draws the next probe's jitter (ThreadLocalRandom.nextDouble(0.5, 1)).
func (v *vegasLimit) resetProbe() { v.probeJit = 0.5 + 0.5*v.rnd.Float64() }

// sample is VegasLimit._update; it returns (int) of the estimated limit.
func (v *vegasLimit) sample(rtt time.Duration, inflight int, dropped bool) int {
	if rtt <= 0 { // the Java limit throws: no sample
		return int(v.limit)
	}
	v.probeCount++
	if v.probeJit*float64(v.cfg.ProbeMultiplier)*v.limit <= float64(v.probeCount) {
		v.resetProbe()
		v.probeCount = 0
		v.noLoad = rtt
		return int(v.limit)
	}
	if v.noLoad == 0 || rtt < v.noLoad {
		v.noLoad = rtt
		return int(v.limit)
	}
	l := v.limit
	queue := int(math.Ceil(l * (1 - float64(v.noLoad)/float64(rtt))))
	lg := log10Root(int(l))
	var next float64
	switch {
	case dropped:
		next = l - float64(lg)
	case float64(inflight)*2 < l:
		return int(l)
	case queue <= lg:
		next = l + float64(6*lg)
	case queue < 3*lg:
		next = l + float64(lg)
	case queue > 6*lg:
		next = l - float64(lg)
	default:
		return int(l)
	}
	next = max(1, min(float64(v.cfg.MaxConcurrency), next))
	v.limit = (1-v.cfg.Smoothing)*l + v.cfg.Smoothing*next
	return int(v.limit)
}
