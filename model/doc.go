// Package model is what a scenario means while it runs, written once for the simulator and for
// live mode: the controls a run is under (classes, CORTEX weights, adaptive weights), the
// fault timeline with its captions, the service's physics (capacity, service-time draws, the
// utilisation window and the crash clock, the warm-up, the throttle's token bucket) and the
// open-loop arrivals. Everything here is a plain value or function of time, with no clock and
// no lock of its own: package sim drives it on virtual time, package live (and its embedded
// service, live/upstream, and fault injector, live/proxy) on the wall clock and real sockets.
// None of it is safe for concurrent use; each caller guards it with its own lock.
package model
