package live

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/cputime"
	"github.com/cortex-tui/cortex-tui/live/upstream"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// benchRates are the offered rates of the speed benchmarks, requests/s: the floor
// (5,000 attempts/s must be sustained), and more than the machine can send, so that the
// figure is the generator's ceiling.
var benchRates = []float64{5000, 20000}

// benchTarget starts an embedded target that is never the bottleneck (1,000 workers, 1 ms,
// a queue of 10,000: a million requests/s) and returns it.
func benchTarget(b *testing.B) *upstream.Target {
	b.Helper()
	tg, err := upstream.New(benchTargetConfig())
	if err != nil {
		b.Fatal(err)
	}
	if err := tg.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tg.Close() })
	return tg
}

// benchTargetConfig is the configuration of benchTarget.
func benchTargetConfig() upstream.Config {
	cfg := upstream.DefaultConfig()
	cfg.Workers, cfg.ServiceTime, cfg.Sigma, cfg.QueueLimit = 1000, time.Millisecond, 0, 10000
	return cfg
}

// benchScenario is an open-loop scenario offering benchRate requests/s for d.
func benchScenario(d time.Duration, rate float64) scenarios.Scenario {
	s := scenarios.Defaults()
	s.Name, s.Summary = "bench", "speed"
	s.Duration, s.Drain = d, 0
	s.Clients = 20
	s.Classes = []scenarios.Class{{Name: "a", Priority: 9, Rate: rate / 2}, {Name: "b", Priority: 1, Rate: rate / 2}}
	s.Service = scenarios.Service{Workers: 1000, ServiceTime: time.Millisecond, QueueLimit: 10000}
	return s
}

// BenchmarkGenerator measures the attempts per second the live generator sends to the embedded
// target, every attempt admitted and recorded by each client's CORTEX engine (the cortex
// strategy deciding every retry), and the same open-loop load sent by a bare Go loop with a
// plain http.Client (a goroutine per request, the same bound on requests in flight), in the
// same run against the same target. Each iteration runs both for two seconds.
//
// direct/ is a bare target; stack/ is the embedded stack live mode runs (EmbeddedStack: the
// fault injector mounted inside the target's server, one socket hop), with no fault active
// and with a fifth of the answers replaced by a 500, so that CORTEX decides a retry after
// every one of them (the bare loop does not retry).
func BenchmarkGenerator(b *testing.B) {
	tg := benchTarget(b)
	u, _ := url.Parse(tg.URL())
	for _, rate := range benchRates {
		b.Run(fmt.Sprintf("direct/offered=%.0f", rate), func(b *testing.B) { benchGenerator(b, u, rate) })
	}
	stack := func(b *testing.B, errors float64, rate float64) {
		st, err := EmbeddedStack(benchTargetConfig())(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if errors > 0 {
			if err := st.Faults.Set(scenarios.FaultErrors, errors); err != nil {
				b.Fatal(err)
			}
		}
		benchGenerator(b, st.URL, rate)
	}
	for _, rate := range benchRates {
		b.Run(fmt.Sprintf("stack/offered=%.0f", rate), func(b *testing.B) { stack(b, 0, rate) })
	}
	b.Run("stack/errors=0.2/offered=5000", func(b *testing.B) { stack(b, 0.2, 5000) })
}

// benchGenerator runs the generator and the bare loop at rate against u.
func benchGenerator(b *testing.B, u *url.URL, rate float64) {
	const d = 2 * time.Second
	var live, bare float64
	var liveCPU, bareCPU time.Duration
	for b.Loop() {
		c0 := cputime.Process()
		live += runGenerator(b, u, d, rate)
		c1 := cputime.Process()
		bare += runBare(u, d, rate)
		liveCPU, bareCPU = liveCPU+c1-c0, bareCPU+cputime.Process()-c1
	}
	n := float64(b.N)
	b.ReportMetric(live/n, "attempts/s")
	b.ReportMetric(bare/n, "bare-attempts/s")
	b.ReportMetric(live/bare, "ratio")
	if liveCPU > 0 {
		// CPU of the whole process (target included) per attempt answered: the figure that
		// holds on a machine shared with other work, where attempts/s follows the load.
		b.ReportMetric(float64(liveCPU.Microseconds())/(live*d.Seconds()), "cpu-µs/attempt")
		b.ReportMetric(float64(bareCPU.Microseconds())/(bare*d.Seconds()), "bare-cpu-µs/attempt")
	}
}

// runGenerator runs the live generator against u for d and returns the attempts per second
// that got an answer.
func runGenerator(b *testing.B, u *url.URL, d time.Duration, rate float64) float64 {
	scn := benchScenario(d, rate)
	r, err := New(Config{Scenario: scn, Strategy: "cortex", MaxRPS: rate, MaxInFlight: 512,
		Stack: func(context.Context) (*Stack, error) { return &Stack{URL: u, Faults: NoFaults{}}, nil }})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	r.Start(context.Background())
	answered := 0
	for !r.Done() {
		time.Sleep(50 * time.Millisecond)
		for _, s := range r.Advance(0) {
			answered += s.Counts.Successes + s.Counts.Failures
		}
	}
	for _, s := range r.Advance(0) {
		answered += s.Counts.Successes + s.Counts.Failures
	}
	return float64(answered) / d.Seconds()
}

// runBare sends open-loop arrivals at rate to u for d with a bare http.Client, at most 512
// in flight (the rest dropped), and returns the answers per second.
func runBare(u *url.URL, d time.Duration, rate float64) float64 {
	tr := NewBaseTransport(256)
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	slots := make(chan struct{}, 512)
	var wg sync.WaitGroup
	var answered atomic.Int64
	start := time.Now()
	gap := time.Duration(float64(time.Second) / rate)
	next := start
	for time.Since(start) < d {
		now := time.Now()
		for ; !next.After(now); next = next.Add(gap) {
			select {
			case slots <- struct{}{}:
			default:
				continue
			}
			wg.Add(1)
			go func() {
				defer func() { <-slots; wg.Done() }()
				resp, err := c.Get(u.String())
				if err == nil {
					_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, DefaultDrainLimit))
					_ = resp.Body.Close()
					answered.Add(1)
				}
			}()
		}
		time.Sleep(minWait)
	}
	wg.Wait()
	return float64(answered.Load()) / d.Seconds()
}
