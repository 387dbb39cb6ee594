package sim

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/cputime"
	"github.com/cortex-tui/cortex-tui/report"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// The benchmarks of this file measure the constants of the cost model (cost.go): the heap
// bytes each kind of thing a run holds takes, and the CPU time of a tick's fixed work. Memory
// is read with runtime.ReadMemStats after every tick: the peak of HeapAlloc over the run, minus
// its value before New, divided by the number of things held at the peak. HeapAlloc counts
// the garbage the collector has not yet freed (old arrays of the pools and rings left behind as
// they double), so the figures are what the heap really reaches, not only what is live. Run
// them with: go test ./sim -run '^$' -bench Cost -benchtime 1x

// peakHeap runs s until stop returns true or the run ends, and returns the peak of HeapAlloc
// above base seen after each tick.
func peakHeap(s *Sim, base uint64, stop func(*Sim) bool) uint64 {
	var peak uint64
	var m runtime.MemStats
	for !s.Done() && !stop(s) {
		s.Step()
		runtime.ReadMemStats(&m)
		if m.HeapAlloc > base {
			peak = max(peak, m.HeapAlloc-base)
		}
	}
	return peak
}

// heapNow collects garbage and returns HeapAlloc.
func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkCostQueuedAttempt measures bytesPerAttempt: the heap an attempt held by the service
// takes, with everything that refers to it (its request, its timeout entry, its queue slot).
// One worker whose service time outlasts the run, 100,000 req/s, no strategy retries, a
// timeout and deadline longer than the run: every arrival waits in the queue until it is full.
func BenchmarkCostQueuedAttempt(b *testing.B) {
	for _, q := range []int{100_000, scenarios.MaxQueueLimit} {
		b.Run(fmt.Sprint(q), func(b *testing.B) {
			scn := scenarios.Scenario{Name: "queue", Duration: 60 * time.Second, Clients: 20,
				Deadline: 10 * time.Minute, Timeout: 10 * time.Minute,
				Classes: []scenarios.Class{{Name: "a", Rate: 100_000}},
				Service: scenarios.Service{Workers: 1, ServiceTime: time.Hour, QueueLimit: q}}
			for b.Loop() {
				base := heapNow()
				s, err := New(scn, "none", 1)
				if err != nil {
					b.Fatal(err)
				}
				peak := peakHeap(s, base, func(s *Sim) bool { return s.svc.queue.Len() >= q })
				b.ReportMetric(float64(peak)/float64(q), "B/queued-attempt")
			}
		})
	}
}

// BenchmarkCostTimeoutEntry measures bytesPerEntry: the heap a per-attempt timeout entry takes
// once its attempt is answered (it stays in the FIFO until its time). No queue, one worker:
// naive retries fail fast, four attempts per arrival, and each leaves its entry for the 10 s
// timeout; after 5 s about 2 million entries are held.
func BenchmarkCostTimeoutEntry(b *testing.B) {
	scn := scenarios.Scenario{Name: "entries", Duration: 60 * time.Second, Clients: 20,
		Deadline: 10 * time.Second, Timeout: 10 * time.Second,
		Classes: []scenarios.Class{{Name: "a", Rate: 100_000}},
		Service: scenarios.Service{Workers: 1, ServiceTime: time.Hour}}
	for b.Loop() {
		base := heapNow()
		s, err := New(scn, "naive", 1)
		if err != nil {
			b.Fatal(err)
		}
		peak := peakHeap(s, base, func(s *Sim) bool { return s.Now() >= 5*time.Second })
		b.ReportMetric(float64(peak)/float64(s.svcTimeouts.Len()), "B/entry")
	}
}

// BenchmarkCostClient measures bytesPerClient for every strategy: the heap New takes for 1,000
// clients (their strategy state, a cortex engine's windows above all), per client.
func BenchmarkCostClient(b *testing.B) {
	for _, name := range strategy.Names() {
		b.Run(name, func(b *testing.B) {
			scn := tickScenario(1000, 1, 100*time.Millisecond)
			for b.Loop() {
				base := heapNow()
				s, err := New(scn, name, 1)
				if err != nil {
					b.Fatal(err)
				}
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				b.ReportMetric(float64(m.HeapAlloc-base)/1000, "B/client")
				runtime.KeepAlive(s)
			}
		})
	}
}

// BenchmarkCostUser measures bytesPerUser: the heap a closed-loop user takes (its entry and its
// think timer), from New with 10,000 users.
func BenchmarkCostUser(b *testing.B) {
	scn := tickScenario(1, 1, 100*time.Millisecond)
	scn.Loop = scenarios.Loop{Closed: true, Users: scenarios.MaxUsers, Think: time.Hour}
	for b.Loop() {
		base := heapNow()
		s, err := New(scn, "none", 1)
		if err != nil {
			b.Fatal(err)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(m.HeapAlloc-base)/float64(scenarios.MaxUsers), "B/user")
		runtime.KeepAlive(s)
	}
}

// tickScenario is a run with next to no traffic (one arrival in about 3 hours), so that its
// ticks do only their fixed work: clients clients, classes classes, ticks of tick.
func tickScenario(clients, classes int, tick time.Duration) scenarios.Scenario {
	scn := scenarios.Scenario{Name: "ticks", Duration: 10 * time.Second, Tick: tick, Clients: clients,
		Service: scenarios.Service{Workers: 1, ServiceTime: 100 * time.Millisecond}}
	for i := range classes {
		scn.Classes = append(scn.Classes, scenarios.Class{Name: fmt.Sprint("c", i), Rate: 0.0001 / float64(classes)})
	}
	return scn
}

// BenchmarkCostTick measures the CPU time of a tick's fixed work, the recorder of a headless
// run included: with 1 client and 1 class at the 100 ms and 1 ms ticks (the second adds the
// utilisation window of 1,000 ticks that every tick sums), then with 64 classes, then with
// 1,000 clients of each strategy. nsPerTick, nsPerWindowTick, nsPerClassTick and
// nsPerClientTick are the differences, rounded up.
func BenchmarkCostTick(b *testing.B) {
	cases := []struct {
		name             string
		clients, classes int
		tick             time.Duration
		strategy         string
	}{
		{"base/100ms", 1, 1, 100 * time.Millisecond, "none"},
		{"base/1ms", 1, 1, time.Millisecond, "none"},
		{"classes-64/1ms", 1, 64, time.Millisecond, "none"},
	}
	for _, name := range strategy.Names() {
		cases = append(cases, struct {
			name             string
			clients, classes int
			tick             time.Duration
			strategy         string
		}{"clients-1000/" + name, 1000, 1, time.Millisecond, name})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			scn := tickScenario(c.clients, c.classes, c.tick)
			ticks := 0
			var cpu time.Duration
			for b.Loop() {
				s, err := New(scn, c.strategy, 1)
				if err != nil {
					b.Fatal(err)
				}
				rec := report.NewRecorder(s.Meta())
				cpu0 := cputime.Process()
				for !s.Done() {
					rec.Add(s.Step())
					ticks++
				}
				cpu += cputime.Process() - cpu0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(ticks), "cpu-ns/tick")
		})
	}
}
