package sim

import (
	"math"
	"slices"
	"time"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// Knowledge is a set of the oracle's pieces of omniscience that a client-side engine cannot
// have, to remove from it (OracleWithout; docs/simulator.md, "What a client cannot know").
// Each removal keeps the computation a bound of the same kind (a most-served schedule, by the
// same greedy) over a smaller capacity, so that every variant is at most the oracle.
type Knowledge uint8

const (
	// NoCapacityNow: the scheduler learns the service's capacity (usable workers, mean
	// service time, the throttle's rate) only from outcomes, which arrive at the latest one
	// per-attempt timeout after an attempt is sent: in each step it can use at most the least
	// of the capacity of the step and of the step one timeout earlier (ceil(timeout / step)
	// steps; the run's first steps read the first one), so a recovery is used one timeout
	// late and a fall costs at once. The throttle's rate likewise: the least of the two rates
	// in force (none counts as no limit).
	NoCapacityNow Knowledge = 1 << iota
	// NoFaultEnd: the scheduler does not know when an errors or bad_requests fault ends: an
	// attempt fails with the errors fraction in force when it is sent (the oracle: the least
	// fraction within a timeout of it), and an original is refused with the bad_requests
	// fraction of its arrival step (the oracle: the least in its reach).
	NoFaultEnd
	// NoCoordination: each of the scenario's clients schedules only its own originals, on a
	// 1/Clients share of every step's capacity and throttle (it neither sees the other
	// clients' demand nor borrows their idle share); the bound is the sum over the clients.
	NoCoordination
	// ClientKnowable is every piece a client-side engine cannot know, removed together.
	ClientKnowable = NoCapacityNow | NoFaultEnd | NoCoordination
)

// OracleWithout is Oracle with the pieces of knowledge in without removed (Oracle itself with
// 0): a bound on the success of a scheduler that lacks them, at most Oracle's. Only the total
// is computed per client under NoCoordination: its Priorities are the sums over the clients.
func OracleWithout(scn scenarios.Scenario, seed int64, without Knowledge) (Bound, error) {
	if len(scn.Controls) > 0 {
		return Bound{}, ErrControlled
	}
	s, err := New(scn, "none", seed)
	if err != nil {
		return Bound{}, err
	}
	if s.scn.Loop.Closed {
		return Bound{}, ErrClosedLoop
	}
	o := newOracleRun(s)
	o.without = without
	o.replay(s, seed)
	if without&NoCapacityNow != 0 {
		o.lagCapacity(s.scn.Timeout)
	}
	if without&NoCoordination == 0 {
		return o.bound(), nil
	}
	n := len(o.arrivedBy)
	o.share = 1 / float64(n)
	var total Bound
	for c := range n {
		o.arrived = o.arrivedBy[c]
		b := o.bound()
		total.Arrived += b.Arrived
		total.Success += b.Success
		for _, p := range b.Priorities {
			i := slices.IndexFunc(total.Priorities, func(q PriorityBound) bool { return q.Priority == p.Priority })
			if i < 0 {
				total.Priorities = append(total.Priorities, PriorityBound{Priority: p.Priority})
				i = len(total.Priorities) - 1
			}
			total.Priorities[i].Arrived += p.Arrived
			total.Priorities[i].Success += p.Success
			total.Priorities[i].AtLeast += p.AtLeast
		}
	}
	slices.SortFunc(total.Priorities, func(a, b PriorityBound) int { return b.Priority - a.Priority })
	return total, nil
}

// lagCapacity makes each step's attempts and throttle the least of its own and those of the
// step one timeout earlier (NoCapacityNow).
func (o *oracleRun) lagCapacity(timeout time.Duration) {
	d := int(math.Ceil(timeout.Seconds() / o.stepSec))
	attempts, throttle := slices.Clone(o.attempts), slices.Clone(o.throttle)
	for k := range o.steps {
		j := max(0, k-d)
		o.attempts[k] = min(attempts[k], attempts[j])
		switch r, q := throttle[k], throttle[j]; {
		case r == 0:
			o.throttle[k] = q
		case q > 0:
			o.throttle[k] = min(r, q)
		}
		if o.throttle[k] > 0 && throttle[k] == 0 {
			// A throttle the client still believes in after it ended: it paces to it.
			o.burst[k] = o.burst[k] || (k > 0 && o.throttle[k-1] == 0)
		}
	}
}
