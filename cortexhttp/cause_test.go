package cortexhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/internal/hostile"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts the cause of each status: none for 1xx, 2xx and the 3xx that are not redirects,
// redirect for the five http.Client follows, and the class of each failure.
func TestStatusCause(t *testing.T) {
	for code, want := range map[int]cortexhttp.Cause{
		100: cortexhttp.CauseNone, 200: cortexhttp.CauseNone, 204: cortexhttp.CauseNone,
		300: cortexhttp.CauseNone, 304: cortexhttp.CauseNone,
		301: cortexhttp.CauseRedirect, 302: cortexhttp.CauseRedirect, 303: cortexhttp.CauseRedirect,
		307: cortexhttp.CauseRedirect, 308: cortexhttp.CauseRedirect,
		400: cortexhttp.CauseClientError, 404: cortexhttp.CauseClientError, 408: cortexhttp.CauseTimeout,
		429: cortexhttp.CauseThrottled, 500: cortexhttp.CauseServerError, 501: cortexhttp.CauseServerError,
		503: cortexhttp.CauseUnavailable, 599: cortexhttp.CauseServerError, 999: cortexhttp.CauseServerError,
		0: cortexhttp.CauseServerError,
	} {
		assert.Equal(t, want, cortexhttp.StatusCause(code), code)
	}
}

// Asserts that a redirect is not followed by the transport and ends its request as
// EndRedirect, recorded as a Success (the service answered) and never retried; that
// http.Client, above the transport, follows it as a request of its own (two attempts, the
// second EndSuccess); and that a client that does not follow gets the 302 itself.
func TestRedirect(t *testing.T) {
	var calls atomic.Int32
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	s := newSpy(0, 3)
	rt, seen := newTransport(t, cortexhttp.DefaultConfig(), s)

	resp, err := (&http.Client{Transport: rt}).Get(srv.URL + "/old")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	as := seen.list()
	require.Len(t, as, 2)
	assert.Equal(t, cortexhttp.EndRedirect, as[0].End)
	assert.Equal(t, cortexhttp.CauseRedirect, as[0].Cause)
	assert.Equal(t, http.StatusFound, as[0].StatusCode)
	assert.Equal(t, cortexhttp.EndSuccess, as[1].End)
	assert.Equal(t, cortexhttp.CauseNone, as[1].Cause)
	assert.Equal(t, []strategy.Outcome{strategy.Success, strategy.Success}, s.outcomes())
	assert.Empty(t, s.decides, "a redirect is not a failure to decide on")

	noFollow := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noFollow.Get(srv.URL + "/old")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, int32(3), calls.Load())
}

// hostileCause is the cause an attempt against each behaviour of the hostile catalog meets
// (at its headers, then reading its body), through a transport limiting headers to 64 KiB as
// live mode's does, with an attempt timeout of 2 s. The slow behaviours may reach either.
var hostileCause = map[string]struct{ head, body []cortexhttp.Cause }{
	"silent":           {head: causes(cortexhttp.CauseTimeout)},
	"slow-headers":     {head: causes(cortexhttp.CauseTimeout)},
	"slow-body":        {body: causes(cortexhttp.CauseTimeout)},
	"headers-1m-slow":  {head: causes(cortexhttp.CauseOversize, cortexhttp.CauseTimeout)},
	"headers-2m":       {head: causes(cortexhttp.CauseOversize)},
	"headers-4m":       {head: causes(cortexhttp.CauseOversize)},
	"headers-8m":       {head: causes(cortexhttp.CauseOversize)},
	"huge-header-line": {head: causes(cortexhttp.CauseOversize)},
	"big-body":         {},
	"endless-body":     {},
	"garbage":          {head: causes(cortexhttp.CauseMalformed)},
	"http09":           {head: causes(cortexhttp.CauseMalformed)},
	"mid-close":        {head: causes(cortexhttp.CauseMalformed)},
	"close":            {head: causes(cortexhttp.CauseReset)},
	"reset":            {head: causes(cortexhttp.CauseReset)},
	"reset-on-accept":  {head: causes(cortexhttp.CauseReset)},
	"retry-after":      {head: causes(cortexhttp.CauseUnavailable)},
	"retry-after-date": {head: causes(cortexhttp.CauseThrottled)},
	"redirect-loop":    {head: causes(cortexhttp.CauseRedirect)},
	"redirect-away":    {head: causes(cortexhttp.CauseRedirect)},
	"ok":               {},
	"tls":              {head: causes(cortexhttp.CauseReset)}, // plain HTTP to a TLS server: it closes
	"bad-status-line":  {head: causes(cortexhttp.CauseMalformed)},
	"status-999":       {head: causes(cortexhttp.CauseServerError)},
	"no-version":       {head: causes(cortexhttp.CauseMalformed)},
	"folded-header":    {},
	"header-no-colon":  {head: causes(cortexhttp.CauseMalformed)},
	"nul-header":       {head: causes(cortexhttp.CauseMalformed)},
	"bad-chunk-size":   {body: causes(cortexhttp.CauseMalformed)},
	"chunk-overflow":   {body: causes(cortexhttp.CauseMalformed)},
	"chunk-no-end":     {body: causes(cortexhttp.CauseReset)},
	"cl-short":         {body: causes(cortexhttp.CauseReset)},
	"cl-long":          {},
	"cl-conflict":      {head: causes(cortexhttp.CauseMalformed)},
	"cl-negative":      {head: causes(cortexhttp.CauseMalformed)},
	"cl-huge":          {head: causes(cortexhttp.CauseMalformed)},
	"te-and-cl":        {},
	"bad-te":           {head: causes(cortexhttp.CauseMalformed)},
	"1xx-flood":        {head: causes(cortexhttp.CauseOversize, cortexhttp.CauseTimeout)},
	"lf-only":          {},
	"empty-status":     {head: causes(cortexhttp.CauseMalformed)},
}

func causes(c ...cortexhttp.Cause) []cortexhttp.Cause { return c }

// Asserts that every behaviour of the hostile catalog (the table of malformed answers among
// them) gives an attempt through the transport a cause: no panic, the cause of its headers in
// Attempt.Cause (CauseNone when the head is a valid answer), and ErrorCause naming what goes
// wrong reading its body (a chunk size that is not hexadecimal or overflows is malformed, a
// body cut short a reset). The table covers the whole catalog. The behaviours run in parallel
// (those that hold their answer each wait out the attempt's 2 s); an attempt whose cause may be
// a timeout has those 2 s, the others 10 s (for a loaded machine: a timeout would be the wrong
// cause).
func TestHostileCauses(t *testing.T) {
	for _, n := range hostile.Catalog {
		want, ok := hostileCause[n.Name]
		require.True(t, ok, "no expected cause for %s", n.Name)
		t.Run(n.Name, func(t *testing.T) {
			t.Parallel()
			timeout := 10 * time.Second
			if slices.Contains(want.head, cortexhttp.CauseTimeout) || slices.Contains(want.body, cortexhttp.CauseTimeout) {
				timeout = 2 * time.Second
			}
			s, err := hostile.Start(n.Serve)
			require.NoError(t, err)
			defer s.Close()
			base := &http.Transport{MaxResponseHeaderBytes: 64 << 10, DisableCompression: true}
			defer base.CloseIdleConnections()
			cfg := cortexhttp.DefaultConfig()
			cfg.Base, cfg.MaxRetries, cfg.AttemptTimeout = base, 0, timeout
			rt, seen := newTransport(t, cfg, newSpy(0, 0))
			req, err := http.NewRequest(http.MethodGet, s.URL(), nil)
			require.NoError(t, err)

			resp, err := rt.RoundTrip(req)

			as := seen.list()
			require.Len(t, as, 1)
			head, body := as[0].Cause, cortexhttp.CauseNone
			if err == nil {
				_, rerr := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				body = cortexhttp.ErrorCause(rerr)
				require.NoError(t, resp.Body.Close())
			}
			assertCause(t, want.head, head, "head: %v", as[0].Err)
			assertCause(t, want.body, body, "body")
		})
	}
}

// assertCause asserts that got is one of want (CauseNone when want is empty).
func assertCause(t *testing.T, want []cortexhttp.Cause, got cortexhttp.Cause, msg string, args ...any) {
	t.Helper()
	if len(want) == 0 {
		want = causes(cortexhttp.CauseNone)
	}
	assert.Contains(t, want, got, append([]any{msg}, args...)...)
}

// Asserts ErrorCause on the errors net/http and the network give that no server sends.
func TestErrorCause(t *testing.T) {
	_, err := http.Get("ftp://127.0.0.1/") // the client's own refusal
	assert.Equal(t, cortexhttp.CauseRequest, cortexhttp.ErrorCause(err))
	_, err = (&http.Client{Transport: &http.Transport{}}).Get("http://no-such-host.invalid/")
	assert.Equal(t, cortexhttp.CauseUnreachable, cortexhttp.ErrorCause(err))
	_, err = http.Get(refusedURL(t))
	assert.Equal(t, cortexhttp.CauseRefused, cortexhttp.ErrorCause(err))
	assert.Equal(t, cortexhttp.CauseTimeout, cortexhttp.ErrorCause(context.DeadlineExceeded))
	assert.Equal(t, cortexhttp.CauseTimeout, cortexhttp.ErrorCause(cortexhttp.ErrAttemptTimeout))
	assert.Equal(t, cortexhttp.CauseReset, cortexhttp.ErrorCause(io.ErrUnexpectedEOF))
	assert.Equal(t, cortexhttp.CauseOther, cortexhttp.ErrorCause(errors.New("something else")))
	assert.Equal(t, cortexhttp.CauseNone, cortexhttp.ErrorCause(nil))
}
