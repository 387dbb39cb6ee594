// Package upstream is live mode's embedded downstream service: a real HTTP server on loopback
// that behaves like the simulator's service (package sim, docs/simulator.md), so that real
// clients with real retry strategies meet the same physics the simulator teaches.
//
// A Target has Workers concurrent slots and a bounded FIFO queue of QueueLimit in front of
// them; a request that finds every worker busy and the queue full is answered 503 at once.
// A request that gets a worker holds it for a service time drawn from a lognormal around
// ServiceTime (shape Sigma), realised by a timer, not by burning CPU, so capacity is
// Workers / ServiceTime requests/s whatever the machine. Work goes on after the client gave
// up: a request whose client cancelled or disconnected keeps its place in the queue and then
// its worker for its whole service time (the wasted work that makes overload self-sustaining),
// unless DropExpired is set, in which case a queued request whose client has gone is skipped
// when its turn comes.
//
// Overload kills it: when the utilisation over the last second (offered work over capacity,
// a refused request counting RefusalCost of one) stays above CrashFactor for CrashAfter, the
// target crashes for real: it closes its listener (clients get connection refused) and every
// connection holding a queued or in-service request (those clients see the connection closed
// without an answer), stays down for RestartDelay, then listens again on the same port and
// warms up, its capacity ramping from WarmStart to full over Warmup.
//
// Live mode's fault keys drive it at run time: SetCapacity scales the workers, SetLatency adds
// to the service time, Down and Up take it out and back (an outage: the listener is closed),
// and Snapshot reads its state, capacity, queue, utilisation and counters. All of it is safe
// for concurrent use.
//
// WithMiddleware mounts a handler in front of the target's own inside its server: live mode's
// embedded stack puts the fault injector there (package live/proxy's Injector), so that the
// load generator's requests reach the target in one hop.
//
// New builds a Target from a Config (DefaultConfig, or FromScenario for a scenario's
// [service]); Start listens and serves in the background until Close or the cancellation of
// Start's context, which stop every goroutine and timer the target started. The target spawns
// no goroutine per request: a request waiting for a worker is an entry in the queue, and its
// handler goroutine (the one the net/http server runs for the connection) parks on a channel.
package upstream
