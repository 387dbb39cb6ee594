// Package engine is CORTEX (COordinated Retry Throttling and EXecution): one Composite Pressure
// Score (CPS), computed from five signals, drives every retry decision, so that backoff, circuit
// breaking, retry budgets and priority shedding cooperate instead of contradicting each other.
// It is a plain library: standard library only, no I/O, no global state, time read only from
// the injected Clock, randomness only from the engine's own seeded source.
//
// # Use
//
// Build an Engine with New(DefaultConfig()) (or a modified Config; New validates it and names
// every bad field). After each request call RecordSuccess or RecordFailure with its latency;
// after a failure ask ShouldRetry(priority, attempt, retryable) and follow the Decision. Every
// method is safe for concurrent use; a single mutex guards the state. Snapshot returns a copy of
// everything a dashboard shows, and SetQueueDepth, SetWeights, SetAdaptive, ForceOpen and Reset
// are the run-time controls.
//
// # Signals and score
//
// F is the failure rate over a sliding window (Config.Window, 60 s) made of 60 time slices.
// L is the latency deviation min(1, max(0, (P99 - base) / (3 base))): P99 over the same window,
// base the baseline P50 learned only from successes recorded while the circuit is CLOSED and
// F < 0.10 (the median of the first 20 such successes, then moving by 1% per window slice
// towards the side where most new healthy successes fall, if the service is still healthy as
// the slice closes), so an incident cannot drag the
// baseline up and hide itself; L is 0 until the baseline is formed. Q is the queue depth set by
// the caller over Config.QueueCapacity. B is the budget burn, 1 - tokens/capacity of the retry
// token bucket. C is the circuit state: 0 CLOSED, 0.5 HALF_OPEN, 1 OPEN.
// CPS = wF*F + wL*L + wQ*Q + wB*B + wC*C with weights normalised to sum 1, so CPS is in [0, 1].
// Its bands: HEALTHY below 0.25, DEGRADED below 0.50, CRITICAL below EmergencyThreshold,
// EMERGENCY at or above it.
//
// # The five checks of ShouldRetry
//
//  1. Not retryable: NOT_RETRYABLE.
//  2. attempt >= MaxRetryAttempts: MAX_RETRIES_EXCEEDED.
//  3. CPS >= EmergencyThreshold: the circuit is forced OPEN, CIRCUIT_OPEN (reason EMERGENCY).
//     Circuit OPEN: CIRCUIT_OPEN. HALF_OPEN with all HalfOpenProbes probe slots taken:
//     CIRCUIT_OPEN (reason HALF_OPEN_PROBES_BUSY).
//  4. priority < floor(CPS*10): REJECT (SHED_LOW_PRIORITY). During the recovery ramp, outside
//     its share: REJECT (RECOVERY_RAMP). No token left: REJECT (BUDGET_EXHAUSTED). A rejected
//     retry spends no token.
//  5. RETRY after min(BackoffMaxDelay, Random(0, base * 2^attempt * (1 + 10 CPS))); in
//     deterministic mode the draw is the midpoint of its range.
//
// # Circuit breaker, budget and recovery
//
// The breaker trips CLOSED -> OPEN when F >= CircuitFailureThreshold has held for
// CircuitSustainedDuration with at least CircuitMinRequests outcomes in the window; this is
// checked as outcomes are recorded. After CircuitCooldown it goes HALF_OPEN, where it admits at
// most HalfOpenProbes retries in flight (a probe slot not answered within CircuitCooldown is
// released), closes after HalfOpenProbes successes and re-opens on any failure. Every transition
// is kept with its time (Transitions). The token bucket holds TokenBucketCapacity tokens,
// refills at TokenRefillRate per second and gains TokenSuccessBonus per success; capacity 0
// disables it. When the circuit closes after an outage, the recovery ramp admits a share of
// retries rising linearly from 10% to 100% over RecoveryRamp, highest priorities first: a
// retry of priority p is admitted when p/10 >= 1 - share (9 and 10 at once, 5 half-way, 0 at
// the end). The window's memory also keeps CPS high at first, which sheds low priorities.
//
// # Adaptive weights
//
// When enabled, the weights tune themselves once per window slice. A failure spike starts when
// F reaches CircuitFailureThreshold. A signal starts alarming at its alarm level (F 0.10,
// L 0.50, Q 0.50, B 0.50, C 0.50) and stops below half of it (hysteresis, so a signal hovering
// around its level raises one alarm, not many). At the start of a spike, every signal already
// alarming, that is, one that warned ahead of the spike, gains 0.02; a signal whose alarm ends
// without a spike having started during it (a false alarm) loses 0.02. After each change every
// weight is clamped to [0.05, 0.50] and the set renormalised to sum 1 (still within the
// bounds). Snapshot shows the current weights; Reset restores the configured ones (or those
// last given to SetWeights).
//
// # Fallback guarantee
//
// If computing the unified decision panics or yields a non-finite CPS, ShouldRetry answers from
// the independent checks instead: circuit breaker, then token bucket, then plain exponential
// backoff with full jitter, Random(0, min(BackoffMaxDelay, base * 2^attempt)), with
// Decision.Fallback set. ShouldRetry never panics.
//
// # Cost
//
// Recording is O(1) and allocation-free. Each window slice keeps a latency histogram (80
// log-linear bins: 4 per power of two from 65 µs to 69 s, each with its count and latency sum),
// and the engine keeps a running merged histogram: a recorded latency is added to both, and
// when a slice expires its histogram is subtracted from the merged one. Reading P99 therefore
// never sorts samples nor merges 60 histograms; it walks the merged bins down from the highest
// occupied one until 1% of the samples are passed (a few bins) and reports the mean latency of
// that bin: exact when that bin's latencies are equal, within the bin's 25% width otherwise.
// ShouldRetry, RecordSuccess, RecordFailure and Snapshot allocate nothing.
package engine
