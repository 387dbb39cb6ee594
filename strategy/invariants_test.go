package strategy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
)

// allOutcomes lists every outcome, Success and Canceled included.
var allOutcomes = []Outcome{Success, Timeout, FastFail, ServerError, Throttled, BadRequest, Canceled}

// checkVerdict reports what is wrong with a verdict for a failed attempt with outcome o and
// retry index retry, or "" if nothing is. The strategy's registered footprint bounds its
// retries and delays (the cost model relies on both); MaxDelay bounds every strategy's.
func checkVerdict(v Verdict, o Outcome, retry int, fp Footprint) string {
	switch {
	case v.Retry != (v.Action == engine.Retry):
		return "Retry and Action disagree"
	case v.Reason == "":
		return "empty reason"
	case v.Delay < 0 || v.Delay > min(fp.MaxDelay, MaxDelay):
		return "delay out of range"
	case !v.Retry && v.Delay != 0:
		return "a refusal carries a delay"
	case !o.Retryable() && v.Action != engine.NotRetryable:
		return "a non-retryable outcome was not answered NotRetryable"
	case v.Retry && retry >= fp.Retries:
		return "retry beyond the limit"
	case o.Retryable() && retry >= fp.Retries && v.Action != engine.MaxRetriesExceeded && v.Reason != ReasonNoRetries:
		return "the limit is not answered MAX_RETRIES_EXCEEDED"
	}
	return ""
}

// drive runs a strategy through steps derived from ops (one byte per step: time step, outcome,
// retry index and priority) as a client would call it: Admit, and only for an admitted attempt
// one Record, then Decide for a failure. It returns the first broken invariant, or "".
func drive(s Strategy, clk *engine.ManualClock, ops []byte) string {
	fp, ok := FootprintOf(s.Name())
	if !ok {
		return "no footprint registered"
	}
	for i, op := range ops {
		// Time moves 0..3 s, sometimes backwards a little (a clock may be set back).
		step := time.Duration(op&7) * 400 * time.Millisecond
		if op&0x38 == 0x38 {
			step = -step
		}
		clk.Advance(step)
		now := at(clk)
		o := allOutcomes[int(op)%len(allOutcomes)]
		a := Attempt{Priority: int(op) % 12, Retry: int(op>>6) + (i & 1)} // retry 0..4
		if op&0x30 == 0x10 {
			a.Deadline = now.Add(time.Duration(op) * 100 * time.Millisecond)
		}
		s.SetPending(int(op))
		adm := s.Admit(now, a)
		if msg := checkAdmission(adm); msg != "" {
			return msg
		}
		if !adm.Admitted() {
			continue
		}
		s.Record(now, a, o, time.Duration(op)*time.Millisecond)
		if msg := checkState(s); msg != "" {
			return msg
		}
		if !o.Retryable() && o != BadRequest {
			continue
		}
		if msg := checkVerdict(s.Decide(now, a, o), o, a.Retry, fp); msg != "" {
			return msg
		}
		if msg := checkState(s); msg != "" {
			return msg
		}
	}
	return ""
}

// checkAdmission reports what is wrong with an Admission, or "": a refusal is Reject or
// CircuitOpen with a reason and no wait; a hold has a reason and a wait of at most MaxDelay.
func checkAdmission(a Admission) string {
	switch {
	case a.Refused() && a.Action != engine.Reject && a.Action != engine.CircuitOpen:
		return "a refusal that is neither Reject nor CircuitOpen"
	case a.Refused() && (a.Reason == "" || a.Wait != 0):
		return "a refusal without a reason, or with a wait"
	case a.Held() && (a.Reason == "" || a.Wait > MaxDelay):
		return "a hold without a reason, or longer than MaxDelay"
	case a.Admitted() && (a.Reason != "" || a.Wait != 0):
		return "an admission with a reason or a negative wait"
	}
	return ""
}

// checkState reports a strategy's internal quantity out of its range, or "".
func checkState(s Strategy) string {
	switch x := s.(type) {
	case *Budget:
		if x.Quota() < 0 || x.Quota() > x.cfg.Quota {
			return "budget quota out of [0, Quota]"
		}
	case *GRPC:
		if x.Tokens() < 0 || x.Tokens() > x.cfg.MaxTokens {
			return "grpc tokens out of [0, MaxTokens]"
		}
	case *Throttle:
		if p := x.Probability(x.window.lastTime()); p < 0 || p >= 1 {
			return "throttle probability out of [0, 1)"
		}
	case *AWSAdaptive:
		if q := x.Quota(); q < 0 || q > x.cfg.Standard.Quota {
			return "aws-adaptive quota out of [0, Quota]"
		}
		if fill, on := x.FillRate(); on && !(fill >= x.cfg.MinFillRate) {
			return "aws-adaptive fill rate under MinFillRate"
		}
	case *Envoy:
		if p := x.Probability(x.window.lastTime()); p < 0 || p > x.cfg.MaxRejection || x.active < 0 || x.inflight < 0 {
			return "envoy probability out of [0, MaxRejection], or a negative count"
		}
	case *Finagle:
		if x.Balance(x.bucket.lastTime()) < 0 {
			return "finagle balance negative"
		}
	case *Gradient2:
		if l := x.Limit(); l < x.g.cfg.MinLimit || l > x.g.cfg.MaxConcurrency || x.Inflight() < 0 {
			return "gradient2 limit out of [MinLimit, MaxConcurrency], or negative in flight"
		}
	case *Vegas:
		if l := x.Limit(); l < 1 || l > x.v.cfg.MaxConcurrency || x.Inflight() < 0 {
			return "vegas limit out of [1, MaxConcurrency], or negative in flight"
		}
	case *Failsafe:
		if x.limit < float64(x.cfg.MinLimit) || x.limit > float64(x.cfg.MaxLimit) || x.used < 0 || x.executions < 0 || x.retries < 0 {
			return "failsafe limit out of [MinLimit, MaxLimit], or a negative count"
		}
	}
	return ""
}

// TestInvariants asserts, for every strategy over long random call sequences, that admissions
// are well formed (a refusal is Reject or CircuitOpen with a reason, a hold has a reason and a
// bounded wait), that verdicts are consistent (Retry iff Action Retry, a reason always, delays
// in [0, 30 s] and within the registered footprint, zero on a refusal, the footprint's retry
// limit and NOT_RETRYABLE respected) and that quotas, tokens, probabilities and in-flight counts
// stay in range.
func TestInvariants(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(5) {
				env := testEnv(seed)
				s, err := New(name, env)
				require.NoError(t, err)
				ops := make([]byte, 3000)
				r := newRand(seed + 100)
				for i := range ops {
					ops[i] = byte(r.Uint32())
				}
				assert.Empty(t, drive(s, env.Clock.(*engine.ManualClock), ops), "seed %d", seed)
			}
		})
	}
}

// FuzzStrategies checks the same invariants on fuzzer-chosen call sequences, for every
// strategy: `go test -fuzz FuzzStrategies ./strategy`.
func FuzzStrategies(f *testing.F) {
	f.Add(uint8(0), []byte{1, 2, 3, 4, 5})
	f.Add(uint8(3), []byte{0x41, 0x42, 0xc3, 0x3f, 0xff, 0x00, 0x81})
	f.Add(uint8(7), make([]byte, 64))
	f.Fuzz(func(t *testing.T, which uint8, ops []byte) {
		names := Names()
		env := testEnv(uint64(which))
		s, err := New(names[int(which)%len(names)], env)
		if err != nil {
			t.Fatal(err)
		}
		if msg := drive(s, env.Clock.(*engine.ManualClock), ops); msg != "" {
			t.Fatalf("%s: %s", s.Name(), msg)
		}
	})
}
