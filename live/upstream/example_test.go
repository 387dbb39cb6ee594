package upstream_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cortex-tui/cortex-tui/live/upstream"
	"github.com/cortex-tui/cortex-tui/scenarios"
)

// A target configured from a scenario's [service], started on a free port of 127.0.0.1,
// answering one request, then taken down by an outage and closed.
func Example() {
	scn, err := scenarios.Lookup("black-friday")
	if err != nil {
		panic(err)
	}
	cfg := upstream.FromScenario(scn.Service)
	cfg.ServiceTime, cfg.Sigma = 5*time.Millisecond, 0 // quick, for the example

	tg, err := upstream.New(cfg)
	if err != nil {
		panic(err)
	}
	if err := tg.Start(context.Background()); err != nil {
		panic(err)
	}
	defer tg.Close()

	resp, err := http.Get(tg.URL())
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Printf("%d %q %s\n", resp.StatusCode, body, resp.Header.Get("Server-Timing"))

	_ = tg.Down()
	_, err = http.Get(tg.URL())
	fmt.Println(tg.Snapshot().State, err != nil)
	// Output:
	// 200 "ok\n" svc;dur=5.000
	// DOWN true
}
