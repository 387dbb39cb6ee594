package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/cortex-tui/cortex-tui/live/upstream"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// BenchmarkProxy measures requests/s through the proxy against an in-process target that
// answers at once, next to the same client on the same target directly: the proxy's cost per
// request. "faults" runs with a throttle above the rate and a tiny error fraction active, so
// every request takes the fault path (the token bucket, the draw on the answer). Run with
// -cpu to set the client's parallelism.
func BenchmarkProxy(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	tu, err := url.Parse(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		proxy  bool
		faults bool
	}{{"direct", false, false}, {"proxy", true, false}, {"faults", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			u := srv.URL
			if bc.proxy {
				p, err := New(Config{Target: tu})
				if err != nil {
					b.Fatal(err)
				}
				if err := p.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if bc.faults {
					_ = p.Set(scenarios.FaultThrottle, 1e9)
					_ = p.Set(scenarios.FaultErrors, 1e-9)
				}
				u = p.URL().String()
			}
			hammer(b, u, 1)
		})
	}
}

// BenchmarkProxyEmbeddedTarget is BenchmarkProxy against the embedded target (package
// live/upstream) with enough workers and a short enough service time that the machine, not the
// target's capacity, is the limit, and 64 requests per CPU in flight (the target's service
// time is a timer: one request at a time would measure its latency): the requests/s live mode
// can expect through the proxy.
func BenchmarkProxyEmbeddedTarget(b *testing.B) {
	cfg := upstream.DefaultConfig()
	cfg.Workers, cfg.ServiceTime, cfg.Sigma, cfg.QueueLimit = 10000, 100*time.Microsecond, 0, 10000
	cfg.CrashFactor = 0
	tg, err := upstream.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := tg.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	tu, err := url.Parse(tg.URL())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("direct", func(b *testing.B) { hammer(b, tg.URL(), 64) })
	b.Run("proxy", func(b *testing.B) {
		p, err := New(Config{Target: tu})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		hammer(b, p.URL().String(), 64)
	})
}

// hammer sends b.N GETs to u from par x GOMAXPROCS goroutines, each expecting 200, and
// reports requests/s.
func hammer(b *testing.B, u string, par int) {
	tr := &http.Transport{MaxIdleConnsPerHost: 1024, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	b.ReportAllocs()
	b.ResetTimer()
	b.SetParallelism(par)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Get(u)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// BenchmarkInjector measures what the middleware adds to a handler, in memory (no socket):
// "bare" is the handler alone, "injector" behind an Injector with no fault active (the path
// of every request in live mode's embedded stack), "errors" with an errors fault of 20% (the
// response-writer wrapper on every request, a 500 written for a fifth of them).
func BenchmarkInjector(b *testing.B) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	for _, bc := range []struct {
		name   string
		wrap   bool
		errors float64
	}{{"bare", false, 0}, {"injector", true, 0}, {"errors", true, 0.2}} {
		b.Run(bc.name, func(b *testing.B) {
			var h http.Handler = ok
			if bc.wrap {
				inj := NewInjector(InjectorConfig{})
				if bc.errors > 0 {
					if err := inj.Set(scenarios.FaultErrors, bc.errors); err != nil {
						b.Fatal(err)
					}
				}
				h = inj.Wrap(ok)
			}
			w := &nopWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}

// nopWriter is a ResponseWriter that keeps nothing.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header         { return w.h }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}
