package engine_test

// This file compares the cost of a CORTEX decision cycle with sony/gobreaker's Execute. It is an
// external test package so that gobreaker stays a test-only dependency: the engine library
// itself imports the standard library only (make check-imports).

import (
	"errors"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
)

// cycleBlock is how many consecutive operations each side runs between two readings of the
// wall clock: long enough that the two time.Now calls around a block cost under 1% of it,
// short enough that both sides see the same machine (frequency, other load) within
// milliseconds of each other.
const cycleBlock = 256

// cycleFailEvery makes every 16th outcome a failure, on both sides: the failure path is
// exercised too, F stays near 6% (the engine stays HEALTHY with its circuit CLOSED, so every
// decision runs the five checks to a RETRY), and gobreaker's default ReadyToTrip (more than 5
// consecutive failures) never trips.
const cycleFailEvery = 16

// errCycle is the failure both sides see.
var errCycle = errors.New("attempt failed")

// cycleLatencies are the latencies the CORTEX side records, 10-60 ms, so the latency histogram
// spreads over several bins as it does in service.
var cycleLatencies = func() []time.Duration {
	l := make([]time.Duration, 64)
	for i := range l {
		l[i] = time.Duration(10+(i*37)%51) * time.Millisecond
	}
	return l
}()

// Sinks keep the compiler from dropping work whose result is unused.
var (
	sinkDecision engine.Decision
	sinkErr      error
)

// newCycleEngine returns an engine with engine.DefaultConfig() on the wall clock (Clock nil),
// warmed up by the same cycle as the benchmark so that its latency baseline is formed.
func newCycleEngine(tb testing.TB) *engine.Engine {
	tb.Helper()
	eng, err := engine.New(engine.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	for i := range 5000 {
		cortexCycle(eng, i)
	}
	return eng
}

// cortexCycle is one CORTEX decision cycle as a caller makes it: record the outcome of attempt
// i (a failure every cycleFailEvery-th, with its latency), then ask whether to retry it
// (priority 5, first retry, retryable).
func cortexCycle(eng *engine.Engine, i int) {
	lat := cycleLatencies[i%len(cycleLatencies)]
	if i%cycleFailEvery == cycleFailEvery-1 {
		eng.RecordFailure(lat)
	} else {
		eng.RecordSuccess(lat)
	}
	sinkDecision = eng.ShouldRetry(5, 0, true)
}

// gobreakerCycle is the same attempt through gobreaker: Execute with a request that returns at
// once, failing every cycleFailEvery-th time. Execute records the outcome and decides the next
// request's admission in one call, as CORTEX's record and ShouldRetry do.
func gobreakerCycle(cb *gobreaker.CircuitBreaker[any], i int) {
	if i%cycleFailEvery == cycleFailEvery-1 {
		_, sinkErr = cb.Execute(func() (any, error) { return nil, errCycle })
		return
	}
	_, sinkErr = cb.Execute(func() (any, error) { return nil, nil })
}

// BenchmarkCycleVsGobreaker measures one CORTEX decision cycle (RecordSuccess or RecordFailure,
// then ShouldRetry, on engine.DefaultConfig() and the wall clock) against one sony/gobreaker
// CircuitBreaker[any].Execute of a request that returns nil at once (default Settings), both
// with the same outcomes (a failure every 16th). One benchmark iteration is one operation of
// one side; the sides alternate in blocks of cycleBlock operations, which block goes first
// alternating too, so that machine noise (frequency changes, other processes) falls on both
// alike. Each block is timed with the wall clock.
//
// Reports cortex-ns/cycle, gobreaker-ns/cycle and their ratio x-gobreaker (the target is at
// most 1.25); ns/op is the mean of the two sides. Both sides allocate nothing (allocs/op 0).
func BenchmarkCycleVsGobreaker(b *testing.B) {
	eng := newCycleEngine(b)
	cb := gobreaker.NewCircuitBreaker[any](gobreaker.Settings{})
	for i := range 5000 {
		gobreakerCycle(cb, i)
	}

	var cortexTime, gbTime time.Duration
	var cortexOps, gbOps int
	b.ReportAllocs()
	pair := 0 // blocks run so far, both sides counted
	i := 0    // operation index within the current block
	start := time.Now()
	for b.Loop() {
		// Blocks 0, 3, 4, 7, 8, ... are CORTEX's, 1, 2, 5, 6, ... gobreaker's: each side
		// goes first in every other pair of blocks.
		cortex := (pair & 1) == ((pair >> 1) & 1)
		n := pair/2*cycleBlock + i // the same outcome sequence on both sides
		if cortex {
			cortexCycle(eng, n)
		} else {
			gobreakerCycle(cb, n)
		}
		if i++; i == cycleBlock {
			now := time.Now()
			if cortex {
				cortexTime += now.Sub(start)
				cortexOps += cycleBlock
			} else {
				gbTime += now.Sub(start)
				gbOps += cycleBlock
			}
			start, i = now, 0
			pair++
		}
	}
	if cortexOps == 0 || gbOps == 0 {
		return // too few iterations for a block of each (b.N < 2*cycleBlock)
	}
	cns := float64(cortexTime.Nanoseconds()) / float64(cortexOps)
	gns := float64(gbTime.Nanoseconds()) / float64(gbOps)
	b.ReportMetric(cns, "cortex-ns/cycle")
	b.ReportMetric(gns, "gobreaker-ns/cycle")
	b.ReportMetric(cns/gns, "x-gobreaker")
}

// TestCycleAllocs asserts that a CORTEX decision cycle on the wall clock (record an outcome,
// success or failure, then ShouldRetry) allocates nothing.
func TestCycleAllocs(t *testing.T) {
	eng := newCycleEngine(t)
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		cortexCycle(eng, i)
		i++
	})
	assert.Zero(t, allocs, "allocations per decision cycle")
}
