package strategy

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// wall0 is the wall time of every test clock's start (engine.ManualClock), which is Time t0.
var wall0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// t0 is the start of every test's virtual time: Time 0 is wall0 minus 1000 s, so that tests can
// step back from t0 without crossing the origin.
const t0 = Time(1000 * time.Second)

// epoch0 converts a test clock's readings to Times (wall0 is t0).
var epoch0 = NewEpoch(wall0.Add(-time.Duration(t0)))

// wallAt is the wall time of a test clock at Time t.
func wallAt(t Time) time.Time { return wall0.Add(t.Sub(t0)) }

// at returns the Time a test clock reads.
func at(clk *engine.ManualClock) Time { return epoch0.Time(clk.Now()) }

// att is the Attempt of a request of priority prio at retry index retry, without a deadline.
func att(prio, retry int) Attempt { return Attempt{Priority: prio, Retry: retry} }

// newRand returns a seeded random source.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// failures lists every retryable outcome.
var failures = []Outcome{Timeout, FastFail, ServerError, Throttled}

// must fails the test run at construction time (used with constructors and valid configs).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// lastTime returns the start of the window's newest bucket (the smallest Time before anything
// was counted).
func (w *rolling) lastTime() Time {
	if !w.started {
		return Time(math.MinInt64)
	}
	return w.origin + Time(w.head*w.width)
}
