package cortexhttp_test

import (
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/internal/waittest"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// TestMain fails the package if any goroutine (a timer's, a connection's, a handler's)
// outlives the tests, and runs the parallel subtests four at a time (internal/waittest).
func TestMain(m *testing.M) { waittest.Main(m, 4) }

// spy is a strategy that retries every retryable failure after delay, up to maxRetries times,
// answers Admit what admit says (admits everything when nil) and keeps every call. It is not safe for
// concurrent use, on purpose: it is never locked, and it notices overlapping calls, so a test
// can prove that the transport serialises it (the race detector sees the rest).
type spy struct {
	delay      time.Duration
	maxRetries int
	admit      func(prio, retry int) strategy.Admission

	inside     atomic.Int32
	overlapped atomic.Bool

	admits   []call
	records  []record
	decides  []call
	pendings []int
}

var _ strategy.Strategy = (*spy)(nil)

type call struct {
	prio, retry int
	o           strategy.Outcome // Decide only
	now         strategy.Time
	deadline    strategy.Time
}

type record struct {
	o       strategy.Outcome
	latency time.Duration
	retry   int
	prio    int
}

func newSpy(delay time.Duration, maxRetries int) *spy {
	return &spy{delay: delay, maxRetries: maxRetries}
}

func (s *spy) enter() {
	if s.inside.Add(1) > 1 {
		s.overlapped.Store(true)
	}
}
func (s *spy) exit() { s.inside.Add(-1) }

func (*spy) Name() string { return "spy" }

func (s *spy) Admit(now strategy.Time, a strategy.Attempt) strategy.Admission {
	s.enter()
	defer s.exit()
	s.admits = append(s.admits, call{prio: a.Priority, retry: a.Retry, now: now, deadline: a.Deadline})
	if s.admit == nil {
		return strategy.Admission{}
	}
	return s.admit(a.Priority, a.Retry)
}

func (s *spy) Record(_ strategy.Time, a strategy.Attempt, o strategy.Outcome, latency time.Duration) {
	s.enter()
	defer s.exit()
	s.records = append(s.records, record{o, latency, a.Retry, a.Priority})
}

func (s *spy) Decide(now strategy.Time, a strategy.Attempt, o strategy.Outcome) strategy.Verdict {
	s.enter()
	defer s.exit()
	prio, retry := a.Priority, a.Retry
	s.decides = append(s.decides, call{prio, retry, o, now, a.Deadline})
	switch {
	case !o.Retryable():
		return strategy.Verdict{Action: engine.NotRetryable, Reason: engine.ReasonNotRetryable}
	case retry >= s.maxRetries:
		return strategy.Verdict{Action: engine.MaxRetriesExceeded, Reason: engine.ReasonMaxRetries}
	}
	return strategy.Verdict{Retry: true, Delay: s.delay, Action: engine.Retry, Reason: engine.ReasonRetry}
}

func (s *spy) SetPending(n int) {
	s.enter()
	defer s.exit()
	s.pendings = append(s.pendings, n)
}

// outcomes returns the outcomes recorded, in order.
func (s *spy) outcomes() []strategy.Outcome {
	var out []strategy.Outcome
	for _, r := range s.records {
		out = append(out, r.o)
	}
	return out
}

// attempts collects what OnAttempt receives; safe for concurrent use.
type attempts struct {
	mu  sync.Mutex
	all []cortexhttp.Attempt
}

func (a *attempts) add(x cortexhttp.Attempt) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.all = append(a.all, x)
}

func (a *attempts) list() []cortexhttp.Attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]cortexhttp.Attempt(nil), a.all...)
}

// newTransport builds a Transport on cfg with a base transport of its own (closed when the
// test ends, so no idle connection outlives it) and the spy s (when non-nil); OnAttempt is
// collected into the returned attempts unless cfg sets its own.
func newTransport(t *testing.T, cfg cortexhttp.Config, s *spy) (*cortexhttp.Transport, *attempts) {
	t.Helper()
	if cfg.Base == nil {
		base := &http.Transport{}
		t.Cleanup(base.CloseIdleConnections)
		cfg.Base = base
	}
	if s != nil {
		cfg.Strategy = s
	}
	seen := &attempts{}
	if cfg.OnAttempt == nil {
		cfg.OnAttempt = seen.add
	}
	rt, err := cortexhttp.New(cfg)
	require.NoError(t, err)
	return rt, seen
}

// server starts an httptest server on 127.0.0.1 with handler h, closed when the test ends, and
// counts the connections it accepts.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// statuses returns a handler that answers the given statuses in turn, then 200 "ok", and
// counts its calls.
func statuses(calls *atomic.Int32, codes ...int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if n <= len(codes) {
			w.WriteHeader(codes[n-1])
			return
		}
		_, _ = w.Write([]byte("ok"))
	}
}

// refusedURL returns a URL on 127.0.0.1 where nothing listens: a port just released.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
}

// fastCortex is a CORTEX strategy on the wall clock with a 100 µs backoff base, so that tests
// that retry through it take microseconds, not the default's half seconds.
func fastCortex(t *testing.T) *strategy.Cortex {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.BackoffBaseDelay = 100 * time.Microsecond
	cfg.Seed = 1
	eng, err := engine.New(cfg)
	require.NoError(t, err)
	s, err := strategy.NewCortex(eng)
	require.NoError(t, err)
	return s
}

// newRand is a seeded random source for the strategies built in tests.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
