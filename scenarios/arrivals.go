package scenarios

import (
	"math/rand/v2"
	"time"
)

// ArrivalStream is the PCG stream (of the run's seed) that open-loop arrivals are drawn from:
// its own stream, so that what the service or a strategy draws never shifts the arrivals.
const ArrivalStream = 1

// Arrival is one original request of an open loop: when it arrives, its class (an index into
// Scenario.Classes) and the client (an index into the fleet) that sends it.
type Arrival struct {
	At     time.Duration // time since the start of the run
	Class  int
	Client int
}

// Arrivals draws a scenario's open-loop arrivals tick by tick, the one implementation of them:
// the simulator, live mode and the oracle bound (sim.Oracle) all draw them here, so one seed
// gives the same originals, of the same classes at the same instants, in all three.
//
// In the tick [start, end), the rate of class c is
//
//	rate_c(t) = weight_c x ClassLoadAt(c, t) x LoadAt(t)        requests/s
//
// evaluated at the middle of the tick, where weight_c is the caller's base rate of the class
// times its share (the dashboard's multiplier, 1 by default). Arrivals are a Poisson process
// of the total rate, restarted at each tick (exact for a rate constant within the tick, by
// memorylessness): gaps of Exp(1) / lambda; each arrival's class is drawn in proportion to the
// classes' rates and its client uniformly. An Arrivals is not safe for concurrent use.
type Arrivals struct {
	scn     Scenario
	rand    *rand.Rand
	clients int
	cum     []float64 // running sums of the classes' rates in the tick being drawn
}

// NewArrivals returns the arrivals of scn for a fleet of clients (at least 1), drawn from r
// (the run's stream ArrivalStream: rand.New(rand.NewPCG(seed, ArrivalStream))).
func NewArrivals(scn Scenario, r *rand.Rand, clients int) *Arrivals {
	return &Arrivals{scn: scn, rand: r, clients: max(1, clients)}
}

// Draw appends to dst the arrivals of the tick [start, end), in time order, and returns it.
// mid is the instant the rates are evaluated at (the middle of the whole tick, also when end
// is cut short by the end of the arrival phase); weights holds each class's base rate times
// its share, in requests/s; maxRate, when positive, caps the total rate (live mode's
// --max-rps). A tick with end <= start draws nothing and consumes no randomness.
func (a *Arrivals) Draw(dst []Arrival, start, end, mid time.Duration, weights []float64, maxRate float64) []Arrival {
	if end <= start || len(weights) == 0 {
		return dst
	}
	a.cum = a.cum[:0]
	sum := 0.0
	for i, w := range weights {
		sum += w * a.scn.ClassLoadAt(i, mid)
		a.cum = append(a.cum, sum)
	}
	lambda := sum * a.scn.LoadAt(mid)
	if maxRate > 0 {
		lambda = min(lambda, maxRate)
	}
	if !(lambda > 0) {
		return dst
	}
	next := start + gap(a.rand.ExpFloat64(), lambda)
	for next < end {
		dst = append(dst, Arrival{At: next, Class: a.pick(), Client: a.rand.IntN(a.clients)})
		next += gap(a.rand.ExpFloat64(), lambda)
	}
	return dst
}

// pick draws a class in proportion to its rate: the first class whose running sum exceeds
// the draw (the last one if none does).
func (a *Arrivals) pick() int {
	x := a.rand.Float64() * a.cum[len(a.cum)-1]
	// The running sums never decrease (rates are >= 0), so that class's index is the number of
	// sums before the last that are <= x. Counting them has no branch on the random draw, which
	// a search for the first sum > x mispredicted on most arrivals.
	i := 0
	for _, c := range a.cum[:len(a.cum)-1] {
		if c <= x {
			i++
		}
	}
	return i
}

// gap converts an Exp(1) draw into the time to the next arrival at lambda requests/s (at
// least 1 ns).
func gap(e, lambda float64) time.Duration {
	return time.Duration(max(1, int64(e/lambda*float64(time.Second))))
}
