package cortexhttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// BenchmarkRoundTrip measures what the transport adds to each attempt, in one run:
//
//   - httptest/bare and httptest/cortexhttp: a GET against an in-process httptest server on
//     127.0.0.1 through a bare http.Transport, then through cortexhttp (default CORTEX
//     strategy) over an identical http.Transport. The difference is the overhead, measured
//     over a ~30 µs round trip, so it is noisy: compare medians of several -count runs.
//   - httptest/paired: the same two, alternated request by request and timed one by one, so
//     that the machine's drift (other processes, CPU frequency) falls on both alike; it
//     reports the median of each side and of their paired differences, overhead-ns/attempt.
//   - stub/bare and stub/cortexhttp: the same through a base RoundTripper that answers from
//     memory without allocating, so ns/op and allocs/op of stub/cortexhttp are the transport's
//     own cost per successful attempt (CORTEX's Admit and Record included), free of the
//     network's noise. stub/locked is the same with a strategy that is not safe for concurrent
//     use (backoff), whose calls the transport serialises with a mutex.
//   - stub/retry: every request fails once (503) and is retried at once (naive strategy), so
//     ns/attempt and allocs/op show the retry path: Decide, draining, the request's copy.
func BenchmarkRoundTrip(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()

	b.Run("httptest/bare", func(b *testing.B) {
		base := &http.Transport{}
		defer base.CloseIdleConnections()
		benchRT(b, base, srv.URL, 1)
	})
	b.Run("httptest/cortexhttp", func(b *testing.B) {
		base := &http.Transport{}
		defer base.CloseIdleConnections()
		benchRT(b, mustTransport(b, base, nil), srv.URL, 1)
	})
	b.Run("httptest/paired", func(b *testing.B) {
		bareBase, cortexBase := &http.Transport{}, &http.Transport{}
		defer bareBase.CloseIdleConnections()
		defer cortexBase.CloseIdleConnections()
		benchPaired(b, bareBase, mustTransport(b, cortexBase, nil), srv.URL)
	})
	b.Run("stub/bare", func(b *testing.B) {
		benchRT(b, &stubRT{}, "http://stub.invalid/", 1)
	})
	b.Run("stub/cortexhttp", func(b *testing.B) {
		benchRT(b, mustTransport(b, &stubRT{}, nil), "http://stub.invalid/", 1)
	})
	b.Run("stub/locked", func(b *testing.B) {
		s, err := strategy.NewBackoff(newRand(), strategy.DefaultBackoffConfig())
		if err != nil {
			b.Fatal(err)
		}
		benchRT(b, mustTransport(b, &stubRT{}, s), "http://stub.invalid/", 1)
	})
	b.Run("stub/retry", func(b *testing.B) {
		benchRT(b, mustTransport(b, &stubRT{failEvery: 2}, strategy.NewNaive()), "http://stub.invalid/", 2)
	})
}

// benchRT sends b.N GET requests to url through rt, reading and closing each body, and
// reports the time per attempt (attempts per request: perReq).
func benchRT(b *testing.B, rt http.RoundTripper, url string, perReq int) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perReq), "ns/attempt")
}

// benchPaired alternates a request through bare and one through cortex, b.N times each, timing
// every one, and reports the median of each side and the median of the paired differences per
// attempt: medians, because a loaded machine stalls a few round trips by milliseconds, which
// would swamp a mean. It reports no allocations (its own samples would count; the other
// sub-benchmarks report them).
func benchPaired(b *testing.B, bare, cortex http.RoundTripper, url string) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	one := func(rt http.RoundTripper) time.Duration {
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return time.Since(start)
	}
	tBare, tCortex, diff := make([]time.Duration, b.N), make([]time.Duration, b.N), make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 { // alternate which goes first, so neither always follows the other
			tBare[i] = one(bare)
			tCortex[i] = one(cortex)
		} else {
			tCortex[i] = one(cortex)
			tBare[i] = one(bare)
		}
		diff[i] = tCortex[i] - tBare[i]
	}
	b.StopTimer()
	b.ReportMetric(float64(median(tBare)), "bare-ns/attempt")
	b.ReportMetric(float64(median(tCortex)), "cortexhttp-ns/attempt")
	b.ReportMetric(float64(median(diff)), "overhead-ns/attempt")
}

// median returns the median of d (sorting d).
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	if len(d) == 0 {
		return 0
	}
	return d[len(d)/2]
}

// mustTransport is a cortexhttp.Transport over base with strategy s (nil: the default CORTEX).
func mustTransport(b *testing.B, base http.RoundTripper, s strategy.Strategy) *cortexhttp.Transport {
	cfg := cortexhttp.DefaultConfig()
	cfg.Base = base
	cfg.Strategy = s
	rt, err := cortexhttp.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

// stubRT answers every request from memory, reusing one response and one body, so it
// allocates nothing; with failEvery n > 0 every n-th answer (the first of each n) is a 503.
// Not safe for concurrent use.
type stubRT struct {
	resp      http.Response
	body      stubBody
	failEvery int
	n         int
}

func (s *stubRT) RoundTrip(*http.Request) (*http.Response, error) {
	s.resp.StatusCode = http.StatusOK
	if s.failEvery > 0 {
		if s.n%s.failEvery == 0 {
			s.resp.StatusCode = http.StatusServiceUnavailable
		}
		s.n++
	}
	s.body.left = 2
	s.resp.Body = &s.body
	return &s.resp, nil
}

// stubBody reads "ok" and then io.EOF.
type stubBody struct{ left int }

func (b *stubBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	n := copy(p, "ok"[2-b.left:])
	b.left -= n
	return n, nil
}

func (*stubBody) Close() error { return nil }
