// Package live is cortex-tui's live mode: it plays a scenario as real HTTP traffic in real time
// and is a source.Source for the same dashboard and reports as the simulator.
//
// A Run is a load generator and a source. Its fleet is the scenario's clients, each with its
// own retry strategy from the strategy catalog (built as the simulator builds it: one seeded
// random stream per client, CORTEX with 1/clients of the fleet's budget) inside its own
// cortexhttp.Transport; every transport shares one pooled http.Transport. Arrivals are open
// loop: the scenario's classes and load profile give a Poisson process that is drawn exactly as
// the simulator draws it (the same seed gives the same arrival times, classes and clients), and
// each arrival is sent when the wall clock reaches it, whatever the earlier requests are doing.
// A request carries its class's priority (cortexhttp.WithPriority) and the scenario's deadline;
// each attempt is bounded by the scenario's timeout; retries wait on timers inside cortexhttp,
// whose pending count is CORTEX's queue signal Q. Concurrency is bounded: at most
// Config.MaxInFlight requests are alive (sending or waiting for a retry; by default derived from
// the scenario's peak rate and deadline so that its own load does not reach it: InFlightFor); an
// arrival that finds none free fails locally, counted as refused at the in-flight cap
// (Counts.InFlightCapRefused, a local reject too), so no arrival spawns an unbounded number of
// goroutines.
//
// The run sends its traffic through a Stack: the address requests go to (the embedded target,
// whose server runs the fault injector, one hop; or the fault proxy in front of a user's
// service), the fault controls (Faults) and, for the embedded target, the target itself, whose
// state, capacity and queue the snapshots report. The scenario's fault timeline and the
// dashboard's fault keys go to Faults.
//
// With Config.Join the run's CORTEX engines are one instance of a fleet (live --fleet: on
// Redis): each engine is a fleet.Member, synced once before the run sends anything and then in
// the background; the snapshots' CortexView.Fleet and Meta.Fleet say what the engines see of
// the fleet and which fleet it is.
//
// Time follows the wall clock (an injected engine.Clock): the run is cut into ticks of the
// scenario's dt, each closed into one source.Snapshot with the counts of what happened during
// it; Advance ignores its argument and returns the ticks completed since the last call. Start
// runs the real-time loop that sends arrivals on time; without it (tests, with a manual clock)
// Advance catches up with the clock itself. Close, the end of the run and Restart cancel every
// request at once and wait for every goroutine the run started.
package live
