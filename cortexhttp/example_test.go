package cortexhttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// A service that fails twice with 503 and then answers: the CORTEX strategy retries both
// failures, and OnAttempt shows every attempt and its decision. The engine runs in
// deterministic mode on a manual clock (its delays are the midpoints of their ranges) with a
// 1 ms backoff base, so the output is the same on every run; in production
// cortexhttp.DefaultConfig() is all it takes.
//
// The delays are the midpoints of [0, 1ms * 2^retry * (1 + 10*CPS)]. After the first 503 the
// failure rate F is 1, so CPS = 0.30 (F's weight) and the delay 1ms * 4 / 2 = 2ms; after the
// second, the retry already taken has burnt one of the 500 budget tokens (signal B = 0.002,
// weight 0.15), so CPS = 0.3003 and the delay 2ms * 4.003 / 2 = 4.003ms.
func Example() {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()

	ecfg := engine.DefaultConfig()
	ecfg.Deterministic = true
	ecfg.Seed = 1
	ecfg.BackoffBaseDelay = time.Millisecond
	ecfg.Clock = engine.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	eng, err := engine.New(ecfg)
	if err != nil {
		panic(err)
	}
	cortex, err := strategy.NewCortex(eng)
	if err != nil {
		panic(err)
	}

	cfg := cortexhttp.DefaultConfig()
	cfg.Strategy = cortex
	cfg.OnAttempt = func(a cortexhttp.Attempt) {
		fmt.Printf("attempt %d: status %d", a.Retry, a.StatusCode)
		if a.Decided {
			fmt.Printf(", %s %s", a.Verdict.Action, a.Verdict.Reason)
		}
		if a.End == cortexhttp.EndRetry {
			fmt.Printf(", retry in %v\n", a.Delay)
		} else {
			fmt.Printf(", %s\n", a.End)
		}
	}
	rt, err := cortexhttp.New(cfg)
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: rt}
	defer client.CloseIdleConnections()

	req, err := http.NewRequestWithContext(cortexhttp.WithPriority(context.Background(), 9), http.MethodGet, srv.URL, nil)
	if err != nil {
		panic(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body))
	// Output:
	// attempt 0: status 503, RETRY RETRY, retry in 2ms
	// attempt 1: status 503, RETRY RETRY, retry in 4.003ms
	// attempt 2: status 200, SUCCESS
	// 200 OK hello
}

// A service in front of a dependency that is down answers its own callers 503 at once once the
// client's strategy refuses locally: here the Hystrix breaker, opened by 20 failures in a row.
// The handler finds the *RefusedError with errors.As (through the *url.Error of http.Client)
// and answers with its reason, without a request to the dependency.
func ExampleRefusedError() {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer down.Close()

	breaker, err := strategy.New("breaker", strategy.Env{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		panic(err)
	}
	cfg := cortexhttp.DefaultConfig()
	cfg.Strategy = breaker
	cfg.MaxRetries = 0
	rt, err := cortexhttp.New(cfg)
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: rt}
	defer client.CloseIdleConnections()

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := client.Get(down.URL)
		var refused *cortexhttp.RefusedError
		switch {
		case errors.As(err, &refused):
			w.Header().Set("Retry-After", "5")
			http.Error(w, "refused locally: "+refused.Reason, http.StatusServiceUnavailable)
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadGateway)
		default:
			resp.Body.Close()
			http.Error(w, "dependency failed", http.StatusBadGateway)
		}
	})
	for i := range 21 {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if i == 0 || i >= 19 {
			fmt.Print(i+1, ": ", rec.Code, " ", rec.Body.String())
		}
	}
	// Output:
	// 1: 502 dependency failed
	// 20: 502 dependency failed
	// 21: 503 refused locally: CIRCUIT_OPEN
}
