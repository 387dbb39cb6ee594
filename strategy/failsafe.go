package strategy

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// FailsafeConfig configures failsafe-go's prioritized adaptive limiter, its budget and its
// retry policy. The defaults are the builders' (adaptivelimiter.NewBuilder, BuildPrioritized,
// budget.NewBuilder, retrypolicy.NewBuilder).
type FailsafeConfig struct {
	MinLimit, MaxLimit, InitialLimit int           // WithLimits (1, 200, 20)
	MaxLimitFactor                   float64       // WithMaxLimitFactor: the limit is at most this x the calls in flight (5)
	RecentMin, RecentMax             time.Duration // WithRecentWindow's durations (1s, 30s)
	RecentSamples                    int           // WithRecentWindow's minimum samples (50)
	RecentQuantile                   float64       // WithRecentQuantile (0.9)
	BaselineWindow                   int           // WithBaselineWindow: the baseline's age (10)
	CorrelationWindow                int           // WithCorrelationWindow (50)
	RejectionFactor, MaxRejection    float64       // BuildPrioritized's queueing: rejections start at 2 x the limit queued, all at 3 x
	Calibration                      time.Duration // how often the prioritizer calibrates its threshold (1s, as Grafana Mimir schedules it)
	LevelWindow                      int           // the level tracker's recent levels (1000)
	BudgetRate                       float64       // budget WithMaxRate (0.2)
	BudgetMin                        int           // budget WithMinConcurrency (3)
	MaxRetries                       int           // retrypolicy's default: 3 attempts, 2 retries, no delay
}

// DefaultFailsafeConfig returns the builders' defaults.
func DefaultFailsafeConfig() FailsafeConfig {
	return FailsafeConfig{MinLimit: 1, MaxLimit: 200, InitialLimit: 20, MaxLimitFactor: 5, RecentMin: time.Second,
		RecentMax: 30 * time.Second, RecentSamples: 50, RecentQuantile: 0.9, BaselineWindow: 10, CorrelationWindow: 50,
		RejectionFactor: 2, MaxRejection: 3, Calibration: time.Second, LevelWindow: 1000, BudgetRate: 0.2, BudgetMin: 3,
		MaxRetries: 2}
}

// Validate reports the first field out of range, naming it.
func (c FailsafeConfig) Validate() error {
	switch {
	case c.MinLimit < 1 || c.MaxLimit < c.MinLimit || c.InitialLimit < c.MinLimit || c.InitialLimit > c.MaxLimit:
		return fmt.Errorf("failsafe: MinLimit (>= 1) <= InitialLimit <= MaxLimit must hold, got %d, %d, %d", c.MinLimit, c.InitialLimit, c.MaxLimit)
	case !(c.MaxLimitFactor >= 1) || math.IsInf(c.MaxLimitFactor, 0):
		return fmt.Errorf("failsafe: MaxLimitFactor must be >= 1 and finite, got %v", c.MaxLimitFactor)
	case c.RecentMin <= 0 || c.RecentMax < c.RecentMin:
		return fmt.Errorf("failsafe: RecentMin must be > 0 and <= RecentMax, got %v and %v", c.RecentMin, c.RecentMax)
	case c.RecentSamples < 1:
		return fmt.Errorf("failsafe: RecentSamples must be >= 1, got %d", c.RecentSamples)
	case !(c.RecentQuantile > 0 && c.RecentQuantile < 1):
		return fmt.Errorf("failsafe: RecentQuantile must be in (0, 1), got %v", c.RecentQuantile)
	case c.BaselineWindow < 1 || c.CorrelationWindow < 2:
		return fmt.Errorf("failsafe: BaselineWindow must be >= 1 and CorrelationWindow >= 2, got %d and %d", c.BaselineWindow, c.CorrelationWindow)
	case !(c.RejectionFactor >= 1 && c.MaxRejection >= c.RejectionFactor) || math.IsInf(c.MaxRejection, 0):
		return fmt.Errorf("failsafe: 1 <= RejectionFactor <= MaxRejection must hold, got %v and %v", c.RejectionFactor, c.MaxRejection)
	case c.Calibration <= 0:
		return fmt.Errorf("failsafe: Calibration must be > 0, got %v", c.Calibration)
	case c.LevelWindow < 1 || c.LevelWindow > math.MaxUint16:
		return fmt.Errorf("failsafe: LevelWindow must be in 1..65535, got %d", c.LevelWindow)
	case !(c.BudgetRate >= 0) || c.BudgetMin < 0:
		return fmt.Errorf("failsafe: BudgetRate and BudgetMin must be >= 0, got %v and %d", c.BudgetRate, c.BudgetMin)
	case c.MaxRetries < 0:
		return fmt.Errorf("failsafe: MaxRetries must be >= 0, got %d", c.MaxRetries)
	}
	return nil
}

// Failsafe is failsafe-go's prioritized adaptive limiter (adaptivelimiter BuildPrioritized)
// wrapped in a retry policy with a budget: failsafe.With(retryPolicy, limiter).
//
// The limit L: every RecentMin..RecentMax (at least 2 x the window's least round trip) and at
// least RecentSamples samples, the window's RecentQuantile round trip, through a 5-sample moving
// median and a 5-sample average (10 to warm up), is compared with its baseline (an average of
// age BaselineWindow): queue = ceil(L (1 - baseline / recent)); with lg = log10Root(L) (1 under
// 100), L falls by lg when queue > 6 lg, or when the limiter is full and throughput does not grow
// with concurrency (their correlation over CorrelationWindow updates below 0; below 0.3 with round
// trips rising with concurrency, correlation above 0.5; or throughput flat, variation under 0.2,
// with round trips rising); it grows by lg when queue < 3 lg; L stays within MaxLimitFactor x the
// calls in flight and MinLimit..MaxLimit.
//
// Admission: a call goes while fewer than L are in flight. Over L it queues (here: held, asked
// again after about its place in the queue x the latest round trip / L; LIMIT_EXCEEDED) unless
// the queue holds MaxRejection x L (refused, LIMIT_EXCEEDED) or its priority level is under the
// prioritizer's threshold (refused, SHED_LOW_PRIORITY). Every Calibration the prioritizer sets
// the threshold from the queue: rejection rate r = (queued - RejectionFactor L) / ((MaxRejection
// - RejectionFactor) L), clamped to [0, 1], and the threshold is the level at the r quantile of
// the last LevelWindow levels that found the limiter full. Levels 0-499 in five bands of 100;
// the scenario's priorities map to the bands by priority / 2 (0-1 VeryLow, 2-3 Low, 4-5 Medium,
// 6-7 High, 8-10 VeryHigh), a call's level drawn uniformly in its band.
//
// Retries: at most MaxRetries, at once (the retry policy's default has no delay), each under the
// budget: refused (BUDGET_EXHAUSTED) when at least BudgetMin retries are in flight and they are
// more than BudgetRate of the executions (requests in progress plus retries in flight). A call
// the limiter refuses ends its request (the retry policy aborts on adaptivelimiter.ErrExceeded).
//
// Differences from the library, where the simulator's contract cannot say more: a queued call
// waits for a released permit there and is asked again after its estimated wait here (a call
// asked again is checked against the threshold again); the recent quantile is exact where the
// library keeps a t-digest; a sample's in-flight count is the limiter's when the call ends.
//
// Source: github.com/failsafe-go/failsafe-go @ 5759a5e6, adaptivelimiter/adaptivelimiter.go,
// queueinglimiter.go, prioritylimiter.go, prioritizer.go, internal/prioritizer.go,
// priority/priority.go (levels, LevelTracker), internal/util (MovingMedian, MovingAverage,
// CorrelationWindow, Log10Func), budget/budget.go, retrypolicy/retry.go and retryexecutor.go.
//
// Not safe for concurrent use.
type Failsafe struct {
	cfg FailsafeConfig
	rnd *rand.Rand

	limit float64
	size  int // the semaphore's size: int(limit)
	used  int // permits in use: calls in flight

	rtts        []float64 // the recent window's round trips, ns
	minRTT      time.Duration
	maxInflight int
	nextUpdate  Time
	started     bool
	median      movingMedian
	smoothed    expAvg
	baseline    expAvg
	thrCorr     correlation
	rttCorr     correlation
	lastRTT     time.Duration

	queue     []Time // when each held call is asked again, a min-heap
	levels    levelTracker
	threshold int
	nextCalib Time

	executions int // requests in progress plus retries in flight
	retries    int // retries in flight (budget permits)
}

func init() {
	register(entry{name: "failsafe", rank: 150,
		describe:  "failsafe-go prioritized adaptive limiter (queues over the limit, sheds low levels) + retry budget (20%), 2 retries",
		footprint: Footprint{Retries: 2, MaxDelay: 0, ClientBytes: 6144, TickNs: 8},
		build:     func(env Env) (Strategy, error) { return NewFailsafe(env.Rand, DefaultFailsafeConfig()) }})
}

var _ Strategy = (*Failsafe)(nil)

// NewFailsafe returns a limiter at its initial limit with empty windows, drawing levels from r.
// It returns an error naming the problem if r is nil or cfg is invalid.
func NewFailsafe(r *rand.Rand, cfg FailsafeConfig) (*Failsafe, error) {
	if r == nil {
		return nil, errNilRand("failsafe")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &Failsafe{cfg: cfg, rnd: r, limit: float64(cfg.InitialLimit), size: cfg.InitialLimit,
		median:   movingMedian{values: make([]float64, 5), sorted: make([]float64, 5)},
		smoothed: expAvg{window: 5, warmup: 10}, baseline: expAvg{window: cfg.BaselineWindow, warmup: 10},
		thrCorr: newCorrelation(cfg.CorrelationWindow), rttCorr: newCorrelation(cfg.CorrelationWindow),
		levels: levelTracker{window: make([]uint16, cfg.LevelWindow)}}
	return f, nil
}

// Name returns "failsafe".
func (*Failsafe) Name() string { return "failsafe" }

// Limit returns the concurrency limit, the calls in flight, those queued at now, and the
// prioritizer's threshold level.
func (f *Failsafe) Limit(now Time) (limit, inflight, queued, threshold int) {
	f.expire(now)
	return f.size, f.used, len(f.queue), f.threshold
}

// level draws a call's level in its priority's band: priority / 2, at most VeryHigh (4).
func (f *Failsafe) level(prio int) int { return 100*min(4, max(0, prio)/2) + f.rnd.IntN(100) }

// Admit admits a call while the limiter has a permit; otherwise it queues it (a hold) unless
// the queue is full or the call's level is under the threshold. See Failsafe.
func (f *Failsafe) Admit(now Time, a Attempt) Admission {
	if now >= f.nextCalib {
		f.calibrate(now)
	}
	if f.used < f.size {
		f.used++
		if a.Retry <= 0 {
			f.executions++ // the request's execution starts
		}
		return Admission{}
	}
	f.expire(now)
	level := f.level(a.Priority)
	switch {
	case len(f.queue) >= int(float64(int(f.limit))*f.cfg.MaxRejection):
		f.refused(a)
		return Refuse(engine.Reject, ReasonLimitExceeded)
	case level < f.threshold:
		f.refused(a)
		return Refuse(engine.Reject, ReasonShed)
	}
	f.levels.record(level)
	wait := max(time.Millisecond, time.Duration(len(f.queue)+1)*f.lastRTT/time.Duration(max(1, f.size)))
	due := now.Add(wait)
	if a.Deadline != 0 && due >= a.Deadline {
		f.refused(a) // the client abandons it when the hold ends at its deadline
	} else {
		heapPush(&f.queue, due)
	}
	return Hold(wait, ReasonLimitExceeded)
}

// refused ends the request of a refused call: a retry gives its budget permit back.
func (f *Failsafe) refused(a Attempt) {
	if a.Retry > 0 {
		f.retries = max(0, f.retries-1)
		f.executions = max(0, f.executions-2) // the permit's, and the request's
	}
}

// calibrate expires the queue's entries due by now and, every Calibration, sets the threshold.
func (f *Failsafe) calibrate(now Time) {
	f.expire(now)
	if now < f.nextCalib {
		return
	}
	f.nextCalib = now.Add(f.cfg.Calibration)
	l := int(f.limit)
	thr, maxQ := int(float64(l)*f.cfg.RejectionFactor), int(float64(l)*f.cfg.MaxRejection)
	q := len(f.queue)
	var rate float64
	switch {
	case q < thr:
	case q >= maxQ:
		rate = 1
	default:
		rate = float64(q-thr) / float64(maxQ-thr)
	}
	f.threshold = 0
	if rate > 0 {
		f.threshold = f.levels.level(rate)
	}
}

// expire drops the queue's entries due by now: those calls have been asked again.
func (f *Failsafe) expire(now Time) {
	for len(f.queue) > 0 && f.queue[0] <= now {
		heapPop(&f.queue)
	}
}

// Record releases the call's permit and records its round trip (not a Canceled one's) in the
// recent window, which updates the limit when it is due; a retry's budget permit is released; a
// success or a Canceled call ends its request.
func (f *Failsafe) Record(now Time, a Attempt, o Outcome, latency time.Duration) {
	inflight := f.used
	f.used = max(0, f.used-1)
	if o != Canceled {
		f.lastRTT = latency
		f.addSample(latency, inflight)
	}
	f.maybeUpdate(now)
	if a.Retry > 0 {
		f.retries = max(0, f.retries-1)
		f.executions = max(0, f.executions-1)
	}
	if o == Success || o == Canceled {
		f.executions = max(0, f.executions-1)
	}
}

// addSample adds a round trip to the recent window.
func (f *Failsafe) addSample(rtt time.Duration, inflight int) {
	if len(f.rtts) == 0 {
		f.minRTT, f.maxInflight = rtt, inflight
	} else {
		f.minRTT, f.maxInflight = min(f.minRTT, rtt), max(f.maxInflight, inflight)
	}
	f.rtts = append(f.rtts, float64(rtt))
}

// maybeUpdate updates the limit once the window is due and holds enough samples.
func (f *Failsafe) maybeUpdate(now Time) {
	if !f.started {
		f.started, f.nextUpdate = true, now
	}
	if now <= f.nextUpdate || len(f.rtts) < f.cfg.RecentSamples {
		return
	}
	smoothed := f.smoothed.add(f.median.add(quantile(f.rtts, f.cfg.RecentQuantile)))
	f.updateLimit(smoothed, f.maxInflight)
	minRTT := f.minRTT
	f.rtts = f.rtts[:0]
	f.nextUpdate = now.Add(min(max(2*minRTT, f.cfg.RecentMin), f.cfg.RecentMax))
}

// updateLimit is adaptiveLimiter.updateLimit on the smoothed recent round trip (ns) and the
// window's largest in-flight count.
func (f *Failsafe) updateLimit(recent float64, inflight int) {
	if recent <= 0 {
		return
	}
	baseline := f.baseline.add(recent)
	queue := int(math.Ceil(f.limit * (1 - baseline/recent)))
	throughput := float64(inflight) / (recent / 1e9)
	thrCorr, thrCV := f.thrCorr.add(float64(inflight), throughput)
	rttCorr, _ := f.rttCorr.add(float64(inflight), recent)
	full := f.used >= f.size
	old := f.limit
	lg := float64(log10Root(int(old)))
	next := old
	switch change(queue, 3*log10Root(int(old)), 6*log10Root(int(old)), full, thrCorr, thrCV, rttCorr) {
	case -1:
		next = old - lg
	case 1:
		next = old + lg
	}
	if ceiling := float64(inflight) * f.cfg.MaxLimitFactor; next > ceiling {
		switch {
		case old > ceiling:
			next = old - lg
		default:
			next = ceiling
		}
	}
	f.limit = max(float64(f.cfg.MinLimit), min(float64(f.cfg.MaxLimit), next))
	f.size = int(f.limit)
}

// change is computeChange: -1 decrease, 1 increase, 0 hold.
func change(queue, alpha, beta int, full bool, thrCorr, thrCV, rttCorr float64) int {
	switch {
	case queue > beta:
		return -1
	case full && thrCorr < 0:
		return -1
	case full && thrCorr < 0.3 && rttCorr > 0.5:
		return -1
	case full && thrCV < 0.2 && rttCorr > 0.5:
		return -1
	case queue < alpha:
		return 1
	}
	return 0
}

// Decide answers NotRetryable, MaxRetriesExceeded after MaxRetries, BUDGET_EXHAUSTED when the
// budget refuses the retry (BudgetMin retries in flight and more than BudgetRate of the
// executions), and otherwise a retry at once, which takes a budget permit. A refusal ends the
// request.
func (f *Failsafe) Decide(_ Time, a Attempt, o Outcome) Verdict {
	retry := clampRetry(a.Retry)
	v, ok := precheck(o, retry, f.cfg.MaxRetries)
	if ok && f.retries >= f.cfg.BudgetMin && float64(f.retries)/float64(max(1, f.executions)) > f.cfg.BudgetRate {
		v, ok = Verdict{Action: engine.Reject, Reason: ReasonBudgetExhausted}, false
	}
	if !ok {
		f.executions = max(0, f.executions-1)
		return v
	}
	f.retries++
	f.executions++
	return retryAfter(0)
}

// SetPending does nothing.
func (*Failsafe) SetPending(int) {}

// quantile is the q quantile of values (not empty), interpolated between neighbours in sorted
// order. It reorders values: it selects the two neighbours (selectNth, then the least of those
// above) instead of sorting them all, which gives the same two values.
func quantile(values []float64, q float64) float64 {
	pos := q * float64(len(values)-1)
	i := int(pos)
	lo := selectNth(values, i)
	if i+1 >= len(values) {
		return lo
	}
	hi := slices.Min(values[i+1:])
	return lo + (pos-float64(i))*(hi-lo)
}

// selectNth reorders xs (no NaN) so that xs[k] is the value sorted order puts there, every
// value before it no greater and every one after it no smaller, and returns it: Hoare's
// quickselect on the median of three, which sorts the range left once it has halved it twice
// the times a balanced split would (so a hostile order costs a sort, not a quadratic time).
func selectNth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for budget := 2 * bits.Len(uint(len(xs))); hi > lo; budget-- {
		if budget == 0 || hi-lo < 12 {
			slices.Sort(xs[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k] // j < k < i: equal to the pivot
		}
	}
	return xs[k]
}
