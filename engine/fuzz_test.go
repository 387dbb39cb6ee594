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

// FuzzEngine drives an engine with a random sequence of calls (the corpus is in
// testdata/fuzz/FuzzEngine) and asserts that nothing panics, CPS and every signal stay within
// [0,1], every delay within [0, BackoffMaxDelay] and only on retries, priorities within 0..10,
// the weights normalised (within the adaptive bounds when adaptive weights are on), and the
// window's running histogram consistent with its counts.
func FuzzEngine(f *testing.F) {
	f.Add([]byte{0, 1, 40, 0, 3, 9, 0, 1})
	f.Add([]byte{7, 2, 200, 200, 2, 200, 200, 0, 255, 3, 1, 0, 1, 0, 255, 3, 10, 0, 1})
	f.Fuzz(fuzzEngine)
}

func fuzzEngine(t *testing.T, data []byte) {
	{
		r := &fuzzReader{b: data}
		clock := NewManualClock(epoch)
		cfg := DefaultConfig()
		cfg.Clock = clock
		cfg.Seed = 1
		flags := r.byte()
		cfg.Deterministic = flags&1 != 0
		cfg.AdaptiveWeights = flags&2 != 0
		if flags&4 != 0 { // a small, fast-moving configuration
			cfg.Window = 5 * time.Second
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
		for len(r.b) > 0 {
			switch r.byte() % 10 {
			case 0:
				n := time.Duration(r.byte())
				clock.Advance(n * n * time.Millisecond)
			case 1:
				e.RecordSuccess(time.Duration(r.int16()) * time.Millisecond)
			case 2:
				e.RecordFailure(time.Duration(r.int16()) * time.Millisecond)
			case 3:
				p, a, ok := int(int8(r.byte())), int(int8(r.byte())), r.byte()&1 == 0
				d := e.ShouldRetry(p, a, ok)
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
				check("decision", d.Signals, d.CPS)
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
			}
			s := e.Snapshot()
			check("snapshot", s.Signals, s.CPS)
			if full := e.win.merged.quantile(0.99, e.win.outcomes()); full != s.P99 {
				t.Fatalf("P99 from the top bin %v != full scan %v", s.P99, full)
			}
			if uint64(s.Outcomes) != e.win.merged.countAll() {
				t.Fatalf("window holds %d outcomes, merged histogram %d", s.Outcomes, e.win.merged.countAll())
			}
			if math.Abs(s.Weights.sum()-1) > 1e-9 {
				t.Fatalf("weights %v do not sum to 1", s.Weights)
			}
			if s.Adaptive {
				for _, v := range s.Weights.array() {
					if v < AdaptiveMinWeight-1e-9 || v > AdaptiveMaxWeight+1e-9 {
						t.Fatalf("adaptive weights %v out of bounds", s.Weights)
					}
				}
			}
			if s.Tokens < 0 || s.Tokens > float64(s.TokenCapacity) {
				t.Fatalf("tokens %v out of [0, %d]", s.Tokens, s.TokenCapacity)
			}
			if s.RecoveryShare < rampStartShare || s.RecoveryShare > 1 {
				t.Fatalf("recovery share %v", s.RecoveryShare)
			}
		}
	}
}
