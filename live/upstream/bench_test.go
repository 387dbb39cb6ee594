package upstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// BenchmarkServe measures the requests per second the target answers on loopback with a
// near-zero service time (1 µs, still realised by a timer), 256 workers and 16 concurrent
// keep-alive clients (8 per GOMAXPROCS on 2 cores), so that what is measured is the cost of
// HTTP and of the target's admission, timer and answer, not its capacity. The clients run in
// the same process and share the CPU with the target, as live mode's load generator will.
// "bare" is the baseline: a net/http server on loopback whose handler answers "ok" at once.
//
//	go test -run '^$' -bench Serve -benchtime 5s ./live/upstream/
func BenchmarkServe(b *testing.B) {
	b.Run("target", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.Workers, cfg.ServiceTime, cfg.Sigma, cfg.QueueLimit = 256, time.Microsecond, 0, 1024
		tg, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := tg.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		defer tg.Close()
		benchGet(b, tg.URL())
	})
	b.Run("bare", func(b *testing.B) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write(okBody)
		})}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		benchGet(b, "http://"+ln.Addr().String())
	})
}

// benchGet sends GET url from 8 goroutines per GOMAXPROCS and reports requests/s.
func benchGet(b *testing.B, url string) {
	tr := &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Get(url)
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
