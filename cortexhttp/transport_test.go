package cortexhttp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts that each response status is recorded as its outcome class, that retryable classes
// are retried (here once, then the server answers 200) and that the others are not: the
// strategy's verdict for them is NOT_RETRYABLE and the caller gets the response itself.
func TestStatusOutcomes(t *testing.T) {
	tests := []struct {
		status int
		want   strategy.Outcome
		retry  bool
	}{
		{http.StatusOK, strategy.Success, false},
		{http.StatusNoContent, strategy.Success, false},
		{http.StatusNotModified, strategy.Success, false},
		{http.StatusInternalServerError, strategy.ServerError, true},
		{http.StatusBadGateway, strategy.ServerError, true},
		{http.StatusGatewayTimeout, strategy.ServerError, true},
		{599, strategy.ServerError, true},
		{http.StatusServiceUnavailable, strategy.FastFail, true},
		{http.StatusTooManyRequests, strategy.Throttled, true},
		{http.StatusRequestTimeout, strategy.Timeout, true},
		{http.StatusNotImplemented, strategy.BadRequest, false},
		{http.StatusBadRequest, strategy.BadRequest, false},
		{http.StatusUnauthorized, strategy.BadRequest, false},
		{http.StatusNotFound, strategy.BadRequest, false},
		{http.StatusConflict, strategy.BadRequest, false},
	}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.status)+"/"+strconv.Itoa(tc.status), func(t *testing.T) {
			var calls atomic.Int32
			srv, _ := server(t, statuses(&calls, tc.status))
			s := newSpy(0, 3)
			rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)

			resp, err := (&http.Client{Transport: rt}).Get(srv.URL)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			require.NoError(t, resp.Body.Close())

			require.NotEmpty(t, s.records)
			assert.Equal(t, tc.want, s.records[0].o, "outcome of the first attempt")
			as := seen.list()
			assert.Equal(t, tc.status, as[0].StatusCode)
			if tc.retry {
				assert.Equal(t, []strategy.Outcome{tc.want, strategy.Success}, s.outcomes())
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, "ok", string(body))
				assert.Equal(t, cortexhttp.EndRetry, as[0].End)
				assert.Equal(t, cortexhttp.EndSuccess, as[1].End)
				return
			}
			assert.Len(t, s.records, 1, "sent once")
			assert.Equal(t, tc.status, resp.StatusCode, "the caller gets the response itself")
			if tc.want == strategy.Success {
				assert.Empty(t, s.decides, "no decision after a success")
				assert.Equal(t, cortexhttp.EndSuccess, as[0].End)
			} else {
				require.Len(t, s.decides, 1)
				assert.Equal(t, engine.NotRetryable, as[0].Verdict.Action)
				assert.Equal(t, cortexhttp.EndRefused, as[0].End)
			}
		})
	}
}

// Asserts the classes of attempts that end in an error: a refused connection and a reset one
// are FastFail and retried, an attempt that runs out of AttemptTimeout is a Timeout and
// retried, and an error no retry can cure (an unsupported scheme, a certificate the client does
// not trust) is neither recorded nor retried and comes back as is.
func TestErrorOutcomes(t *testing.T) {
	var resets atomic.Int32
	resetSrv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		if resets.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.(*net.TCPConn).SetLinger(0) // close with a RST
				_ = conn.Close()
			}
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	var slow atomic.Int32
	slowSrv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		if slow.Add(1) == 1 {
			<-r.Context().Done() // never answers the first attempt
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes are expected
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)

	tests := []struct {
		name    string
		url     string
		timeout time.Duration
		want    []strategy.Outcome // told to Record: all of them, or the first and the last when the test allows more retries
		status  int                // final status, 0 for an error
		end     cortexhttp.End     // of the first attempt
	}{
		{"refused", refusedURL(t), 0, []strategy.Outcome{strategy.FastFail, strategy.FastFail}, 0, cortexhttp.EndRetry},
		{"reset", resetSrv.URL, 0, []strategy.Outcome{strategy.FastFail, strategy.Success}, 200, cortexhttp.EndRetry},
		{"attempt timeout", slowSrv.URL, 10 * time.Millisecond, []strategy.Outcome{strategy.Timeout, strategy.Success}, 200, cortexhttp.EndRetry},
		// A permanent error teaches the strategy nothing: it is told Canceled (its admission released).
		{"unsupported scheme", "ftp://127.0.0.1/x", 0, []strategy.Outcome{strategy.Canceled}, 0, cortexhttp.EndPermanent},
		{"untrusted certificate", tlsSrv.URL, 0, []strategy.Outcome{strategy.Canceled}, 0, cortexhttp.EndPermanent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSpy(0, 1)
			if tc.timeout > 0 {
				// A retry may also run out of a few ms on a loaded machine: allow a few.
				s.maxRetries = 5
			}
			cfg := cortexhttp.DefaultConfig()
			cfg.AttemptTimeout = tc.timeout
			rt, seen := newTransport(t, cfg, s)
			req, err := http.NewRequest(http.MethodGet, tc.url, nil)
			require.NoError(t, err)

			resp, err := rt.RoundTrip(req)

			got := s.outcomes()
			if tc.timeout > 0 && len(got) > 2 {
				t.Logf("%d attempts timed out", len(got)-1)
				got = []strategy.Outcome{got[0], got[len(got)-1]}
			}
			assert.Equal(t, tc.want, got)
			as := seen.list()
			require.NotEmpty(t, as)
			assert.Equal(t, tc.end, as[0].End)
			assert.Equal(t, tc.end != cortexhttp.EndPermanent, as[0].Recorded)
			if tc.status == 0 {
				require.Error(t, err)
				assert.Nil(t, resp)
				assert.Equal(t, as[len(as)-1].Err, err, "the base transport's error, unwrapped")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err, "the body outlives the attempt's context until Close")
			assert.Equal(t, "ok", string(body))
			require.NoError(t, resp.Body.Close())
		})
	}
}

// Asserts that ErrAttemptTimeout is what callers test a timeout with: errors.Is
// context.DeadlineExceeded, and a net.Error whose Timeout() is true, also through http.Client.
func TestErrAttemptTimeout(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	cfg := cortexhttp.DefaultConfig()
	cfg.AttemptTimeout = 2 * time.Millisecond
	rt, _ := newTransport(t, cfg, newSpy(0, 1))

	_, err := (&http.Client{Transport: rt}).Get(srv.URL)

	require.Error(t, err)
	assert.ErrorIs(t, err, cortexhttp.ErrAttemptTimeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
}

// Asserts that Retry-After is a floor on the strategy's delay in both of its forms, that the
// floor is capped by MaxRetryAfter, that a longer verdict delay is kept, and that
// MaxRetryAfter 0 ignores the header. The date form is measured from the injected clock, so
// a date a few ms ahead of it is an exact floor.
func TestRetryAfter(t *testing.T) {
	date := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		header     string
		clockAt    time.Time // zero: wall clock
		verdict    time.Duration
		maxRA      time.Duration
		wantRA     time.Duration
		wantDelay  time.Duration
		wantStatus int
	}{
		{"seconds, capped", "1", time.Time{}, 0, 4 * time.Millisecond, 4 * time.Millisecond, 4 * time.Millisecond, 200},
		{"seconds zero", "0", time.Time{}, time.Millisecond, time.Second, 0, time.Millisecond, 200},
		{"date, exact floor", date.Format(http.TimeFormat), date.Add(-3 * time.Millisecond), 0, time.Second, 3 * time.Millisecond, 3 * time.Millisecond, 200},
		{"date, verdict longer", date.Format(http.TimeFormat), date.Add(-time.Millisecond), 4 * time.Millisecond, time.Second, time.Millisecond, 4 * time.Millisecond, 200},
		{"date in the past", date.Format(http.TimeFormat), date.Add(time.Hour), time.Millisecond, time.Second, 0, time.Millisecond, 200},
		{"RFC 850 date", date.Format(time.RFC850), date.Add(-2 * time.Millisecond), 0, time.Second, 2 * time.Millisecond, 2 * time.Millisecond, 200},
		{"garbage ignored", "soon", time.Time{}, time.Millisecond, time.Second, 0, time.Millisecond, 200},
		{"negative ignored", "-5", time.Time{}, time.Millisecond, time.Second, 0, time.Millisecond, 200},
		{"ignored when MaxRetryAfter is 0", "1", time.Time{}, time.Millisecond, 0, 0, time.Millisecond, 200},
	}
	for _, tc := range tests {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(tc.name+"/"+strconv.Itoa(status), func(t *testing.T) {
				var calls atomic.Int32
				srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
					if calls.Add(1) == 1 {
						w.Header().Set("Retry-After", tc.header)
						w.WriteHeader(status)
						return
					}
					_, _ = w.Write([]byte("ok"))
				})
				cfg := cortexhttp.DefaultConfig()
				cfg.MaxRetryAfter = tc.maxRA
				if !tc.clockAt.IsZero() {
					cfg.Clock = engine.NewManualClock(tc.clockAt)
				}
				rt, seen := newTransport(t, cfg, newSpy(tc.verdict, 3))
				req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
				require.NoError(t, err)

				start := time.Now()
				resp, err := rt.RoundTrip(req)
				elapsed := time.Since(start)

				require.NoError(t, err)
				require.NoError(t, resp.Body.Close())
				assert.Equal(t, tc.wantStatus, resp.StatusCode)
				as := seen.list()
				require.Len(t, as, 2)
				assert.Equal(t, tc.wantRA, as[0].RetryAfter, "Retry-After read")
				assert.Equal(t, tc.wantDelay, as[0].Delay, "delay before the retry")
				assert.GreaterOrEqual(t, elapsed, tc.wantDelay, "the wait lasted the delay")
			})
		}
	}
}

// Asserts that the transport never sleeps past the request's deadline: when the retry would
// start after it, RoundTrip returns at once with the last response, body intact; when the
// deadline passes during an attempt, the attempt is recorded as a Timeout and RoundTrip
// returns the context's error promptly.
func TestDeadline(t *testing.T) {
	t.Run("delay past the deadline", func(t *testing.T) {
		srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "come back later", http.StatusServiceUnavailable)
		})
		s := newSpy(time.Millisecond, 3) // the floor of 30 s (the cap) decides
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // under the 30 s delay
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		start := time.Now()
		resp, err := rt.RoundTrip(req)
		elapsed := time.Since(start)

		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Equal(t, "come back later\n", string(body), "the last response, unread")
		assert.Less(t, elapsed, 10*time.Second, "did not wait for the deadline (a bound far from both, so that a loaded machine cannot fail it)")
		as := seen.list()
		require.Len(t, as, 1)
		assert.Equal(t, cortexhttp.EndDeadline, as[0].End)
		assert.True(t, as[0].Decided)
		assert.Equal(t, 0, rt.Pending())
	})

	t.Run("deadline during an attempt", func(t *testing.T) {
		srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		s := newSpy(0, 3)
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		start := time.Now()
		resp, err := rt.RoundTrip(req)
		elapsed := time.Since(start)

		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Nil(t, resp)
		assert.Less(t, elapsed, 10*time.Second, "returned after the deadline, not held by the attempt the server never answers")
		assert.Equal(t, []strategy.Outcome{strategy.Timeout}, s.outcomes(), "the client timed out")
		assert.Empty(t, s.decides, "no retry is possible past the deadline")
		as := seen.list()
		require.Len(t, as, 1)
		assert.Equal(t, cortexhttp.EndDeadline, as[0].End)
	})
}

// Asserts that a cancel stops the request at once: during the wait for a retry (a 1 h delay)
// RoundTrip returns the context's cause at the cancel (far from the hour, with room for a
// loaded machine), and the pending count goes back to 0;
// during an attempt the attempt is not recorded (it says nothing about the service).
func TestCancel(t *testing.T) {
	t.Run("while waiting for a retry", func(t *testing.T) {
		var calls atomic.Int32
		srv, _ := server(t, statuses(&calls, http.StatusInternalServerError))
		s := newSpy(time.Hour, 3)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var canceledAt atomic.Int64
		cfg := cortexhttp.DefaultConfig()
		cfg.OnAttempt = func(a cortexhttp.Attempt) {
			if a.End == cortexhttp.EndRetry {
				time.AfterFunc(2*time.Millisecond, func() {
					canceledAt.Store(time.Now().UnixNano())
					cancel()
				})
			}
		}
		rt, _ := newTransport(t, cfg, s)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		resp, err := rt.RoundTrip(req)
		returned := time.Now()

		require.ErrorIs(t, err, context.Canceled)
		assert.Nil(t, resp)
		lag := returned.Sub(time.Unix(0, canceledAt.Load()))
		t.Logf("returned %v after the cancel", lag)
		assert.Less(t, lag, 10*time.Second, "returned at the cancel, not after the hour's delay")
		assert.Equal(t, int32(1), calls.Load(), "the retry was never sent")
		assert.Equal(t, 0, rt.Pending())
		assert.Equal(t, []int{1, 0}, s.pendings, "SetPending saw the wait begin and end")
	})

	t.Run("during an attempt", func(t *testing.T) {
		srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		s := newSpy(0, 3)
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)
		time.AfterFunc(3*time.Millisecond, cancel)

		start := time.Now()
		_, err = rt.RoundTrip(req)

		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), 10*time.Second, "returned at the cancel, not held by the attempt the server never answers")
		assert.Equal(t, []strategy.Outcome{strategy.Canceled}, s.outcomes(), "a canceled attempt is not recorded: the strategy is told Canceled")
		assert.Empty(t, s.decides)
		as := seen.list()
		require.Len(t, as, 1)
		assert.Equal(t, cortexhttp.EndCanceled, as[0].End)
		assert.True(t, as[0].Sent)
		assert.False(t, as[0].Recorded)
	})
}

// Asserts that a body with GetBody (set by http.NewRequest for a bytes.Reader,
// strings.Reader or bytes.Buffer) arrives identical on every attempt, and that a body that
// cannot be replayed is sent once: the failure is recorded, no retry is asked for, and the
// caller gets the response.
func TestBodies(t *testing.T) {
	payload := bytes.Repeat([]byte("cortex "), 1000)
	tests := []struct {
		name     string
		body     func() io.Reader
		attempts int
		end      cortexhttp.End
	}{
		{"bytes.Reader", func() io.Reader { return bytes.NewReader(payload) }, 3, cortexhttp.EndSuccess},
		{"strings.Reader", func() io.Reader { return strings.NewReader(string(payload)) }, 3, cortexhttp.EndSuccess},
		{"bytes.Buffer", func() io.Reader { return bytes.NewBuffer(payload) }, 3, cortexhttp.EndSuccess},
		{"not replayable", func() io.Reader { return io.MultiReader(bytes.NewReader(payload)) }, 1, cortexhttp.EndBodyNotReplayable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got [][]byte
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				got = append(got, b)
				n := len(got)
				mu.Unlock()
				if n <= 2 {
					w.WriteHeader(http.StatusBadGateway)
					return
				}
				_, _ = w.Write([]byte("ok"))
			})
			s := newSpy(0, 3)
			rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
			req, err := http.NewRequest(http.MethodPost, srv.URL, tc.body())
			require.NoError(t, err)

			resp, err := rt.RoundTrip(req)

			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, got, tc.attempts)
			for i, b := range got {
				assert.Equal(t, payload, b, "body of attempt %d", i)
			}
			as := seen.list()
			assert.Equal(t, tc.end, as[len(as)-1].End)
			if tc.end == cortexhttp.EndBodyNotReplayable {
				assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
				assert.Equal(t, []strategy.Outcome{strategy.ServerError}, s.outcomes())
				assert.Empty(t, s.decides, "no verdict asked for a retry that cannot happen")
			}
		})
	}
}

// Asserts that the bodies of abandoned attempts are drained and closed, so that every attempt
// of a request travels on one connection; with draining off (DrainLimit 0) or a body longer
// than the limit, each retry needs a new connection.
func TestDrainReusesConnections(t *testing.T) {
	tests := []struct {
		name      string
		bodyLen   int
		limit     int64
		wantConns int32
	}{
		{"drained", 10 << 10, 64 << 10, 1},
		{"not drained", 10 << 10, 0, 3},
		{"longer than the limit", 10 << 10, 1 << 10, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv, conns := server(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) <= 2 {
					w.WriteHeader(http.StatusInternalServerError)
					_, _ = w.Write(bytes.Repeat([]byte{'x'}, tc.bodyLen))
					return
				}
				_, _ = w.Write([]byte("ok"))
			})
			cfg := cortexhttp.DefaultConfig()
			cfg.DrainLimit = tc.limit
			rt, _ := newTransport(t, cfg, newSpy(0, 3))
			req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
			require.NoError(t, err)

			resp, err := rt.RoundTrip(req)

			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, tc.wantConns, conns.Load(), "connections opened for 3 attempts")
		})
	}
}

// Asserts where a request's priority comes from: the context first, then the header (parsed
// safely: garbage ignored, out of range clamped), then DefaultPriority; and that the header is
// forwarded unchanged.
func TestPriority(t *testing.T) {
	tests := []struct {
		name   string
		ctx    int // -1: none
		header string
		want   int
	}{
		{"default", -1, "", 3},
		{"context", 9, "", 9},
		{"context clamped", 42, "", 10},
		{"header", -1, "7", 7},
		{"header with spaces", -1, " 2 ", 2},
		{"header clamped high", -1, "99", 10},
		{"header clamped low", -1, "-4", 0},
		{"header garbage", -1, "urgent", 3},
		{"header too long", -1, strings.Repeat("9", 40), 3},
		{"context wins", 1, "8", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var forwarded atomic.Value
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				forwarded.Store(r.Header.Get("X-Cortex-Priority"))
				w.WriteHeader(http.StatusBadGateway)
			})
			s := newSpy(0, 0) // decides once, no retry
			cfg := cortexhttp.DefaultConfig()
			cfg.DefaultPriority = 3
			rt, seen := newTransport(t, cfg, s)
			ctx := context.Background()
			if tc.ctx >= 0 {
				ctx = cortexhttp.WithPriority(ctx, tc.ctx)
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			require.NoError(t, err)
			if tc.header != "" {
				req.Header.Set("x-cortex-priority", tc.header)
			}

			resp, err := rt.RoundTrip(req)

			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			require.Len(t, s.admits, 1)
			require.Len(t, s.decides, 1)
			assert.Equal(t, tc.want, s.admits[0].prio, "priority given to Admit")
			assert.Equal(t, tc.want, s.decides[0].prio, "priority given to Decide")
			assert.Equal(t, tc.want, seen.list()[0].Priority)
			assert.Equal(t, strings.TrimSpace(tc.header), forwarded.Load(), "header forwarded unchanged")
		})
	}

	t.Run("custom header, none", func(t *testing.T) {
		p, ok := cortexhttp.PriorityFrom(context.Background())
		assert.False(t, ok)
		assert.Zero(t, p)
		for _, header := range []string{"Priority", ""} {
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {})
			s := newSpy(0, 0)
			cfg := cortexhttp.DefaultConfig()
			cfg.PriorityHeader = header
			rt, _ := newTransport(t, cfg, s)
			req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
			require.NoError(t, err)
			req.Header.Set("Priority", "8")
			req.Header.Set("X-Cortex-Priority", "1")
			resp, err := rt.RoundTrip(req)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			want := map[string]int{"Priority": 8, "": 5}[header]
			assert.Equal(t, want, s.admits[0].prio, "header %q", header)
		}
	})
}

// Asserts that an attempt the strategy's Admit refuses is not sent and fails locally with a
// *RefusedError wrapping ErrNotAdmitted that carries the Admission's action and reason: for the
// original, whose body is closed (a RoundTripper always closes it), and for a retry, whose
// error names the failure before it.
func TestNotAdmitted(t *testing.T) {
	t.Run("original", func(t *testing.T) {
		var calls atomic.Int32
		srv, _ := server(t, statuses(&calls))
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission { return strategy.Refuse(engine.CircuitOpen, "CIRCUIT_OPEN") }
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		body := &closeTracker{Reader: strings.NewReader("payload")}
		req, err := http.NewRequest(http.MethodPost, srv.URL, body)
		require.NoError(t, err)

		resp, err := rt.RoundTrip(req)

		require.ErrorIs(t, err, cortexhttp.ErrNotAdmitted)
		var refused *cortexhttp.RefusedError
		require.ErrorAs(t, err, &refused)
		assert.Equal(t, engine.CircuitOpen, refused.Action)
		assert.Equal(t, "CIRCUIT_OPEN", refused.Reason)
		assert.Equal(t, 0, refused.Retry)
		assert.Equal(t, "spy", refused.Strategy)
		assert.Contains(t, err.Error(), "spy strategy refused the request (priority 5): CIRCUIT_OPEN")
		assert.Nil(t, resp)
		assert.Zero(t, calls.Load(), "nothing was sent")
		assert.True(t, body.closed.Load(), "the request body was closed")
		assert.Empty(t, s.records)
		as := seen.list()
		require.Len(t, as, 1)
		assert.False(t, as[0].Sent)
		assert.False(t, as[0].Recorded)
		assert.Equal(t, cortexhttp.EndNotAdmitted, as[0].End)
		assert.Equal(t, "CIRCUIT_OPEN", as[0].Admission.Reason)
	})

	t.Run("retry", func(t *testing.T) {
		var calls atomic.Int32
		srv, _ := server(t, statuses(&calls, http.StatusServiceUnavailable))
		s := newSpy(0, 3)
		s.admit = func(_, retry int) strategy.Admission {
			if retry == 0 {
				return strategy.Admission{}
			}
			return strategy.Refuse(engine.Reject, "LIMIT_EXCEEDED")
		}
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		_, err = rt.RoundTrip(req)

		require.ErrorIs(t, err, cortexhttp.ErrNotAdmitted)
		var refused *cortexhttp.RefusedError
		require.ErrorAs(t, err, &refused)
		assert.Equal(t, engine.Reject, refused.Action)
		assert.Equal(t, 1, refused.Retry)
		assert.Equal(t, "status 503", refused.After)
		assert.Contains(t, err.Error(), "refused retry 1 (priority 5) after status 503: LIMIT_EXCEEDED")
		assert.Equal(t, int32(1), calls.Load())
		as := seen.list()
		require.Len(t, as, 2)
		assert.Equal(t, cortexhttp.EndRetry, as[0].End)
		assert.Equal(t, cortexhttp.EndNotAdmitted, as[1].End)
	})

	t.Run("through an http.Client", func(t *testing.T) {
		srv, _ := server(t, statuses(new(atomic.Int32)))
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission { return strategy.Refuse(engine.Reject, "SHED_LOW_PRIORITY") }
		rt, _ := newTransport(t, cortexhttp.DefaultConfig(), s)
		resp, err := (&http.Client{Transport: rt}).Get(srv.URL)
		if resp != nil {
			_ = resp.Body.Close()
		}
		var refused *cortexhttp.RefusedError
		require.ErrorAs(t, err, &refused, "errors.As finds it inside the client's *url.Error")
		assert.Equal(t, "SHED_LOW_PRIORITY", refused.Reason)
	})
}

// Asserts that a held attempt (Admission.Wait) is sent once Admit admits it after the wait,
// with each hold reported (EndHeld, its wait as Delay) and nothing recorded for it; that a hold
// that would end at or after the context's deadline fails the request at once with a
// *RefusedError carrying the wait; and that a context canceled during a hold ends it with its
// cause, nothing sent.
func TestHeld(t *testing.T) {
	t.Run("held, then admitted", func(t *testing.T) {
		var calls atomic.Int32
		srv, _ := server(t, statuses(&calls))
		s := newSpy(0, 3)
		holds := 2
		s.admit = func(int, int) strategy.Admission {
			if holds > 0 {
				holds--
				return strategy.Hold(5*time.Millisecond, "RATE_LIMITED")
			}
			return strategy.Admission{}
		}
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		began := time.Now()
		resp, err := rt.RoundTrip(req)
		require.NoError(t, err)
		_ = resp.Body.Close()

		assert.GreaterOrEqual(t, time.Since(began), 10*time.Millisecond, "both holds were slept")
		assert.Equal(t, int32(1), calls.Load())
		require.Len(t, s.admits, 3, "Admit asked again after each hold")
		require.Len(t, s.records, 1)
		as := seen.list()
		require.Len(t, as, 3)
		for _, a := range as[:2] {
			assert.Equal(t, cortexhttp.EndHeld, a.End)
			assert.Equal(t, 5*time.Millisecond, a.Delay)
			assert.Equal(t, "RATE_LIMITED", a.Admission.Reason)
			assert.False(t, a.Sent)
		}
		assert.Equal(t, cortexhttp.EndSuccess, as[2].End)
	})

	t.Run("held, admitted, failed and retried", func(t *testing.T) {
		var calls atomic.Int32
		srv, _ := server(t, statuses(&calls, http.StatusServiceUnavailable))
		s := newSpy(0, 3)
		held := false
		s.admit = func(int, int) strategy.Admission {
			if !held {
				held = true
				return strategy.Hold(time.Millisecond, "RATE_LIMITED")
			}
			return strategy.Admission{}
		}
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		resp, err := rt.RoundTrip(req)
		require.NoError(t, err)
		_ = resp.Body.Close()

		assert.Equal(t, http.StatusOK, resp.StatusCode, "the 503 after the hold was retried")
		assert.Equal(t, int32(2), calls.Load())
		var ends []cortexhttp.End
		for _, a := range seen.list() {
			ends = append(ends, a.End)
		}
		assert.Equal(t, []cortexhttp.End{cortexhttp.EndHeld, cortexhttp.EndRetry, cortexhttp.EndSuccess}, ends)
		assert.Zero(t, seen.list()[1].Admission, "an admitted attempt carries no admission")
	})

	t.Run("held past the deadline", func(t *testing.T) {
		var calls atomic.Int32
		srv, _ := server(t, statuses(&calls))
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission { return strategy.Hold(time.Hour, "RATE_LIMITED") }
		rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		began := time.Now()
		_, err = rt.RoundTrip(req)

		assert.Less(t, time.Since(began), 30*time.Second, "not waited for")
		var refused *cortexhttp.RefusedError
		require.ErrorAs(t, err, &refused)
		assert.Equal(t, engine.Reject, refused.Action)
		assert.Equal(t, time.Hour, refused.Wait)
		assert.Contains(t, err.Error(), "held 1h0m0s (RATE_LIMITED), past the deadline")
		assert.Zero(t, calls.Load())
		as := seen.list()
		require.Len(t, as, 1)
		assert.Equal(t, cortexhttp.EndNotAdmitted, as[0].End)
	})

	t.Run("canceled during a hold", func(t *testing.T) {
		var calls atomic.Int32
		srv, _ := server(t, statuses(&calls))
		s := newSpy(0, 3)
		s.admit = func(int, int) strategy.Admission { return strategy.Hold(time.Hour, "RATE_LIMITED") }
		rt, _ := newTransport(t, cortexhttp.DefaultConfig(), s)
		ctx, cancel := context.WithCancelCause(context.Background())
		stop := errors.New("caller went away")
		time.AfterFunc(20*time.Millisecond, func() { cancel(stop) })
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)

		_, err = rt.RoundTrip(req)

		assert.ErrorIs(t, err, stop)
		assert.Zero(t, calls.Load())
	})
}

// Asserts that Admit, Record and Decide see the request's deadline (the context's, on the
// strategy's clock: about the timeout after now), and none without one.
func TestDeadlineSeen(t *testing.T) {
	var calls atomic.Int32
	srv, _ := server(t, statuses(&calls, http.StatusServiceUnavailable))
	s := newSpy(0, 1)
	rt, _ := newTransport(t, cortexhttp.DefaultConfig(), s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	_ = resp.Body.Close()

	require.Len(t, s.admits, 2)
	for _, c := range append(s.admits, s.decides...) {
		left := c.deadline.Sub(c.now)
		assert.Greater(t, left, 9*time.Second)
		assert.LessOrEqual(t, left, 10*time.Second)
	}

	s2 := newSpy(0, 0)
	rt2, _ := newTransport(t, cortexhttp.DefaultConfig(), s2)
	req2, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	resp, err = rt2.RoundTrip(req2)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.NotEmpty(t, s2.admits)
	assert.Zero(t, s2.admits[0].deadline, "no deadline: 0")
}

// closeTracker is a request body that remembers being closed (it has no GetBody).
type closeTracker struct {
	io.Reader
	closed atomic.Bool
}

func (c *closeTracker) Close() error { c.closed.Store(true); return nil }

// Asserts that OnAttempt sees every attempt and decision in order, with its retry index,
// status, outcome, latency, verdict, delay and end, and that Pending is 1 while a request
// waits for its retry and 0 after.
func TestOnAttemptSeesEveryDecision(t *testing.T) {
	var calls atomic.Int32
	srv, _ := server(t, statuses(&calls, http.StatusInternalServerError, http.StatusTooManyRequests, http.StatusBadGateway))
	s := newSpy(time.Millisecond, 2)
	rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)
	req, err := http.NewRequestWithContext(cortexhttp.WithPriority(context.Background(), 4), http.MethodGet, srv.URL, nil)
	require.NoError(t, err)

	resp, err := rt.RoundTrip(req)

	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode, "the strategy stopped after 2 retries")
	as := seen.list()
	require.Len(t, as, 3)
	wantStatus := []int{500, 429, 502}
	wantOutcome := []strategy.Outcome{strategy.ServerError, strategy.Throttled, strategy.ServerError}
	wantEnd := []cortexhttp.End{cortexhttp.EndRetry, cortexhttp.EndRetry, cortexhttp.EndRefused}
	for i, a := range as {
		assert.Same(t, req, a.Request)
		assert.Equal(t, i, a.Retry)
		assert.Equal(t, 4, a.Priority)
		assert.True(t, a.Sent)
		assert.True(t, a.Recorded)
		assert.Equal(t, wantStatus[i], a.StatusCode)
		assert.Equal(t, wantOutcome[i], a.Outcome)
		assert.Positive(t, a.Latency)
		assert.True(t, a.Decided)
		assert.Equal(t, wantEnd[i], a.End)
		if a.End == cortexhttp.EndRetry {
			assert.Equal(t, engine.Retry, a.Verdict.Action)
			assert.Equal(t, time.Millisecond, a.Delay)
		}
	}
	assert.Equal(t, engine.MaxRetriesExceeded, as[2].Verdict.Action)
	assert.Zero(t, as[2].Delay)
	assert.Equal(t, []int{1, 0, 1, 0}, s.pendings)
	assert.Equal(t, 0, rt.Pending())
}

// Asserts that MaxRetries caps the retries whatever the strategy says, without asking it
// about the retry it could not make, and that MaxRetries 0 sends every request once.
func TestMaxRetries(t *testing.T) {
	for _, maxRetries := range []int{0, 1, 2} {
		t.Run(strconv.Itoa(maxRetries), func(t *testing.T) {
			var calls atomic.Int32
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(http.StatusInternalServerError)
			})
			s := newSpy(0, 100)
			cfg := cortexhttp.DefaultConfig()
			cfg.MaxRetries = maxRetries
			rt, seen := newTransport(t, cfg, s)
			req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
			require.NoError(t, err)

			resp, err := rt.RoundTrip(req)

			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, int32(maxRetries+1), calls.Load())
			assert.Len(t, s.decides, maxRetries)
			as := seen.list()
			assert.Equal(t, cortexhttp.EndMaxRetries, as[len(as)-1].End)
		})
	}
}

// Asserts that the Transport is safe for concurrent use: many goroutines share one, the
// strategy that is not safe for concurrent use (the spy) is never entered by two of them at
// once, and every attempt the server saw was recorded once. The same load runs on a CORTEX
// strategy, which is not locked. Run with -race.
func TestConcurrentUse(t *testing.T) {
	for _, name := range []string{"spy", "cortex"} {
		t.Run(name, func(t *testing.T) {
			var hits atomic.Int32
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1)%3 == 0 {
					w.WriteHeader(http.StatusInternalServerError)
					return
				}
				_, _ = io.Copy(io.Discard, r.Body)
				_, _ = w.Write([]byte("ok"))
			})
			var s *spy
			cfg := cortexhttp.DefaultConfig()
			if name == "spy" {
				s = newSpy(100*time.Microsecond, 3)
			} else {
				cfg.Strategy = fastCortex(t)
			}
			var recorded atomic.Int32
			cfg.OnAttempt = func(a cortexhttp.Attempt) { recorded.Add(1) }
			rt, _ := newTransport(t, cfg, s)
			client := &http.Client{Transport: rt}

			const goroutines, each = 16, 25
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range each {
						ctx := cortexhttp.WithPriority(context.Background(), (g+i)%11)
						req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("body"))
						if !assert.NoError(t, err) {
							return
						}
						resp, err := client.Do(req)
						if !assert.NoError(t, err) {
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						_ = resp.Body.Close()
					}
				})
			}
			wg.Wait()

			assert.Equal(t, hits.Load(), recorded.Load(), "one attempt reported per attempt served")
			assert.Equal(t, 0, rt.Pending())
			if s != nil {
				assert.False(t, s.overlapped.Load(), "the strategy was entered concurrently")
				assert.Len(t, s.records, int(hits.Load()))
				assert.Equal(t, 0, s.pendings[len(s.pendings)-1])
			}
		})
	}
}

// Asserts that New builds a CORTEX strategy by default (an EngineHolder, so a dashboard can
// read its engine) and keeps a strategy it is given.
func TestDefaultStrategy(t *testing.T) {
	rt, err := cortexhttp.New(cortexhttp.DefaultConfig())
	require.NoError(t, err)
	assert.Equal(t, "cortex", rt.Strategy().Name())
	_, ok := rt.Strategy().(strategy.EngineHolder)
	assert.True(t, ok)

	cfg := cortexhttp.DefaultConfig()
	cfg.Strategy = strategy.NewNaive()
	rt, err = cortexhttp.New(cfg)
	require.NoError(t, err)
	assert.Equal(t, "naive", rt.Strategy().Name())
}

// Asserts that New rejects every invalid field and names each one in a single error.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*cortexhttp.Config)
		wants []string
	}{
		{"defaults", func(*cortexhttp.Config) {}, nil},
		{"zero numbers", func(c *cortexhttp.Config) { *c = cortexhttp.Config{} }, nil},
		{"priority low", func(c *cortexhttp.Config) { c.DefaultPriority = -1 }, []string{"DefaultPriority"}},
		{"priority high", func(c *cortexhttp.Config) { c.DefaultPriority = 11 }, []string{"DefaultPriority"}},
		{"header", func(c *cortexhttp.Config) { c.PriorityHeader = "X Priority:" }, []string{"PriorityHeader"}},
		{"max retries", func(c *cortexhttp.Config) { c.MaxRetries = -1 }, []string{"MaxRetries"}},
		{"attempt timeout", func(c *cortexhttp.Config) { c.AttemptTimeout = -time.Second }, []string{"AttemptTimeout"}},
		{"max retry-after", func(c *cortexhttp.Config) { c.MaxRetryAfter = -1 }, []string{"MaxRetryAfter"}},
		{"drain limit", func(c *cortexhttp.Config) { c.DrainLimit = -1 }, []string{"DrainLimit"}},
		{"all at once", func(c *cortexhttp.Config) {
			c.DefaultPriority, c.MaxRetries, c.DrainLimit = 12, -3, -1
		}, []string{"DefaultPriority", "MaxRetries", "DrainLimit"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cortexhttp.DefaultConfig()
			tc.edit(&cfg)
			rt, err := cortexhttp.New(cfg)
			if len(tc.wants) == 0 {
				require.NoError(t, err)
				assert.NotNil(t, rt)
				return
			}
			require.Error(t, err)
			assert.Nil(t, rt)
			for _, w := range tc.wants {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, err.Error(), cfg.Validate().Error())
		})
	}
}

// Asserts that a response body whose attempt had its own timeout still reads after RoundTrip
// returns, and that closing it releases the attempt's context (the timer does not fire on a
// body already closed, and no goroutine is left: goleak checks at the end).
func TestAttemptTimeoutBodyClose(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })
	cfg := cortexhttp.DefaultConfig()
	cfg.AttemptTimeout = time.Second
	rt, _ := newTransport(t, cfg, newSpy(0, 3))
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)

	resp, err := rt.RoundTrip(req)

	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "ok", string(body))
	require.NoError(t, resp.Body.Close())
	assert.False(t, errors.Is(err, cortexhttp.ErrAttemptTimeout))
}

// Asserts that CloseIdleConnections reaches the base transport (http.Client's
// CloseIdleConnections calls it), and is a no-op for a base without it.
func TestCloseIdleConnections(t *testing.T) {
	base := &idleCloser{}
	cfg := cortexhttp.DefaultConfig()
	cfg.Base = base
	rt, err := cortexhttp.New(cfg)
	require.NoError(t, err)
	(&http.Client{Transport: rt}).CloseIdleConnections()
	assert.Equal(t, int32(1), base.closed.Load())

	cfg.Base = &stubRT{}
	rt, err = cortexhttp.New(cfg)
	require.NoError(t, err)
	rt.CloseIdleConnections()
}

// idleCloser is a base transport that counts CloseIdleConnections.
type idleCloser struct {
	stubRT
	closed atomic.Int32
}

func (c *idleCloser) CloseIdleConnections() { c.closed.Add(1) }

// Asserts that a GetBody that fails ends the request before its retry is sent, with GetBody's
// error, reported as an attempt not sent (EndBodyNotReplayable).
func TestGetBodyFails(t *testing.T) {
	var calls atomic.Int32
	srv, _ := server(t, statuses(&calls, http.StatusBadGateway))
	rt, seen := newTransport(t, cortexhttp.DefaultConfig(), newSpy(0, 3))
	req, err := http.NewRequest(http.MethodPut, srv.URL, strings.NewReader("payload"))
	require.NoError(t, err)
	gone := errors.New("the file was deleted")
	req.GetBody = func() (io.ReadCloser, error) { return nil, gone }

	resp, err := rt.RoundTrip(req)

	require.ErrorIs(t, err, gone)
	assert.Nil(t, resp)
	assert.Equal(t, int32(1), calls.Load(), "the retry was not sent")
	as := seen.list()
	require.Len(t, as, 2)
	assert.Equal(t, cortexhttp.EndRetry, as[0].End)
	assert.False(t, as[1].Sent)
	assert.Equal(t, cortexhttp.EndBodyNotReplayable, as[1].End)
	assert.ErrorIs(t, as[1].Err, gone)
}
