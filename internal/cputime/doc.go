// Package cputime reads the CPU time the process has used, so that throughput can be stated
// per CPU-second on a machine shared with other work (a wall-clock rate there depends on the
// machine's load): the benchmarks of sim and live, and tune's evaluations per CPU-second.
package cputime
