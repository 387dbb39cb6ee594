package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

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
			tr := &http.Transport{MaxIdleConnsPerHost: 1024, DisableCompression: true}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			b.ReportAllocs()
			b.ResetTimer()
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
		})
	}
}
