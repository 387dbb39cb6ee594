package live

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// rawStack returns a stack builder sending to a TCP listener on loopback whose connections
// are handled by serve (a server that is not HTTP, or not a good one); the listener and every
// connection are closed with the stack.
func rawStack(t *testing.T, serve func(net.Conn)) StackBuilder {
	t.Helper()
	return func(context.Context) (*Stack, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		var mu sync.Mutex
		var conns []net.Conn
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
				wg.Add(1)
				go func() { defer wg.Done(); serve(c) }()
			}
		}()
		u, _ := url.Parse("http://" + ln.Addr().String() + "/")
		return &Stack{URL: u, Faults: newFakeFaults(), Close: func() error {
			_ = ln.Close()
			mu.Lock()
			for _, c := range conns {
				_ = c.Close()
			}
			mu.Unlock()
			wg.Wait()
			return nil
		}}, nil
	}
}

// readRequest reads one request's head from c.
func readRequest(c net.Conn) bool {
	_, err := http.ReadRequest(bufio.NewReader(c))
	return err == nil
}

// Asserts that hostile or dead targets are counted as failures of the right kind, never hang
// the run past its end, and leave no goroutine behind: a closed port (refused: fast fails), a
// server that accepts and never answers (timeouts), one that answers garbage (fast fails), and
// one whose body never ends (read up to the drain limit, then closed: completed).
func TestHostileTargets(t *testing.T) {
	noLeaks(t) // after every subtest
	cases := []struct {
		name  string
		stack func(t *testing.T) StackBuilder
		check func(t *testing.T, c source.Counts)
	}{
		{"refused", func(t *testing.T) StackBuilder {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			addr := ln.Addr().String()
			require.NoError(t, ln.Close())
			u, _ := url.Parse("http://" + addr + "/")
			return func(context.Context) (*Stack, error) { return &Stack{URL: u, Faults: newFakeFaults()}, nil }
		}, func(t *testing.T, c source.Counts) {
			assert.Equal(t, c.Attempts, c.FastFails)
			assert.Zero(t, c.Completed)
		}},
		{"never answers", func(t *testing.T) StackBuilder {
			return rawStack(t, func(c net.Conn) {
				readRequest(c)
				_, _ = c.Read(make([]byte, 1)) // until the client or the stack closes it
			})
		}, func(t *testing.T, c source.Counts) {
			assert.Equal(t, c.Attempts, c.Timeouts)
			assert.Zero(t, c.Completed)
		}},
		{"garbage", func(t *testing.T) StackBuilder {
			return rawStack(t, func(c net.Conn) {
				readRequest(c)
				_, _ = c.Write([]byte("SMTP ready\r\n\x00\xff garbage\r\n\r\n"))
				_ = c.Close()
			})
		}, func(t *testing.T, c source.Counts) {
			assert.Equal(t, c.Attempts, c.FastFails)
			assert.Zero(t, c.Completed)
		}},
		{"endless body", func(t *testing.T) StackBuilder {
			chunk := []byte(strings.Repeat("x", 32<<10))
			endless := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Length", "1073741824") // 1 GiB announced
				for {
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			})
			return handlerStack(t, endless, newFakeFaults())
		}, func(t *testing.T, c source.Counts) {
			assert.Equal(t, c.Originals, c.Completed)
			assert.Equal(t, c.Attempts, c.Successes)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			scn := small()
			scn.Duration, scn.Drain = 500*time.Millisecond, 300*time.Millisecond
			scn.Timeout, scn.Deadline = 5*time.Second, 10*time.Second
			if tc.name == "never answers" {
				scn.Timeout, scn.Deadline = 50*time.Millisecond, 200*time.Millisecond
			}
			clk := manual()
			r := newRun(t, Config{Scenario: scn, Strategy: "none", Clock: clk, DrainLimit: 64 << 10, Stack: tc.stack(t)})
			c := sum(stepAll(t, r, clk))
			require.Positive(t, c.Originals)
			assert.Equal(t, c.Originals, c.Attempts, "none sends each original once")
			assert.Equal(t, c.Originals, c.Completed+c.Abandoned, "every original ended")
			tc.check(t, c)
		})
	}
}

// Asserts that a run in real time (Start, the wall clock) stops all its traffic at the end of
// its duration: the last snapshot is Done, every original has ended, and after Close no
// goroutine, timer or connection of the run, its fleet or its embedded target is left.
func TestRealTimeRunEnds(t *testing.T) {
	noLeaks(t)
	scn := small()
	scn.Faults = nil
	r, err := New(Config{Scenario: scn, Strategy: "cortex", Duration: 400 * time.Millisecond,
		Stack: EmbeddedStack(ScaledTarget(scn.Service, 1, 1))})
	require.NoError(t, err)
	r.Start(context.Background())
	snaps := advanceToEnd(t, r)
	require.NoError(t, r.Close())
	require.NotEmpty(t, snaps)
	assert.True(t, snaps[len(snaps)-1].Done)
	assert.GreaterOrEqual(t, snaps[len(snaps)-1].T, 400*time.Millisecond)
	assert.LessOrEqual(t, snaps[len(snaps)-1].T, 400*time.Millisecond+min(scn.Deadline, EndGrace))
	c := sum(snaps)
	assert.Positive(t, c.Originals)
	assert.Equal(t, c.Originals, c.Completed+c.Abandoned, "every original ended by the last tick")
	assert.Equal(t, source.ServiceUp, snaps[len(snaps)-2].Service.State)
	assert.Equal(t, 20.0/0.005, snaps[len(snaps)-2].Service.Capacity)
}

// Asserts that Close in the middle of a run against a server that never answers returns and
// leaves nothing behind: every request alive is cancelled at once.
func TestCloseCancelsEverything(t *testing.T) {
	noLeaks(t)
	scn := small()
	scn.Timeout, scn.Deadline = time.Hour, time.Hour
	r, err := New(Config{Scenario: scn, Strategy: "naive", Stack: rawStack(t, func(c net.Conn) {
		readRequest(c)
		_, _ = c.Read(make([]byte, 1))
	})})
	require.NoError(t, err)
	r.Start(context.Background())
	deadline := time.Now().Add(wait)
	for len(r.fleet.slots) < 3 {
		require.True(t, time.Now().Before(deadline))
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, r.Close())
	assert.Nil(t, r.Advance(0))
	assert.True(t, r.Done())
}

// Asserts that when the embedded target cannot listen again after an outage (another process
// took its port meanwhile) the run says so in its event log, keeps running, and says so again
// when the port is free and the target listens again (its control loop retries).
func TestPortTakenAfterOutage(t *testing.T) {
	t.Parallel()
	scn := small()
	clk := manual()
	r := newRun(t, Config{Scenario: scn, Strategy: "none", Clock: clk, Stack: EmbeddedStack(ScaledTarget(scn.Service, 1, 1))})
	require.NoError(t, r.Control(source.Inject(scenarios.Fault{Kind: scenarios.FaultOutage})))
	clk.Advance(r.tick)
	r.Advance(0)
	thief, err := net.Listen("tcp", r.stack.URL.Host)
	require.NoError(t, err, "the target's port is free during the outage")
	require.NoError(t, r.Control(source.Clear(scenarios.FaultOutage)))
	clk.Advance(r.tick)
	texts := func(snaps []source.Snapshot) string {
		var b strings.Builder
		for _, s := range snaps {
			for _, e := range s.Events {
				b.WriteString(e.Text + "\n")
			}
		}
		return b.String()
	}
	assert.Contains(t, texts(r.Advance(0)), "the target cannot listen again")
	require.NoError(t, thief.Close())
	deadline := time.Now().Add(wait)
	for {
		require.True(t, time.Now().Before(deadline), "the target never listened again")
		clk.Advance(r.tick)
		if strings.Contains(texts(r.Advance(0)), "listening again") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Asserts that the crash event of a live run says what killed the embedded target, as the
// simulator's does: the utilisation over the last second, above crash_factor, and how long it
// had lasted (the target resets both clocks when it crashes; the event used to read the reset
// ones: "utilisation 0.0x for 0s").
func TestCrashEventSaysWhy(t *testing.T) {
	t.Parallel()
	scn := small()
	scn.Faults = nil
	scn.Classes = []scenarios.Class{{Name: "payment", Priority: 9, Rate: 300}}
	scn.Service = scenarios.Service{Workers: 2, ServiceTime: 20 * time.Millisecond, QueueLimit: 400, WarmStart: 0.3,
		RefusalCost: 0.1, CrashFactor: 1.5, CrashAfter: 300 * time.Millisecond, RestartDelay: 5 * time.Second}
	r, err := New(Config{Scenario: scn, Strategy: "none", Duration: 3 * time.Second,
		Stack: EmbeddedStack(ScaledTarget(scn.Service, 1, 1))})
	require.NoError(t, err)
	r.Start(context.Background())
	defer func() { require.NoError(t, r.Close()) }()
	deadline := time.Now().Add(wait)
	for !r.Done() {
		require.True(t, time.Now().Before(deadline))
		for _, s := range r.Advance(0) {
			for _, e := range s.Events {
				if e.Kind == source.EventService && e.Service.State == source.ServiceCrashed {
					assert.Greater(t, e.Service.Utilisation, 1.5, "above crash_factor")
					assert.GreaterOrEqual(t, e.Service.Overloaded, 300*time.Millisecond, "for crash_after")
					return
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the target never crashed")
}

// Asserts that a run of a given duration waits for the requests still alive at its end rather
// than cancelling them: against a service that answers every request in 250 ms, every original
// of a 500 ms run completes, the run ending once none is alive (live --headless --duration
// counted the last quarter second's originals as failures: "success rate 98.9%" with no fault).
func TestRunWaitsForRequestsAlive(t *testing.T) {
	noLeaks(t)
	scn := small()
	scn.Faults = nil
	slow := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { time.Sleep(250 * time.Millisecond) })
	r, err := New(Config{Scenario: scn, Strategy: "none", Duration: 500 * time.Millisecond, Stack: handlerStack(t, slow, newFakeFaults())})
	require.NoError(t, err)
	r.Start(context.Background())
	snaps := advanceToEnd(t, r)
	require.NoError(t, r.Close())
	c := sum(snaps)
	require.Positive(t, c.Originals)
	assert.Equal(t, c.Originals, c.Completed, "every original completed, none cancelled at the end")
	last := snaps[len(snaps)-1]
	assert.Greater(t, last.T, 500*time.Millisecond, "the run waited past its duration")
	assert.Less(t, last.T, 500*time.Millisecond+EndGrace, "and ended once none was alive")
}

// advanceToEnd advances a started run until it is done, within wait, and returns every snapshot
// it gave, the last one included.
func advanceToEnd(t *testing.T, r *Run) []source.Snapshot {
	t.Helper()
	var snaps []source.Snapshot
	deadline := time.Now().Add(wait)
	for !r.Done() {
		require.True(t, time.Now().Before(deadline))
		snaps = append(snaps, r.Advance(0)...)
		time.Sleep(10 * time.Millisecond)
	}
	return append(snaps, r.Advance(0)...)
}
