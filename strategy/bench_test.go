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
			clk := engine.NewManualClock(t0)
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
				retry := i & 3
				s.Admit(now, 5, retry)
				o := outcomes[i&3]
				s.Record(now, o, 20*time.Millisecond, retry)
				s.Decide(now, 5, retry, o)
				s.Record(now, Success, 20*time.Millisecond, retry)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
		})
	}
}
