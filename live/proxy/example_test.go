package proxy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/cortex-tui/cortex-tui/live/proxy"
	"github.com/cortex-tui/cortex-tui/live/upstream"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// The proxy in front of the embedded target, with the hooks that let the capacity, latency
// and outage faults act on the target itself, as they do on the simulator's service. Each
// fault is set, seen by a real request, and cleared.
func Example() {
	cfg := upstream.DefaultConfig()
	cfg.ServiceTime, cfg.Sigma, cfg.Warmup = 5*time.Millisecond, 0, 0 // quick, for the example
	tg, err := upstream.New(cfg)
	if err != nil {
		panic(err)
	}
	if err := tg.Start(context.Background()); err != nil {
		panic(err)
	}
	defer tg.Close()

	tu, err := url.Parse(tg.URL())
	if err != nil {
		panic(err)
	}
	px, err := proxy.New(proxy.Config{
		Target:   tu,
		Capacity: func(f float64) { _ = tg.SetCapacity(f) },
		Latency:  func(d time.Duration) { _ = tg.SetLatency(d) },
		Outage: func(down bool) {
			if down {
				_ = tg.Down()
			} else {
				_ = tg.Up()
			}
		},
	})
	if err != nil {
		panic(err)
	}
	if err := px.Start(context.Background()); err != nil {
		panic(err)
	}
	defer px.Close()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	get := func() string {
		resp, err := c.Get(px.URL().String())
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return "connection refused"
		case err != nil:
			return err.Error()
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		s := resp.Status
		if f := resp.Header.Get(proxy.FaultHeader); f != "" {
			s += " [" + f + "]"
		}
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			s += " Retry-After: " + ra
		}
		return s
	}

	fmt.Println("no fault:    ", get())
	_ = px.Set(scenarios.FaultErrors, 1)
	fmt.Println("errors 100%: ", get())
	_ = px.Set(scenarios.FaultBadRequests, 1)
	fmt.Println("bad requests:", get())
	px.ClearAll()
	_ = px.Set(scenarios.FaultThrottle, 0.01) // one request every 100 s
	fmt.Println("throttle:    ", get(), "then", get())
	_ = px.Set(scenarios.FaultCapacity, 0.3)
	_ = px.Set(scenarios.FaultLatency, 0.02)
	fmt.Println("active:      ", px.Active())
	s := tg.Snapshot()
	fmt.Println("target:      ", s.Effective, "of", s.Workers, "workers,", s.ServiceTime, "service time")
	px.ClearAll()

	_ = px.Set(scenarios.FaultOutage, 0)
	fmt.Println("outage:      ", get(), "- target", tg.Snapshot().State)
	px.Clear(scenarios.FaultOutage)
	fmt.Println("cleared:     ", get(), "- target", tg.Snapshot().State)
	n := px.Counters()
	fmt.Println("counters:     requests", n.Requests, "forwarded", n.Forwarded, "errors", n.Errors,
		"bad", n.BadRequests, "throttled", n.Throttled, "outages", n.Outages)
	// Output:
	// no fault:     200 OK
	// errors 100%:  500 Internal Server Error [errors]
	// bad requests: 400 Bad Request [bad_requests]
	// throttle:     200 OK then 429 Too Many Requests [throttle] Retry-After: 100
	// active:       [latency +20ms throttle 0.01/s capacity x0.3]
	// target:       15 of 50 workers, 25ms service time
	// outage:       connection refused - target DOWN
	// cleared:      200 OK - target UP
	// counters:     requests 6 forwarded 4 errors 1 bad 1 throttled 1 outages 1
}
