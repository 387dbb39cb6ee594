package strategy

import (
	"math/rand/v2"
	"time"
)

// t0 is the start of every test's virtual time.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

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

// lastTime returns the start of the window's newest bucket (the zero time before anything was
// counted).
func (w *rolling) lastTime() time.Time {
	if !w.started {
		return time.Time{}
	}
	return w.origin.Add(time.Duration(w.head) * w.width)
}
