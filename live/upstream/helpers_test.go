package upstream

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// wait is how long a test waits for something that should happen at once (a state, a count):
// generous, for a loaded 2-core machine running -race.
const wait = 10 * time.Second

// poll is how often a test looks again.
const poll = 2 * time.Millisecond

// noLeaks checks, after the test's cleanups (which close its targets and clients), that no
// goroutine the test started is left. Call it first.
func noLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// testConfig is a small target on loopback: workers, a constant service time, a queue, no
// crash, a fast control loop.
func testConfig(workers int, serviceTime time.Duration, queue int) Config {
	c := DefaultConfig()
	c.Workers, c.ServiceTime, c.Sigma, c.QueueLimit = workers, serviceTime, 0, queue
	c.Tick = 10 * time.Millisecond
	return c
}

// start builds and starts a target, closed when the test ends.
func start(t *testing.T, cfg Config, opts ...Option) *Target {
	t.Helper()
	tg, err := New(cfg, opts...)
	require.NoError(t, err)
	require.NoError(t, tg.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, tg.Close()) })
	return tg
}

// client returns an HTTP client with its own connection pool, closed when the test ends.
func client(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// result is the outcome of one request: its status (0 if it got no answer) and error.
type result struct {
	status int
	timing string // Server-Timing header
	err    error
}

// get sends GET url with ctx and reads the whole answer.
func get(ctx context.Context, c *http.Client, url string) result {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return result{err: err}
	}
	resp, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return result{status: resp.StatusCode, timing: resp.Header.Get("Server-Timing"), err: err}
}

// async sends GET url in the background; the result arrives on the channel, which the test
// must drain (the request ends when it is answered, cancelled, or the target closes).
func async(ctx context.Context, c *http.Client, url string) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- get(ctx, c, url) }()
	return ch
}

// eventually waits until cond holds on the target's snapshot.
func eventually(t *testing.T, tg *Target, what string, cond func(Snapshot) bool) Snapshot {
	t.Helper()
	var s Snapshot
	require.Eventually(t, func() bool { s = tg.Snapshot(); return cond(s) }, wait, poll, "waiting for %s; last snapshot %+v", what, s)
	return s
}

// refused reports whether dialling addr is refused: nothing listens there.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// flood sends requests from n goroutines as fast as they are answered until stop is called,
// which waits for them.
func flood(c *http.Client, url string, n int) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if r := get(ctx, c, url); r.err != nil && !strings.Contains(r.err.Error(), "context canceled") {
					// refused or reset while down: do not spin hot
					select {
					case <-ctx.Done():
					case <-time.After(time.Millisecond):
					}
				}
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}
