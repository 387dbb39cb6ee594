package engine

import (
	"fmt"
	"math"
)

// Normalized returns w scaled to sum 1. It fails, naming each bad field, when a weight is
// negative or not finite, or when the weights sum to 0.
func (w Weights) Normalized() (Weights, error) {
	var errs ConfigError
	errs.weights("Weights", w)
	if err := errs.err(); err != nil {
		return Weights{}, err
	}
	s := w.sum()
	return Weights{F: w.F / s, L: w.L / s, Q: w.Q / s, B: w.B / s, C: w.C / s}, nil
}

func (w Weights) sum() float64 { return w.F + w.L + w.Q + w.B + w.C }

// String formats the weights as "F=0.30 L=0.20 Q=0.15 B=0.15 C=0.20".
func (w Weights) String() string {
	return fmt.Sprintf("F=%.2f L=%.2f Q=%.2f B=%.2f C=%.2f", w.F, w.L, w.Q, w.B, w.C)
}

// dot returns the weighted sum of s, the CPS before clamping.
func (w *Weights) dot(s *Signals) float64 {
	return w.F*s.F + w.L*s.L + w.Q*s.Q + w.B*s.B + w.C*s.C
}

// Array returns the weights of F, L, Q, B and C, in that order (the order of SignalNames).
func (w Weights) Array() [5]float64 { return [5]float64{w.F, w.L, w.Q, w.B, w.C} }

// WeightsFrom is the inverse of Weights.Array: a[0] is F's weight, a[4] C's.
func WeightsFrom(a [5]float64) Weights { return Weights{F: a[0], L: a[1], Q: a[2], B: a[3], C: a[4]} }

// Array returns the signals F, L, Q, B and C, in that order (the order of SignalNames).
func (s Signals) Array() [5]float64 { return [5]float64{s.F, s.L, s.Q, s.B, s.C} }

// SignalNames are the keys of the five signals in the order of Signals.Array and Weights.Array.
var SignalNames = [5]string{"F", "L", "Q", "B", "C"}

// Adjust returns w with the weight of signal i (0 F, 1 L, 2 Q, 3 B, 4 C, the order of Array)
// moved by delta, floored at 0, and the set renormalised to sum 1 (Normalized): how a user
// nudges one weight. It fails like Normalized, e.g. when that leaves every weight at 0, and
// for an i outside 0..4.
func (w Weights) Adjust(i int, delta float64) (Weights, error) {
	if i < 0 || i >= len(SignalNames) {
		return Weights{}, fmt.Errorf("weight index %d is not in 0..%d", i, len(SignalNames)-1)
	}
	a := w.Array()
	a[i] = max(0, a[i]+delta)
	return WeightsFrom(a).Normalized()
}

// The bounds adaptive weights keep every weight within.
const (
	AdaptiveMinWeight = 0.05
	AdaptiveMaxWeight = 0.50
)

// bounded returns w normalised to sum 1 with every weight within [lo, hi] (5*lo <= 1 <= 5*hi):
// clamp, then rescale the weights not pinned at a bound to absorb the difference, until the sum
// is 1. Each pass pins at least one more weight, so five passes suffice.
func bounded(w Weights, lo, hi float64) Weights {
	a := w.Array()
	s := w.sum()
	if !(s > 0) || math.IsInf(s, 0) {
		return Weights{F: 0.2, L: 0.2, Q: 0.2, B: 0.2, C: 0.2}
	}
	for i := range a {
		a[i] = min(hi, max(lo, a[i]/s))
	}
	var pinned [5]bool
	for range 6 {
		s = a[0] + a[1] + a[2] + a[3] + a[4]
		if math.Abs(s-1) < 1e-12 {
			break
		}
		var fixed, free float64
		for i, v := range a {
			switch {
			case pinned[i]:
				fixed += v
			case s > 1 && v <= lo, s < 1 && v >= hi:
				pinned[i] = true
				fixed += v
			default:
				free += v
			}
		}
		if free <= 0 {
			break
		}
		f := (1 - fixed) / free
		for i := range a {
			if !pinned[i] {
				a[i] = min(hi, max(lo, a[i]*f))
			}
		}
	}
	return WeightsFrom(a)
}
