// Package engine is CORTEX (COordinated Retry Throttling and EXecution): one Composite Pressure
// Score (CPS), computed from five signals, drives every retry decision, so that backoff, circuit
// breaking, retry budgets and priority shedding cooperate instead of contradicting each other.
// It is a plain library: standard library only, no I/O, no global state, time read only from
// the injected Clock, randomness only from the engine's own seeded source.
//
// # Use
//
// Build an Engine with New(DefaultConfig()) (or a modified Config; New validates it and names
// every bad field). After each request call RecordSuccess, RecordFailure (an answer that says
// no: refused, 5xx, 429) or RecordTimeout (no answer in time) with its latency; after a failure
// ask ShouldRetry(priority, attempt, retryable), or Decide with a Failure that also says whether
// it timed out, and follow the Decision; before sending a new request, ask Admit(priority).
// Every method is safe for concurrent use; a single mutex guards the state. Snapshot returns a copy of everything a dashboard shows, and SetQueueDepth,
// SetWeights, SetAdaptive, ForceOpen and Reset are the run-time controls.
//
// Two configurations ship: ArticleConfig, the parameters of the article and of the Java original
// exactly as published, and DefaultConfig, the same model with the mechanisms under the signals
// tuned on the simulator's benchmark (docs/engine.md gives the numbers). The descriptions below
// say where the two differ.
//
// # Signals and score
//
// The sliding window (Config.Window, 60 s) is made of 60 time slices; inside it a short span of
// the last FailureHorizon (5 s by default; the whole window in the article) is kept as well.
// F is the failure rate over the short span or over the window, whichever is higher: it rises
// within seconds of an incident (fast attack) and falls as the window forgets it (slow
// release). L is the latency deviation min(1, max(0, (P99 - ref) / (3 base))), P99 over the
// short span, base the baseline P50 learned only from successes recorded while the circuit is
// CLOSED and F < 0.10 over the short span (the median of the first 20 such successes, then
// moving by 1% per window slice towards the side where most new healthy successes fall), so an
// incident cannot drag the baseline up and hide itself; L is 0 until the baseline is formed.
// ref is base in the article; with LearnTail (the default) it is the healthy P99, learned from
// the same successes (a histogram whose counts decay by 2% per slice; its P99 forms the tail,
// which then moves by 1% per slice), so an ordinary latency spread reads as no pressure. Q is
// the queue depth set by the caller over Config.QueueCapacity. B is the budget burn, 1 -
// tokens/capacity of the retry token bucket. C is the circuit state: 0 CLOSED, 0.5 HALF_OPEN,
// 1 OPEN. CPS = wF*F + wL*L + wQ*Q + wB*B + wC*C with weights normalised to sum 1, so CPS is in
// [0, 1]. Its bands: HEALTHY below 0.25, DEGRADED below 0.50, CRITICAL below
// EmergencyThreshold, EMERGENCY at or above it.
//
// # The five checks of ShouldRetry
//
//  1. Not retryable: NOT_RETRYABLE.
//  2. attempt >= MaxRetryAttempts: MAX_RETRIES_EXCEEDED.
//  3. CPS >= EmergencyThreshold: the circuit is forced OPEN, CIRCUIT_OPEN (reason EMERGENCY).
//     Circuit OPEN: CIRCUIT_OPEN. HALF_OPEN with all HalfOpenProbes probe slots taken:
//     CIRCUIT_OPEN (reason HALF_OPEN_PROBES_BUSY).
//  4. priority < floor(CPS*10): REJECT (SHED_LOW_PRIORITY). During the recovery ramp, outside
//     its share: REJECT (RECOVERY_RAMP). Not enough tokens: REJECT (BUDGET_EXHAUSTED). A
//     rejected retry spends no token.
//  5. RETRY after min(BackoffMaxDelay, Random(0, base * 2^attempt * (1 + 10 CPS))); in
//     deterministic mode the draw is the midpoint of its range.
//
// # Circuit breaker
//
// The breaker trips CLOSED -> OPEN when the failure rate over the last one to two window slices
// (TripFast, the default; the short span in the article) has stayed at or above
// CircuitFailureThreshold for CircuitSustainedDuration (1 s by default, 10 s in the article)
// with at least CircuitMinRequests outcomes in the window; this is checked as outcomes are
// recorded. Unless TripOnTimeouts is set (the article), only answered failures count towards
// the trip: a timeout does not say the service refuses, and F, L and the retry cost already
// weigh it. After CircuitCooldown (5 s; 15 s in the article), or at once when an attempt sent
// after it opened succeeds (ProbeOnSuccess, the default: the service answers again), it goes
// HALF_OPEN, where it admits at most HalfOpenProbes retries in flight (a probe slot not
// answered within CircuitCooldown is released), closes after HalfOpenProbes successes and
// re-opens on any failure. Every transition is kept with its time (Transitions).
//
// # Retry budget
//
// The token bucket holds TokenBucketCapacity tokens. In the article it refills at
// TokenRefillRate per second and gains TokenSuccessBonus per success. With TokenRefillPerSuccess
// (the default, 1) the refill is earned: each success banks that many tokens of credit, paid in
// no faster than TokenRefillRate, and at most one second of refill may be banked; a service that
// answers nothing refills nothing, so the budget cannot feed a storm. A retry costs
// 1 + SlowdownCost*S tokens, and a retry after a timeout 1 + 2*SlowdownCost*S, where the
// slowdown S = min(1, max(0, (recent - base) / (3 base))) compares a moving average of the
// latest successes' latency (each new one weighs 0.2) with the baseline: slow successes mean the
// server queues, so a retry joins the queue and a timed-out attempt is still being worked on; a
// lost packet or a DNS failure does not slow the successes, so its retries stay cheap, and a
// slowness the pacer has found to be the service's own (a slow dependency: successes slow, yet
// no lower under pacing) prices nothing either, S being 0 within it. A retry of priority p may
// spend only while BudgetReserve*(10-p)/10 of the capacity stays in the bucket after it, so the
// last tokens are kept for the highest priorities; a price is capped at what the bucket can
// spend above that reserve, so a full bucket never refuses a retry for budget.
// Capacity 0 disables the budget.
//
// # Admission of new requests
//
// Admit(priority) is asked before a new request is sent. With AdmitOriginals (the default; off
// in the article, where every request goes) the engine sheds new requests while the service
// queues: once per window slice, when even the fastest success of the slice took 2.5 times the
// baseline latency and the short span shows refusals, failures or a CRITICAL score, it admits a
// tenth more than the service completed and sheds the rest, lowest priorities first over the
// recent mix of priorities (the admission floor; at most half of the highest priority present),
// and retries below the admission floor are shed too. It stops as soon as a success comes back
// fast. A shed request gets REJECT, SHED_LOW_PRIORITY; Snapshot counts both answers.
//
// # Retries worth sending
//
// A caller that asks AdmitRequest before it sends a retry (Failure.Hold, Request.Hold) gets,
// with HoldForProbe (the default), the retries of the priorities the floors protect decided
// RETRY even while the circuit is OPEN, and held by AdmitRequest (HELD, ask again after Delay)
// until the circuit probes the service, while HALF_OPEN has no probe slot, and outside the
// recovery ramp's share; a retry decided while OPEN pays its tokens when it is sent. With
// DeadlineAware a retry's delay is cut to what the request's deadline (Failure.Remaining)
// leaves, and a retry with no time left is refused (DEADLINE_EXCEEDED) without spending a token.
//
// # Recovery ramp
//
// When the circuit closes after an outage, the recovery ramp admits a share of retries rising
// linearly from 10% to 100% over RecoveryRamp (10 s; 30 s in the article), highest priorities
// first: a retry of priority p is admitted when p/10 >= 1 - share (9 and 10 at once, 5 half-way,
// 0 at the end). The window's memory also keeps F, and so the CPS, high at first, which sheds
// low priorities.
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
// the independent checks instead: circuit breaker, then token bucket (one token, no priority
// reserve), then plain exponential backoff with full jitter, Random(0, min(BackoffMaxDelay,
// base * 2^attempt)), with Decision.Fallback set. ShouldRetry never panics.
//
// # Fleet
//
// With Config.Fleet.Enabled the engine is one instance of a fleet that shares one view of the
// downstream and one retry budget through a store (fleet.Store), synced in the background by package
// fleet (the engine itself does no I/O): FleetReport says what to publish, FleetApply merges
// the store's answer, FleetLost says the store failed. While the fleet view is fresh (younger
// than Fleet.MaxAge, and no sync failed since) signals F, L and B are the fleet's and retries
// spend tokens leased from the fleet's bucket; otherwise every signal and the budget are the
// engine's own. Q and C are always local. Snapshot.Fleet says which view is in use. Without
// Config.Fleet the engine behaves and costs exactly as before.
//
// # Cost
//
// Recording is O(1) and allocation-free. Each window slice keeps a latency histogram (80
// log-linear bins: 4 per power of two from 65 µs to 69 s, each with its count and latency sum),
// and the engine keeps a running merged histogram of the short span, the only one P99 is read
// from (the whole window keeps counts only): a recorded latency is added to the slice and to the
// merged histogram, and a slice's histogram is subtracted as it leaves the short span. Reading
// P99 therefore never sorts samples nor
// merges histograms; it walks the merged bins down from the highest occupied one until 1% of the
// samples are passed (a few bins) and reports the mean latency of that bin: exact when that
// bin's latencies are equal, within the bin's 25% width otherwise. ShouldRetry, Decide,
// RecordSuccess, RecordFailure, RecordTimeout and Snapshot allocate nothing.
package engine
