package upstream

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Asserts that SetCapacity scales the effective workers to max(1, round(workers x factor)) and
// the capacity with them, refuses factors outside (0, 1], and really limits how many requests
// are served at once.
func TestSetCapacity(t *testing.T) {
	noLeaks(t)
	tg := start(t, testConfig(10, 100*time.Millisecond, 5))
	tests := []struct {
		factor float64
		eff    int
	}{{1, 10}, {0.5, 5}, {0.26, 3}, {0.01, 1}, {1, 10}}
	for _, tt := range tests {
		require.NoError(t, tg.SetCapacity(tt.factor))
		s := tg.Snapshot()
		assert.Equal(t, tt.eff, s.Effective, "factor %v", tt.factor)
		assert.Equal(t, tt.factor, s.CapacityFactor)
		assert.InDelta(t, float64(tt.eff)/0.1, s.Capacity, 1e-9)
	}
	for _, bad := range []float64{0, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		assert.Error(t, tg.SetCapacity(bad), "factor %v", bad)
	}
	assert.Equal(t, 1.0, tg.Snapshot().CapacityFactor, "a refused factor changes nothing")

	// Two of 10 workers: the third request waits in the queue.
	require.NoError(t, tg.SetCapacity(0.2))
	require.NoError(t, tg.SetLatency(time.Hour))
	c := client(t)
	var res []<-chan result
	for range 3 {
		res = append(res, async(context.Background(), c, tg.URL()))
	}
	s := eventually(t, tg, "three requests admitted", func(s Snapshot) bool { return s.Counters.Accepted == 3 })
	assert.Equal(t, 2, s.Busy)
	assert.Equal(t, 1, s.Queue)
	require.NoError(t, tg.Close())
	for _, r := range res {
		assert.Error(t, (<-r).err)
	}
}

// Asserts that SetLatency adds to the mean service time of requests served from then on
// (Server-Timing shows it, capacity drops accordingly), that 0 undoes it, and that a negative
// latency is refused.
func TestSetLatency(t *testing.T) {
	noLeaks(t)
	tg := start(t, testConfig(4, 10*time.Millisecond, 0))
	c := client(t)
	require.NoError(t, tg.SetLatency(40*time.Millisecond))
	s := tg.Snapshot()
	assert.Equal(t, 50*time.Millisecond, s.ServiceTime)
	assert.Equal(t, 40*time.Millisecond, s.Latency)
	assert.InDelta(t, 4/0.05, s.Capacity, 1e-9)
	assert.Equal(t, "svc;dur=50.000", get(context.Background(), c, tg.URL()).timing)

	require.NoError(t, tg.SetLatency(0))
	assert.InDelta(t, 4/0.01, tg.Snapshot().Capacity, 1e-9)
	assert.Equal(t, "svc;dur=10.000", get(context.Background(), c, tg.URL()).timing)
	assert.Error(t, tg.SetLatency(-time.Millisecond))
}

// Asserts that Down is an outage: the requests held get no answer, new connections are
// refused, and the target stays DOWN (Down again changes nothing) until Up, which listens
// again on the same port and warms up; Up fails with the reason while the port is taken, and
// the control loop listens again once it is free.
func TestDownAndUp(t *testing.T) {
	noLeaks(t)
	cfg := testConfig(1, 5*time.Millisecond, 1)
	cfg.WarmStart, cfg.Warmup = 0.5, 100*time.Millisecond
	tg := start(t, cfg)
	addr := tg.Addr()
	c := client(t)
	require.NoError(t, tg.Up(), "Up without an outage does nothing")

	require.NoError(t, tg.SetLatency(time.Hour))
	inService := async(context.Background(), c, tg.URL())
	eventually(t, tg, "one in service", func(s Snapshot) bool { return s.Busy == 1 })
	queued := async(context.Background(), c, tg.URL())
	eventually(t, tg, "one queued", func(s Snapshot) bool { return s.Queue == 1 })
	require.NoError(t, tg.SetLatency(0))

	require.NoError(t, tg.Down())
	assert.Error(t, (<-inService).err)
	assert.Error(t, (<-queued).err)
	s := tg.Snapshot()
	assert.Equal(t, StateDown, s.State)
	assert.True(t, s.Outage)
	assert.Equal(t, int64(2), s.Counters.Lost)
	assert.Zero(t, s.Capacity)
	assert.True(t, refused(addr))
	require.NoError(t, tg.Down())
	assert.Equal(t, StateDown, tg.Snapshot().State)

	require.NoError(t, tg.Up())
	s = tg.Snapshot()
	assert.Equal(t, StateWarming, s.State)
	assert.False(t, s.Outage)
	assert.Equal(t, 0.5, s.Warm)
	assert.Equal(t, addr, tg.Addr())
	assert.Equal(t, http.StatusOK, get(context.Background(), c, tg.URL()).status)

	// a second outage, whose port is taken when it ends: Up says why, the loop tries again
	require.NoError(t, tg.Down())
	squatter, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	err = tg.Up()
	require.Error(t, err)
	assert.Contains(t, err.Error(), addr)
	s = tg.Snapshot()
	assert.Equal(t, StateDown, s.State, "still down")
	assert.ErrorContains(t, s.Err, addr)
	require.NoError(t, squatter.Close())
	s = eventually(t, tg, "listening again once the port is free", func(s Snapshot) bool { return s.State != StateDown })
	assert.False(t, s.Outage)
	assert.NoError(t, s.Err)
	assert.Equal(t, addr, tg.Addr())
	assert.Equal(t, http.StatusOK, get(context.Background(), c, tg.URL()).status)
	require.NoError(t, tg.Up(), "the outage is over: Up does nothing")
	eventually(t, tg, "warmed up", func(s Snapshot) bool { return s.State == StateUp })
}

// unsized hides a reader's length, so the request is sent chunked.
type unsized struct{ io.Reader }

// Asserts that bodies up to MaxBodyBytes are read and served, and longer ones answered 413,
// whether their length is announced or not (a huge streamed body is not read to its end).
func TestBodyLimit(t *testing.T) {
	noLeaks(t)
	tg := start(t, testConfig(4, time.Millisecond, 0))
	max := tg.Config().MaxBodyBytes
	require.Equal(t, int64(64<<10), max)
	tests := []struct {
		name string
		body func() io.Reader
		want int
	}{
		{"no body", func() io.Reader { return nil }, http.StatusOK},
		{"at the limit", func() io.Reader { return strings.NewReader(strings.Repeat("x", int(max))) }, http.StatusOK},
		{"at the limit, chunked", func() io.Reader { return unsized{strings.NewReader(strings.Repeat("x", int(max)))} }, http.StatusOK},
		{"one byte over", func() io.Reader { return strings.NewReader(strings.Repeat("x", int(max)+1)) }, http.StatusRequestEntityTooLarge},
		{"one byte over, chunked", func() io.Reader { return unsized{strings.NewReader(strings.Repeat("x", int(max)+1))} }, http.StatusRequestEntityTooLarge},
		{"64 MiB streamed", func() io.Reader { return unsized{io.LimitReader(zeros{}, 64<<20)} }, http.StatusRequestEntityTooLarge},
	}
	c := client(t)
	tooLarge := int64(0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Post(tg.URL(), "application/octet-stream", tt.body())
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			assert.Equal(t, tt.want, resp.StatusCode)
			if tt.want == http.StatusRequestEntityTooLarge {
				tooLarge++
			}
			assert.Equal(t, tooLarge, tg.Snapshot().Counters.TooLarge)
		})
	}
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Asserts that Close answers nothing to the requests it holds, stops every goroutine (goleak),
// leaves the port closed, and that the target then refuses Start and the controls; Close is
// idempotent and fine before Start.
func TestClose(t *testing.T) {
	noLeaks(t)
	tg := start(t, testConfig(1, time.Millisecond, 2))
	addr := tg.Addr()
	c := client(t)
	require.NoError(t, tg.SetLatency(time.Hour))
	var res []<-chan result
	for range 3 {
		res = append(res, async(context.Background(), c, tg.URL()))
	}
	eventually(t, tg, "one in service, two queued", func(s Snapshot) bool { return s.Busy == 1 && s.Queue == 2 })

	require.NoError(t, tg.Close())
	for _, r := range res {
		assert.Error(t, (<-r).err)
	}
	select {
	case <-tg.Done():
	default:
		t.Fatal("Done is not closed after Close")
	}
	s := tg.Snapshot()
	assert.Equal(t, StateStopped, s.State)
	assert.Equal(t, int64(3), s.Counters.Lost)
	assert.True(t, refused(addr))
	require.NoError(t, tg.Close())
	assert.ErrorIs(t, tg.Start(context.Background()), ErrClosed)
	assert.ErrorIs(t, tg.Down(), ErrClosed)
	assert.ErrorIs(t, tg.Up(), ErrClosed)

	unstarted, err := New(DefaultConfig())
	require.NoError(t, err)
	assert.Error(t, unstarted.Down(), "not started")
	assert.Equal(t, "", unstarted.URL())
	assert.Equal(t, StateStopped, unstarted.Snapshot().State)
	require.NoError(t, unstarted.Close())
	<-unstarted.Done()
	assert.ErrorIs(t, unstarted.Start(context.Background()), ErrClosed)
}

// Asserts that cancelling Start's context stops the target like Close, and that a second Start
// and a Start on a port in use fail with the reason.
func TestContextAndStartErrors(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	tg, err := New(testConfig(1, time.Millisecond, 0))
	require.NoError(t, err)
	require.NoError(t, tg.Start(ctx))
	assert.Error(t, tg.Start(ctx), "starts once")
	require.NoError(t, tg.SetLatency(time.Hour))
	held := async(context.Background(), client(t), tg.URL())
	eventually(t, tg, "one in service", func(s Snapshot) bool { return s.Busy == 1 })

	cancel()
	select {
	case <-tg.Done():
	case <-time.After(wait):
		t.Fatal("the target did not stop when its context was cancelled")
	}
	assert.Error(t, (<-held).err)
	assert.True(t, refused(tg.Addr()))
	require.NoError(t, tg.Close())

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	cfg := testConfig(1, time.Millisecond, 0)
	cfg.Addr = taken.Addr().String()
	busy, err := New(cfg)
	require.NoError(t, err)
	err = busy.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), cfg.Addr)
	var opErr *net.OpError
	assert.True(t, errors.As(err, &opErr), "the listen error is wrapped")
	require.NoError(t, busy.Close())
}
