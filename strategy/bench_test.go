package strategy

import (
	"testing"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
)

// BenchmarkDecideRecord measures one failed attempt's round trip through each strategy:
// Admit, Record the failure, Decide the retry, Record a success; virtual time moves 1 ms per
// iteration so the rolling windows roll. Reports decisions/s besides ns/op and allocs.
func BenchmarkDecideRecord(b *testing.B) {
	outcomes := []Outcome{Timeout, ServerError, FastFail, Throttled}
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) {
			clk := engine.NewManualClock(wall0)
			s, err := New(name, Env{Clock: clk, Rand: newRand(1)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				// SetElapsed is one compare-and-swap: the clock's cost stays out of the figure.
				d := time.Duration(i+1) * time.Millisecond
				clk.SetElapsed(d)
				now := t0.Add(d)
				a := Attempt{Priority: 5, Retry: i & 3, Deadline: now.Add(30 * time.Second)}
				s.Admit(now, a)
				o := outcomes[i&3]
				s.Record(now, a, o, 20*time.Millisecond)
				s.Decide(now, a, o)
				s.Record(now, a, Success, 20*time.Millisecond)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
		})
	}
}
