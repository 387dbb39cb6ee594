package engine

import (
	"testing"
	"time"
)

// benchEngine returns an engine on a manual clock with a formed baseline and a window holding
// mixed outcomes, the state a simulator client is in most of the time.
func benchEngine(b *testing.B, clock Clock) *Engine {
	b.Helper()
	cfg := DefaultConfig()
	cfg.Clock = clock
	cfg.Seed = 7
	// A budget that cannot run dry within b.N decisions, so every decision measured is a full
	// pass through the five checks ending in a RETRY with a random draw (the slowest path).
	cfg.TokenBucketCapacity = 1 << 40
	e, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	mc, _ := clock.(*ManualClock)
	for i := range 2000 {
		if mc != nil {
			mc.Advance(10 * time.Millisecond)
		}
		if i%10 == 0 {
			e.RecordFailure(200 * time.Millisecond)
		} else {
			e.RecordSuccess(time.Duration(20+i%30) * time.Millisecond)
		}
	}
	return e
}

// clocks are the two time sources the engine runs on: the simulator's manual clock and the
// wall clock of live mode.
var clocks = []struct {
	name string
	new  func() Clock
}{
	{"manual", func() Clock { return NewManualClock(time.Unix(0, 0)) }},
	{"wall", func() Clock { return WallClock{} }},
}

func reportPerOp(b *testing.B, unit string) {
	if b.Elapsed() > 0 {
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
	}
}

// BenchmarkShouldRetry measures one decision, serial and from parallel goroutines.
func BenchmarkShouldRetry(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name+"/serial", func(b *testing.B) {
			e := benchEngine(b, c.new())
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				e.ShouldRetry(i%11, i%3, true)
			}
			reportPerOp(b, "decisions/s")
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			e := benchEngine(b, c.new())
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					e.ShouldRetry(i%11, i%3, true)
					i++
				}
			})
			reportPerOp(b, "decisions/s")
		})
	}
}

// BenchmarkRecordSuccess measures recording one success, serial and parallel.
func BenchmarkRecordSuccess(b *testing.B) {
	benchRecord(b, func(e *Engine) { e.RecordSuccess(25 * time.Millisecond) })
}

// BenchmarkRecordFailure measures recording one failure, serial and parallel.
func BenchmarkRecordFailure(b *testing.B) {
	benchRecord(b, func(e *Engine) { e.RecordFailure(5 * time.Second) })
}

func benchRecord(b *testing.B, rec func(*Engine)) {
	for _, c := range clocks {
		b.Run(c.name+"/serial", func(b *testing.B) {
			e := benchEngine(b, c.new())
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec(e)
			}
			reportPerOp(b, "records/s")
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			e := benchEngine(b, c.new())
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec(e)
				}
			})
			reportPerOp(b, "records/s")
		})
	}
}

// BenchmarkSnapshot measures one snapshot (the simulator takes ~20 per tick).
func BenchmarkSnapshot(b *testing.B) {
	e := benchEngine(b, NewManualClock(time.Unix(0, 0)))
	b.ReportAllocs()
	for b.Loop() {
		_ = e.Snapshot()
	}
}

// BenchmarkNew measures building an engine (the simulator builds ~20 per run).
func BenchmarkNew(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Clock = NewManualClock(time.Unix(0, 0))
	cfg.Seed = 1
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// fleetBenchEngine is benchEngine as one instance of a fleet, with a fresh view applied (fresh
// for an hour, so the wall clock cannot age it within a run) and a lease that cannot run dry.
func fleetBenchEngine(b *testing.B, clock Clock) (*Engine, *FleetReport, *FleetView) {
	b.Helper()
	cfg := DefaultConfig()
	cfg.Clock = clock
	cfg.Seed = 7
	cfg.TokenBucketCapacity = 1 << 40
	cfg.Fleet = DefaultFleetConfig()
	cfg.Fleet.MaxAge = time.Hour
	e, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	mc, _ := clock.(*ManualClock)
	for i := range 2000 {
		if mc != nil {
			mc.Advance(10 * time.Millisecond)
		}
		if i%10 == 0 {
			e.RecordFailure(200 * time.Millisecond)
		} else {
			e.RecordSuccess(time.Duration(20+i%30) * time.Millisecond)
		}
	}
	r, v := new(FleetReport), new(FleetView)
	e.FleetReport(r)
	v.Short, v.Long, v.ShortLatency = r.Counts, r.Counts, r.Latency
	v.Capacity, v.Tokens, v.Granted, v.Instances, v.Held = 1<<50, 1<<50, 1<<45, 5, 1<<50
	e.FleetApply(r, v)
	if e.Snapshot().Fleet != FleetJoint {
		b.Fatal("the fleet view is not in use")
	}
	v.Granted = 0
	return e, r, v
}

// BenchmarkShouldRetryFleet measures one decision of an engine in a fleet, reading a fresh
// fleet view and spending leased tokens: it must cost what BenchmarkShouldRetry does (the
// store is never on the hot path).
func BenchmarkShouldRetryFleet(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name+"/serial", func(b *testing.B) {
			e, _, _ := fleetBenchEngine(b, c.new())
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				e.ShouldRetry(i%11, i%3, true)
			}
			reportPerOp(b, "decisions/s")
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			e, _, _ := fleetBenchEngine(b, c.new())
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					e.ShouldRetry(i%11, i%3, true)
					i++
				}
			})
			reportPerOp(b, "decisions/s")
		})
	}
}

// BenchmarkRecordSuccessFleet measures recording one success in a fleet member (the outcome
// also joins the pending report).
func BenchmarkRecordSuccessFleet(b *testing.B) {
	e, _, _ := fleetBenchEngine(b, NewManualClock(time.Unix(0, 0)))
	b.ReportAllocs()
	for b.Loop() {
		e.RecordSuccess(25 * time.Millisecond)
	}
	reportPerOp(b, "records/s")
}

// BenchmarkFleetReportApply measures the engine's side of one sync: FleetReport then FleetApply
// (the store's cost is measured by the stores' own benchmarks).
func BenchmarkFleetReportApply(b *testing.B) {
	e, r, v := fleetBenchEngine(b, NewManualClock(time.Unix(0, 0)))
	b.ReportAllocs()
	for b.Loop() {
		e.RecordSuccess(25 * time.Millisecond)
		e.FleetReport(r)
		e.FleetApply(r, v)
	}
}

// BenchmarkAdmit measures one admission of a new request (Admit into a Decision), serial, on
// both clocks, on an engine in the state a simulator client is in most of the time.
func BenchmarkAdmit(b *testing.B) {
	for _, c := range clocks {
		b.Run(c.name, func(b *testing.B) {
			e := benchEngine(b, c.new())
			var d Decision
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				e.AdmitTo(&d, i%11)
			}
			reportPerOp(b, "admissions/s")
		})
	}
}

// sinkElapsed keeps BenchmarkClockRead's reads from being dropped.
var sinkElapsed time.Duration

// BenchmarkClockRead measures the engine's read of the wall clock alone, time.Since of a
// reading of time.Now (the monotonic clock, as Engine.now reads it): the part of every wall
// clock figure beside it that is this machine's clock, not the engine.
func BenchmarkClockRead(b *testing.B) {
	origin := time.Now()
	var s time.Duration
	b.ReportAllocs()
	for b.Loop() {
		s += time.Since(origin)
	}
	sinkElapsed = s
}
