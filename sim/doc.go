// Package sim is the virtual-time simulator of cortex-tui: a fleet of clients, each with its
// own retry strategy, sends Poisson arrivals (or a closed-loop population) to a downstream
// service with workers, a bounded FIFO queue, per-attempt timeouts, overload crashes, restarts
// and warm-up, under a timeline of faults. Every attempt is simulated individually in a
// time-ordered event loop stepped in ticks of dt; the same seed gives the same run byte for
// byte, and arrivals are identical whatever the strategy (separate random streams for
// arrivals, service times, think times and each client's strategy).
//
// New builds a Sim stepped with Step; NewSource wraps it as a source.Source for the
// dashboard. The simulator emits data only (snapshots, with structured events): the headless
// commands step a Sim to its end with report.Run, which computes the per-second timeline and
// the summary. The formulas are documented next to the code that applies them and collected in
// docs/simulator.md.
package sim
