package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// AWSAdaptiveConfig configures the AWS SDKs' adaptive retry mode: the standard retry mode
// (its quota, costs, backoff and attempts) with a client-side rate limiter on every attempt.
type AWSAdaptiveConfig struct {
	// Standard is the standard retry mode adaptive mode runs on (DefaultBudgetConfig: quota
	// 500, cost 5, 10 after a timeout, +1 for a successful original; BudgetConfig2026 for the
	// 2026 costs; NoRetryIncrement 0 for aws-sdk-go-v2 as shipped, see AWSAdaptiveConfigGoV2).
	Standard BudgetConfig
	// Smooth is the weight of the newest measurement of the attempt rate (default 0.8); in (0, 1].
	Smooth float64
	// Beta is the rate kept after a throttle, the CUBIC multiplicative decrease (default 0.7); in (0, 1).
	Beta float64
	// Scale is the CUBIC scale constant C (default 0.4); > 0.
	Scale float64
	// MinFillRate is the lowest fill rate of the token bucket, tokens/s (default 0.5); > 0.
	MinFillRate float64
	// RequestCost is the tokens an attempt takes from the bucket (default 1); > 0.
	RequestCost float64
}

// DefaultAWSAdaptiveConfig returns adaptive mode as botocore and the AWS SDKs and Tools Reference
// Guide describe it: the standard mode's defaults (DefaultBudgetConfig), smoothing 0.8, beta 0.7,
// scale 0.4, a fill rate of at least 0.5 tokens/s, 1 token per attempt.
func DefaultAWSAdaptiveConfig() AWSAdaptiveConfig {
	return AWSAdaptiveConfig{Standard: DefaultBudgetConfig(), Smooth: 0.8, Beta: 0.7, Scale: 0.4, MinFillRate: 0.5, RequestCost: 1}
}

// AWSAdaptiveConfig2026 returns adaptive mode with the retry quota's 2026 costs
// (BudgetConfig2026: 14 a retry, 5 after a throttle, backoff base 50 ms).
func AWSAdaptiveConfig2026() AWSAdaptiveConfig {
	c := DefaultAWSAdaptiveConfig()
	c.Standard = BudgetConfig2026()
	return c
}

// AWSAdaptiveConfigGoV2 returns adaptive mode as aws-sdk-go-v2 ships it (aws/aws-sdk-go-v2#3550,
// open): its AdaptiveMode.GetAttemptToken never takes the standard retryer's attempt token, so
// a successful original never gives its 1 back to the quota (a successful retry still refunds
// its cost). The quota only drains: NoRetryIncrement 0.
func AWSAdaptiveConfigGoV2() AWSAdaptiveConfig {
	c := DefaultAWSAdaptiveConfig()
	c.Standard.NoRetryIncrement = 0
	return c
}

// Validate reports the first field out of range, naming it.
func (c AWSAdaptiveConfig) Validate() error {
	switch {
	case !(c.Smooth > 0 && c.Smooth <= 1):
		return fmt.Errorf("aws-adaptive: Smooth must be in (0, 1], got %v", c.Smooth)
	case !(c.Beta > 0 && c.Beta < 1):
		return fmt.Errorf("aws-adaptive: Beta must be in (0, 1), got %v", c.Beta)
	case !(c.Scale > 0) || math.IsInf(c.Scale, 0):
		return fmt.Errorf("aws-adaptive: Scale must be > 0 and finite, got %v", c.Scale)
	case !(c.MinFillRate > 0) || math.IsInf(c.MinFillRate, 0):
		return fmt.Errorf("aws-adaptive: MinFillRate must be > 0 and finite, got %v", c.MinFillRate)
	case !(c.RequestCost > 0) || math.IsInf(c.RequestCost, 0):
		return fmt.Errorf("aws-adaptive: RequestCost must be > 0 and finite, got %v", c.RequestCost)
	}
	if err := c.Standard.Validate(); err != nil {
		return fmt.Errorf("aws-adaptive: %w", err)
	}
	return nil
}

// AWSAdaptive is the AWS SDKs' adaptive retry mode: the standard mode's retry quota and backoff
// (the budget strategy, for retries) and a client-side CUBIC rate limiter in front of every
// attempt, originals included. The limiter is off until the first throttled answer (429); from
// then on each attempt takes a token from a bucket refilled at the fill rate, and an attempt
// that finds none is held until the bucket will have one ((cost - tokens) / fill rate, at most
// 1 / MinFillRate = 2 s: RATE_LIMITED), then asked again. After every answer the limiter
// measures the client's attempt rate (an exponential average over 0.5 s buckets) and sets the
// fill rate: on a throttle the rate falls to Beta x min(measured, fill rate), the CUBIC window
// K = cbrt(W_max (1 - Beta) / C) restarts; otherwise it grows back along C (t - t_throttle - K)^3
// + W_max; both capped at twice the measured rate, never under MinFillRate.
//
// A throttle is a 429 (the AWS services' ThrottlingException, TooManyRequestsException, ...
// come with it); a timeout, 5xx or fast failure is not. Adaptive mode has no priorities: one
// limiter per client.
//
// Source: aws-sdk-go-v2 aws/retry/adaptive.go (commit 16746453), adaptive_ratelimit.go
// (c213f660, a fork's copy that matches botocore line for line), adaptive_token_bucket.go;
// botocore botocore/retries/adaptive.py, bucket.py, throttling.py; the AWS SDKs and Tools
// Reference Guide, "Retry behavior". The quota: see Budget.
//
// Not safe for concurrent use.
type AWSAdaptive struct {
	cfg   AWSAdaptiveConfig
	quota *Budget
	cubic cubicLimiter
}

func init() {
	register(entry{name: "aws-adaptive", rank: 100,
		describe:  "AWS SDK adaptive mode: a CUBIC rate limiter on every attempt after a 429, on top of the standard retry quota",
		footprint: Footprint{Retries: DefaultMaxRetries, MaxDelay: MaxDelay, ClientBytes: 640, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return newAWSAdaptiveWith(env, DefaultAWSAdaptiveConfig()) }})
}

var _ Strategy = (*AWSAdaptive)(nil)

// NewAWSAdaptive returns adaptive mode with a full quota and its limiter off, drawing its
// backoff jitter from r. It returns an error naming the problem if r is nil or cfg is invalid.
func NewAWSAdaptive(r *rand.Rand, cfg AWSAdaptiveConfig) (*AWSAdaptive, error) {
	return newAWSAdaptiveWith(Env{Rand: r}, cfg)
}

// newAWSAdaptiveWith builds adaptive mode for env: its quota is the fleet's when env.Shared is
// set, as the budget strategy's.
func newAWSAdaptiveWith(env Env, cfg AWSAdaptiveConfig) (*AWSAdaptive, error) {
	if env.Rand == nil {
		return nil, errNilRand("aws-adaptive")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	q, err := newBudgetWith(env, cfg.Standard)
	if err != nil {
		return nil, err
	}
	return &AWSAdaptive{cfg: cfg, quota: q, cubic: cubicLimiter{cfg: &cfg}}, nil
}

// Name returns "aws-adaptive".
func (*AWSAdaptive) Name() string { return "aws-adaptive" }

// Quota returns the retry quota left.
func (s *AWSAdaptive) Quota() int { return s.quota.Quota() }

// FillRate returns the token bucket's fill rate in tokens/s, and whether the bucket is on (after
// the first throttle).
func (s *AWSAdaptive) FillRate() (float64, bool) { return s.cubic.fillRate, s.cubic.enabled }

// Admit admits the attempt when the bucket is off or has a token (it takes it); otherwise it
// holds it until the bucket will have one (RATE_LIMITED).
func (s *AWSAdaptive) Admit(now Time, _ Attempt) Admission {
	if wait, ok := s.cubic.acquire(now); !ok {
		return Hold(wait, ReasonRateLimited)
	}
	return Admission{}
}

// Record updates the limiter with the answer (a throttle or not; a Canceled attempt had none)
// and the quota (a success gives back what the standard mode gives back).
func (s *AWSAdaptive) Record(now Time, a Attempt, o Outcome, latency time.Duration) {
	if o == Canceled {
		return
	}
	s.cubic.update(now, o == Throttled)
	s.quota.Record(now, a, o, latency)
}

// Decide is the standard mode's: the quota pays for the retry or refuses it
// (BUDGET_EXHAUSTED), with its backoff.
func (s *AWSAdaptive) Decide(now Time, a Attempt, o Outcome) Verdict {
	return s.quota.Decide(now, a, o)
}

// SetPending does nothing.
func (*AWSAdaptive) SetPending(int) {}

// cubicLimiter is the SDKs' adaptiveRateLimit with its token bucket, on seconds as float64 (the
// SDKs' own unit). Its clock starts at the first time it sees.
type cubicLimiter struct {
	cfg     *AWSAdaptiveConfig
	started bool
	enabled bool // the bucket limits attempts (after the first throttle)

	fillRate   float64 // tokens/s
	calculated float64 // the CUBIC rate
	measured   float64 // the smoothed attempt rate, per s
	lastBucket float64 // start of the current 0.5 s measurement bucket, s
	count      int64   // answers in the current measurement bucket
	lastMax    float64 // W_max: the rate at the last throttle
	lastThrot  float64 // t of the last throttle, s
	window     float64 // K = cbrt(W_max (1 - beta) / scale), recomputed when W_max changes

	tokens, capacity float64 // the bucket (its minimum capacity is 1)
	refilled         bool
	lastRefill       float64 // s
}

// seconds is now in the limiter's unit.
func seconds(now Time) float64 { return float64(now) / 1e9 }

// start fixes the limiter's clock at its first time: the SDKs start at the client's creation.
func (c *cubicLimiter) start(t float64) {
	if !c.started {
		c.started, c.lastBucket, c.lastThrot = true, math.Floor(t), t
	}
}

// acquire takes a token at now when the bucket is on; ok is false when there is none, with the
// wait until the bucket will have one ((cost - tokens) / fill rate).
func (c *cubicLimiter) acquire(now Time) (wait time.Duration, ok bool) {
	if !c.enabled {
		return 0, true
	}
	t := seconds(now)
	c.start(t)
	c.refill(t)
	cost := c.cfg.RequestCost
	if cost > c.tokens {
		return time.Duration((cost - c.tokens) / c.fillRate * 1e9), false
	}
	c.tokens -= cost
	return 0, true
}

// update is the SDKs' Update after every answer: measure the rate, move the CUBIC rate (down on a
// throttle, along the cubic otherwise), and set the bucket's fill rate and capacity.
func (c *cubicLimiter) update(now Time, throttled bool) {
	t := seconds(now)
	c.start(t)
	c.measure(t)
	cfg := c.cfg
	if throttled {
		rate := c.measured
		if c.enabled {
			rate = min(c.measured, c.fillRate)
		}
		c.lastMax = rate
		c.window = math.Cbrt(c.lastMax * (1 - cfg.Beta) / cfg.Scale)
		c.lastThrot = t
		c.calculated = rate * cfg.Beta
		c.enabled = true
	} else {
		d := t - c.lastThrot - c.window
		c.calculated = cfg.Scale*d*d*d + c.lastMax
	}
	newRate := min(c.calculated, 2*c.measured)
	c.refill(t)
	c.fillRate = max(newRate, cfg.MinFillRate)
	c.capacity = max(newRate, 1)
	c.tokens = min(c.tokens, c.capacity)
}

// measure counts an answer at t and, when a new 0.5 s bucket starts, folds the last ones' rate
// into the smoothed measurement.
func (c *cubicLimiter) measure(t float64) {
	bucket := math.Floor(t*2) / 2
	c.count++
	if bucket > c.lastBucket {
		rate := float64(c.count) / (bucket - c.lastBucket)
		c.measured = rate*c.cfg.Smooth + c.measured*(1-c.cfg.Smooth)
		c.count = 0
		c.lastBucket = bucket
	}
}

// refill adds the tokens earned since the last refill, up to the capacity (the first call only
// starts the refill clock).
func (c *cubicLimiter) refill(t float64) {
	if !c.refilled {
		c.refilled, c.lastRefill = true, t
		return
	}
	c.tokens = min(c.tokens+(t-c.lastRefill)*c.fillRate, c.capacity)
	c.lastRefill = t
}
