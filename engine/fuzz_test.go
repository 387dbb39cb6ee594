package engine

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// fuzzReader hands out bytes of the fuzz input, then zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzReader) int16() int16 {
	return int16(binary.LittleEndian.Uint16([]byte{r.byte(), r.byte()}))
}

// fuzzOps is the number of calls the fuzz input chooses from (op byte modulo fuzzOps).
const fuzzOps = 13

// FuzzEngine drives an engine with a random sequence of calls (the corpus is in
// testdata/fuzz/FuzzEngine) and asserts that nothing panics, CPS and every signal stay within
// [0,1], every delay within [0, BackoffMaxDelay] and only on retries, priorities within 0..10,
// the unified decision never falls back (no hook is set), a retry spends exactly its cost
// (1 + SlowdownCost*S, twice the extra after a timeout) and any other answer nothing, F is the
// higher of the short and long spans' failure rates, both spans' running totals and merged
// histograms match their slices (the short one inside the long one), the weights stay
// normalised (within the adaptive bounds when adaptive weights are on), and tokens, banked
// refill credit, slowdown and recovery share stay within their ranges.
//
// Input: a flags byte, a second flags byte (the mechanisms of the tuned engine), then calls: an
// op byte (modulo fuzzOps) and its arguments.
func FuzzEngine(f *testing.F) {
	// The first two are the seeds written for the article's engine, on ArticleConfig (flags2 1).
	f.Add([]byte{0, 1, 1, 40, 0, 3, 9, 0, 1})
	f.Add([]byte{7, 1, 2, 200, 200, 2, 200, 200, 0, 255, 3, 1, 0, 1, 0, 255, 3, 10, 0, 1})
	// DefaultConfig: a 40 ms success, a 5 s timeout, Decide after a timeout (priority 9),
	// DecideTo of a non-retryable timeout (priority 5, attempt 1).
	f.Add([]byte{0, 0, 1, 40, 0, 10, 0x88, 0x13, 11, 9, 0, 2, 12, 5, 1, 3})
	f.Fuzz(fuzzEngine)
}

// fuzzConfig builds the engine's config from the two flag bytes.
func fuzzConfig(flags, flags2 byte) Config {
	cfg := DefaultConfig()
	if flags2&1 != 0 {
		cfg = ArticleConfig()
	}
	cfg.Seed = 1
	cfg.Deterministic = flags&1 != 0
	cfg.AdaptiveWeights = flags&2 != 0
	if flags&4 != 0 { // a small, fast-moving configuration
		cfg.Window = 5 * time.Second
		cfg.FailureHorizon = min(cfg.FailureHorizon, time.Second)
		cfg.TokenBucketCapacity = int(flags>>4) % 4
		cfg.HalfOpenProbes = int(flags>>6) % 3
		cfg.CircuitMinRequests = 0
		cfg.CircuitSustainedDuration = 0
		cfg.CircuitCooldown = time.Second
		cfg.RecoveryRamp = 2 * time.Second
		cfg.BackoffMaxDelay = time.Second
	}
	if flags&8 != 0 {
		cfg.BaselineLatency = 20 * time.Millisecond
	}
	if flags2&2 != 0 {
		cfg.TripOnTimeouts = !cfg.TripOnTimeouts
	}
	if flags2&4 != 0 {
		cfg.LearnTail = !cfg.LearnTail
	}
	cfg.BudgetReserve = [4]float64{cfg.BudgetReserve, 0, 0.5, 1}[flags2>>3&3]
	cfg.TokenRefillPerSuccess = [4]float64{cfg.TokenRefillPerSuccess, 0, 0.25, 3}[flags2>>5&3]
	if flags2&128 != 0 {
		cfg.SlowdownCost = 500
	}
	return cfg
}

func fuzzEngine(t *testing.T, data []byte) {
	r := &fuzzReader{b: data}
	clock := NewManualClock(epoch)
	cfg := fuzzConfig(r.byte(), r.byte())
	cfg.Clock = clock
	e, err := New(cfg)
	if err != nil {
		t.Fatalf("a valid config was refused: %v", err)
	}

	check := func(what string, s Signals, cps float64) {
		for i, v := range [5]float64{s.F, s.L, s.Q, s.B, s.C} {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s: signal %d = %v out of [0,1]", what, i, v)
			}
		}
		if !(cps >= 0 && cps <= 1) {
			t.Fatalf("%s: CPS %v out of [0,1]", what, cps)
		}
	}
	decided := func(d Decision, f Failure, tokensBefore, cost float64) {
		if d.Priority < MinPriority || d.Priority > MaxPriority {
			t.Fatalf("priority %d out of 0..10", d.Priority)
		}
		if d.Delay < 0 || d.Delay > cfg.BackoffMaxDelay {
			t.Fatalf("delay %v out of [0, %v]", d.Delay, cfg.BackoffMaxDelay)
		}
		if d.Action != Retry && d.Delay != 0 {
			t.Fatalf("%v has a delay", d)
		}
		if d.Reason == "" {
			t.Fatalf("%v has no reason", d)
		}
		if d.Floor < 0 || d.Floor > MaxPriority {
			t.Fatalf("floor %d out of 0..10", d.Floor)
		}
		if d.Fallback {
			t.Fatalf("%v %s fell back with no failing hook: the unified decision panicked or its CPS is not finite", d, d.Reason)
		}
		check("decision", d.Signals, d.CPS)
		spent := tokensBefore - e.tb.tokens
		switch {
		case cfg.TokenBucketCapacity == 0:
		case d.Action == Retry:
			if math.Abs(spent-cost) > 1e-9*max(1, cost) {
				t.Fatalf("%v after %+v spent %v tokens, its cost is %v", d, f, spent, cost)
			}
		case spent != 0:
			t.Fatalf("%v %s after %+v spent %v tokens", d, d.Reason, f, spent)
		}
	}
	for n := 0; len(r.b) > 0; n++ {
		before := e.Snapshot()
		op := r.byte() % fuzzOps
		switch op {
		case 0:
			n := time.Duration(r.byte())
			clock.Advance(n * n * time.Millisecond)
		case 1:
			e.RecordSuccess(time.Duration(r.int16()) * time.Millisecond)
		case 2:
			e.RecordFailure(time.Duration(r.int16()) * time.Millisecond)
		case 3:
			p, a, ok := int(int8(r.byte())), int(int8(r.byte())), r.byte()&1 == 0
			f := Failure{Priority: p, Attempt: a, NotRetryable: !ok}
			cost := e.retryCost(false)
			decided(e.ShouldRetry(p, a, ok), f, before.Tokens, cost)
		case 4:
			e.SetQueueDepth(int(r.int16()))
		case 5:
			w := Weights{F: float64(r.byte()), L: float64(r.byte()), Q: float64(r.byte()), B: float64(r.byte()), C: float64(r.byte())}
			err := e.SetWeights(w)
			if (err == nil) != (w.sum() > 0) {
				t.Fatalf("SetWeights(%v) = %v", w, err)
			}
		case 6:
			e.SetAdaptive(r.byte()&1 == 1)
		case 7:
			e.ForceOpen()
		case 8:
			if r.byte() == 0 {
				e.Reset()
			}
		case 9:
			_ = e.Transitions()
		case 10:
			e.RecordTimeout(time.Duration(r.int16()) * time.Millisecond)
		case 11, 12:
			p, a, fl := int(int8(r.byte())), int(int8(r.byte())), r.byte()
			f := Failure{Priority: p, Attempt: a, NotRetryable: fl&1 != 0, Timeout: fl&2 != 0}
			cost := e.retryCost(f.Timeout)
			var d Decision
			if op == 11 {
				d = e.Decide(f)
			} else {
				d = Decision{Action: Retry, Delay: time.Hour, Reason: "stale", Fallback: true, CPS: 9}
				e.DecideTo(&d, f)
			}
			decided(d, f, before.Tokens, cost)
		}
		s := e.Snapshot()
		check("snapshot", s.Signals, s.CPS)
		long, short := &e.win.long, &e.win.short
		if op == 0 || op == 8 || len(r.b) == 0 {
			// Slices expire only when the clock moves (or on Reset): then sum them all.
			requireSpansConsistent(t, &e.win, "after call %d", n)
		} else if short.merged.countAll() != short.outcomes() {
			t.Fatalf("the short span's merged histogram holds %d outcomes, it counts %d",
				short.merged.countAll(), short.outcomes())
		}
		if full := short.merged.quantile(0.99, short.outcomes()); full != s.P99 {
			t.Fatalf("P99 from the top bin %v != full scan of the short span %v", s.P99, full)
		}
		if uint64(s.Outcomes) != long.outcomes() || uint64(s.Failures) != long.failures {
			t.Fatalf("snapshot reports %d outcomes, %d failures; the window holds %d, %d", s.Outcomes, s.Failures, long.outcomes(), long.failures)
		}
		if short.outcomes() > long.outcomes() || short.failures > long.failures || short.timeouts > short.failures {
			t.Fatalf("short span %+v is not inside the long span %+v", *short, *long)
		}
		if want := max(short.failureRate(), long.failureRate()); s.Signals.F != want {
			t.Fatalf("F = %v, want max(short %v, long %v)", s.Signals.F, short.failureRate(), long.failureRate())
		}
		if math.Abs(s.Weights.sum()-1) > 1e-9 {
			t.Fatalf("weights %v do not sum to 1", s.Weights)
		}
		if s.Adaptive {
			for _, v := range s.Weights.Array() {
				if v < AdaptiveMinWeight-1e-9 || v > AdaptiveMaxWeight+1e-9 {
					t.Fatalf("adaptive weights %v out of bounds", s.Weights)
				}
			}
		}
		if s.Tokens < 0 || s.Tokens > float64(s.TokenCapacity) {
			t.Fatalf("tokens %v out of [0, %d]", s.Tokens, s.TokenCapacity)
		}
		if e.tb.earned < 0 || e.tb.earned > e.tb.earnedCap {
			t.Fatalf("banked refill credit %v out of [0, %v]", e.tb.earned, e.tb.earnedCap)
		}
		if sd := e.slowdown(); !(sd >= 0 && sd <= 1) {
			t.Fatalf("slowdown %v out of [0,1]", sd)
		}
		if e.bl.tail < 0 || (!cfg.LearnTail && e.bl.tail != 0) {
			t.Fatalf("learned tail %v (LearnTail %v)", e.bl.tail, cfg.LearnTail)
		}
		if s.RecoveryShare < rampStartShare || s.RecoveryShare > 1 {
			t.Fatalf("recovery share %v", s.RecoveryShare)
		}
	}
}
