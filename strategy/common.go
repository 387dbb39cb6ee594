package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// DefaultMaxRetries is the number of retries every baseline allows after the original attempt
// (4 attempts in all), as in the article and the spec. A verdict for retry index r >= 3 is
// MaxRetriesExceeded.
const DefaultMaxRetries = 3

// The reasons the baselines give, in the engine's vocabulary where the engine has the same
// reason (so metrics group them across strategies). Retry verdicts carry "RETRY"; the cortex
// strategy passes the engine's own reasons through (SHED_LOW_PRIORITY, EMERGENCY, ...).
const (
	ReasonRetry             = engine.ReasonRetry              // "RETRY"
	ReasonNotRetryable      = engine.ReasonNotRetryable       // "NOT_RETRYABLE": a 4xx other than 429
	ReasonMaxRetries        = engine.ReasonMaxRetries         // "MAX_RETRIES_EXCEEDED"
	ReasonCircuitOpen       = engine.ReasonCircuitOpen        // "CIRCUIT_OPEN": breaker open
	ReasonHalfOpenProbeBusy = engine.ReasonHalfOpenProbesBusy // "HALF_OPEN_PROBES_BUSY": breaker's probe out
	ReasonBudgetExhausted   = engine.ReasonBudgetExhausted    // "BUDGET_EXHAUSTED": budget's quota cannot pay
	ReasonNoRetries         = "NO_RETRIES"                    // none: never retries
	ReasonRetryThrottled    = "RETRY_THROTTLED"               // grpc: tokens <= maxTokens/2
)

// The reasons of local refusals and holds (Admission), beside CIRCUIT_OPEN and
// HALF_OPEN_PROBES_BUSY (an open breaker) and SHED_LOW_PRIORITY (a priority shed).
const (
	ReasonShed             = engine.ReasonShedLowPriority // "SHED_LOW_PRIORITY": the request's priority is shed
	ReasonLimitExceeded    = "LIMIT_EXCEEDED"             // a concurrency limiter is at its limit
	ReasonAdaptiveThrottle = "ADAPTIVE_THROTTLE"          // throttle: refused with the adaptive throttling probability
	ReasonRateLimited      = "RATE_LIMITED"               // held: a client-side rate limiter has no token yet
)

// notRetryable is the verdict every strategy gives for an outcome that may not be retried
// (a 4xx other than 429).
func notRetryable() Verdict {
	return Verdict{Action: engine.NotRetryable, Reason: ReasonNotRetryable}
}

// maxRetriesExceeded is the verdict once the retry limit is reached.
func maxRetriesExceeded() Verdict {
	return Verdict{Action: engine.MaxRetriesExceeded, Reason: ReasonMaxRetries}
}

// retryAfter is a Retry verdict with the given delay.
func retryAfter(d time.Duration) Verdict {
	return Verdict{Retry: true, Delay: d, Action: engine.Retry, Reason: ReasonRetry}
}

// precheck answers the two checks every strategy makes first, in the engine's order: a
// non-retryable outcome, then the retry limit. ok is false when one of them decided.
func precheck(o Outcome, retry, maxRetries int) (v Verdict, ok bool) {
	if !o.Retryable() {
		return notRetryable(), false
	}
	if retry >= maxRetries {
		return maxRetriesExceeded(), false
	}
	return Verdict{}, true
}

// clampRetry turns a negative retry index into 0 (the original attempt).
func clampRetry(retry int) int { return max(retry, 0) }

// fullJitter is AWS's "full jitter" backoff: U[0, min(ceiling, base*mult^n)), drawn from r
// (mult is 2 for AWS; gRPC's backoffMultiplier is configurable). n < 0 counts as 0; the
// exponent is computed in floating point so a large n saturates at ceiling instead of
// overflowing.
func fullJitter(r *rand.Rand, base, ceiling time.Duration, mult float64, n int) time.Duration {
	return time.Duration(r.Float64() * float64(expCeiling(base, ceiling, mult, n)))
}

// expCeiling is min(ceiling, base*mult^n) without overflow (n < 0 counts as 0).
func expCeiling(base, ceiling time.Duration, mult float64, n int) time.Duration {
	v := float64(base) * pow(mult, max(n, 0))
	if v >= float64(ceiling) || math.IsNaN(v) {
		return ceiling
	}
	return time.Duration(v)
}

// pow is math.Pow(x, n) for n >= 0. For x = 2 (every backoff but a configured gRPC multiplier)
// and n < 64 it is the power of two itself, exactly what math.Pow returns (TestPowOfTwo), without
// math.Pow's general path: about 7 ns saved on every retry decision of the simulator.
func pow(x float64, n int) float64 {
	if x == 2 && n >= 0 && n < 64 {
		return float64(uint64(1) << n)
	}
	return math.Pow(x, float64(n))
}

// rolling counts two quantities over a sliding window made of fixed-width time buckets (the
// shape Hystrix uses): the window covers the current bucket and the n-1 before it. Adding and
// reading are O(1) amortised: a running total is kept and expired buckets are subtracted as
// time moves on. A time earlier than the newest bucket is counted in the newest bucket.
// Buckets are numbered from the first time the window sees, so a clock that starts anywhere
// works.
type rolling struct {
	width   int64 // ns
	buckets [][2]int64
	origin  Time  // the first time seen: start of bucket 0
	head    int64 // number of the newest bucket: (time - origin) / width
	hslot   int   // slot(head)
	next    Time  // start of bucket head+1: a time before it is in the newest bucket (the smallest Time before the first)
	started bool
	total   [2]int64
}

// newRolling returns a window of n buckets of the given width.
func newRolling(n int, width time.Duration) *rolling {
	return &rolling{width: int64(width), buckets: make([][2]int64, n), next: math.MinInt64}
}

// advance moves the window so that its newest bucket holds now. Its fast path (now before
// the start of the next bucket, the common case) is one comparison of integers, which the
// hot callers (add, Throttle.Admit) write out inline as "if now >= next { roll }".
func (w *rolling) advance(now Time) {
	if now >= w.next {
		w.roll(now)
	}
}

// roll is advance past its inline test.
func (w *rolling) roll(now Time) {
	if !w.started {
		w.started, w.origin = true, now
		w.setHead(0)
		return
	}
	if now < w.next {
		return
	}
	idx := floorDiv(int64(now-w.origin), w.width)
	if idx <= w.head {
		return
	}
	n := int64(len(w.buckets))
	if idx-w.head >= n {
		clear(w.buckets)
		w.total = [2]int64{}
	} else {
		for i := w.head + 1; i <= idx; i++ {
			b := &w.buckets[w.slot(i)]
			w.total[0] -= b[0]
			w.total[1] -= b[1]
			*b = [2]int64{}
		}
	}
	w.setHead(idx)
}

// setHead makes bucket i the newest and caches its slot and the start of the bucket after it
// (the largest Time when that does not fit).
func (w *rolling) setHead(i int64) {
	w.head, w.hslot = i, w.slot(i)
	w.next = Time(math.MaxInt64)
	if i < math.MaxInt64/w.width-1 {
		if d := Time((i + 1) * w.width); w.origin <= Time(math.MaxInt64)-d {
			w.next = w.origin + d
		}
	}
}

// add counts a and b at time now.
func (w *rolling) add(now Time, a, b int64) {
	if now >= w.next { // advance, inlined
		w.roll(now)
	}
	w.bump(a, b)
}

// bump counts a and b in the newest bucket. It is add for a caller that has just moved the
// window to now (with advance or sums): it saves add's second time comparison.
func (w *rolling) bump(a, b int64) {
	bk := &w.buckets[w.hslot]
	bk[0] += a
	bk[1] += b
	w.total[0] += a
	w.total[1] += b
}

// slot is the index in buckets of absolute bucket number i.
func (w *rolling) slot(i int64) int {
	n := int64(len(w.buckets))
	return int(((i % n) + n) % n)
}

// sums returns the two totals over the window ending at now.
func (w *rolling) sums(now Time) (a, b int64) {
	w.advance(now)
	return w.total[0], w.total[1]
}

// totals returns the two totals over the window as of its last move (add, advance or sums):
// sums without a time comparison, for a caller that has just moved the window to now.
func (w *rolling) totals() (a, b int64) { return w.total[0], w.total[1] }

// reset empties the window.
func (w *rolling) reset() {
	clear(w.buckets)
	w.total = [2]int64{}
	w.started = false
	w.next = math.MinInt64
}

// floorDiv is a/b rounded toward negative infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// errNilRand is the error of a constructor given a nil random source.
func errNilRand(name string) error {
	return fmt.Errorf("%s: the random source is nil (a seeded *rand.Rand is required)", name)
}
