package live

import (
	"net/url"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/internal/hostile"
	"github.com/cortex-tui/cortex-tui/source"
)

// hostileURL starts the catalog's behaviour name on loopback (closed when the test ends) and
// returns its URL.
func hostileURL(t *testing.T, name string) (*hostile.Server, *url.URL) {
	t.Helper()
	n, ok := hostile.Lookup(name)
	require.True(t, ok, name)
	s, err := hostile.Start(n.Serve)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	u, err := url.Parse(s.URL())
	require.NoError(t, err)
	return s, u
}

// peakHeap runs f while sampling the heap every millisecond, and returns the largest heap in
// use during f above the heap in use (after a collection) before it.
func peakHeap(f func()) uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapAlloc)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	if peak < base {
		return 0
	}
	return peak - base
}

// Asserts that live mode's clients and the fault proxy in front of a --target hold a bounded
// amount of memory per request, whatever the target sends: 200 requests at once, each sent by
// the run's own client code (cortexhttp over the pooled base transport, the body read up to
// the drain limit) through ExternalStack, against a target sending 8 MiB of headers per answer
// and one sending endless bodies. The heap above what it was before stays under 64 MiB: 200
// requests x (64 KiB of headers at the proxy or at the client, the proxy's 32 KiB copy buffer,
// four 4 KiB bufio buffers along the way, the answer's few KiB) is about 24 MiB live at once,
// up to twice that before the collector runs (GOGC=100), and some slack for the run's own.
// Without the limits the proxy read up to 10 MB of headers per answer (200 x 8 MiB = 1.6 GiB).
func TestHostileHeapBound(t *testing.T) {
	const concurrent, rounds = 200, 5
	const bound = 64 << 20
	for _, name := range []string{"headers-8m", "endless-body"} {
		t.Run(name, func(t *testing.T) {
			noLeaks(t)
			s, u := hostileURL(t, name)
			st := buildStack(t, ExternalStack(u, DefaultDrainLimit))
			scn := small()
			scn.Timeout, scn.Deadline = 20*time.Second, 30*time.Second
			cfg := Config{Scenario: scn, MaxInFlight: 2 * concurrent}.withDefaults()
			base := NewBaseTransport(concurrent)
			t.Cleanup(base.CloseIdleConnections)
			f := newFleet(4, st.URL, base, cfg, len(scn.Classes))
			_, err := f.build("none", 1, 0, nil)
			require.NoError(t, err)
			grew := peakHeap(func() {
				var wg sync.WaitGroup
				for i := range concurrent {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range rounds {
							f.do(0, i%4, 5)
						}
					}()
				}
				wg.Wait()
			})
			f.close()
			c := f.tally.take(make([]source.ClassTick, len(scn.Classes)))
			assert.Equal(t, concurrent*rounds, c.Attempts)
			// On a loaded machine (make test's -race) a few attempts run out of their timeout.
			if name == "endless-body" {
				assert.Equal(t, c.Attempts, c.Completed+c.Timeouts, "a body read up to the drain limit completes: %+v", c)
			} else {
				assert.Equal(t, c.Attempts, c.ServerErrors+c.Timeouts, "the proxy answers 502 for headers over its limit: %+v", c)
			}
			t.Logf("%s: heap grew by %.1f MiB at most over %d requests (%d at once); the target wrote %.1f MiB",
				name, float64(grew)/(1<<20), concurrent*rounds, concurrent, float64(s.Written())/(1<<20))
			assert.Less(t, grew, uint64(bound))
		})
	}
}
