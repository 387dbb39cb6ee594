package cortexhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cortex-tui/cortex-tui/internal/driver"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Transport is a retrying http.RoundTripper: every attempt is admitted, recorded and, when it
// fails, decided on by a retry strategy (see the package doc). Build it with New. It is safe
// for concurrent use; calls into a strategy that is not are serialised.
type Transport struct {
	base http.RoundTripper
	d    *driver.Driver // the strategy, its lock, its clock and epoch, the pending retries

	defaultPriority int
	header          string // canonical header name, "" for none
	maxRetries      int
	attemptTimeout  time.Duration
	maxRetryAfter   time.Duration
	drainLimit      int64
	onAttempt       func(Attempt)
}

// New returns a Transport configured by cfg, or an error naming every invalid field (see
// Config.Validate) or why the default strategy could not be built.
func New(cfg Config) (*Transport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := driver.New("cortexhttp", cfg.Strategy, cfg.Clock, cfg.ConcurrentStrategy, cfg.Engine)
	if err != nil {
		return nil, err
	}
	t := &Transport{
		base:            cfg.Base,
		d:               d,
		defaultPriority: cfg.DefaultPriority,
		maxRetries:      cfg.MaxRetries,
		attemptTimeout:  cfg.AttemptTimeout,
		maxRetryAfter:   cfg.MaxRetryAfter,
		drainLimit:      cfg.DrainLimit,
		onAttempt:       cfg.OnAttempt,
	}
	if cfg.PriorityHeader != "" {
		t.header = http.CanonicalHeaderKey(cfg.PriorityHeader)
	}
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	return t, nil
}

// Strategy returns the transport's strategy, for reading its state (a CORTEX strategy
// implements strategy.EngineHolder, whose engine's Snapshot is safe to call at any time). A
// strategy that is not safe for concurrent use must not be called while requests are in flight.
func (t *Transport) Strategy() strategy.Strategy { return t.d.Strategy() }

// Pending returns the number of requests waiting for a retry (sleeping on a delay > 0; a
// retry sent at once never waits); it is what the strategy's SetPending is told. Safe for
// concurrent use.
func (t *Transport) Pending() int { return t.d.Pending() }

// CloseIdleConnections closes the idle connections of the base transport, if it has any
// (http.Client.CloseIdleConnections calls it).
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip sends req, retrying it as the strategy decides (see the package doc). It returns
// the last attempt's response (any status) or error; a *RefusedError (wrapping ErrNotAdmitted)
// when the strategy refused an attempt, or held it past the request's deadline; the context's
// cause when the context was canceled while waiting for a retry or a held attempt. It never
// modifies req: retries and per-attempt timeouts use shallow copies.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	prio := t.priority(req)
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	var prev Attempt // the attempt before this one, for the error of a refused Admit
	for retry := 0; ; retry++ {
		a := Attempt{Request: req, Retry: retry, Priority: prio}
		sa, start, now, err := t.admitted(ctx, req, &a, &prev)
		if err != nil {
			return nil, err
		}
		out, cancel, err := t.prepare(ctx, req, retry)
		if err != nil { // GetBody failed: the body cannot be sent again after all
			t.release(now, sa)
			a.Err, a.End = err, EndBodyNotReplayable
			t.emit(&a)
			return nil, err
		}
		resp, err := t.base.RoundTrip(out)
		a.Sent, a.Err = true, err
		a.Latency, now = t.d.End(start)

		if err != nil {
			if cerr := ctx.Err(); cerr != nil { // the caller's deadline or cancel ended it
				a.End = EndCanceled
				if cerr == context.DeadlineExceeded {
					a.Outcome, a.End, a.Cause = strategy.Timeout, EndDeadline, CauseTimeout
					t.record(now, sa, &a)
				} else {
					t.release(now, sa)
				}
				return t.finish(&a, nil, err, cancel)
			}
			var permanent bool
			expired := cancel != nil && out.Context().Err() != nil
			a.Outcome, permanent = classifyError(err, expired)
			if a.Cause = ErrorCause(err); expired {
				a.Cause = CauseTimeout
			}
			if permanent {
				t.release(now, sa)
				a.End = EndPermanent
				return t.finish(&a, nil, err, cancel)
			}
		} else {
			a.StatusCode = resp.StatusCode
			a.Outcome, a.Cause = classifyStatus(resp.StatusCode), StatusCause(resp.StatusCode)
		}
		t.record(now, sa, &a)
		if a.Outcome == strategy.Success {
			a.End = EndSuccess
			if a.Cause == CauseRedirect {
				a.End = EndRedirect
			}
			return t.finish(&a, resp, nil, cancel)
		}

		t.decide(ctx, now, sa, resp, &a, replayable)
		if a.End != EndRetry {
			return t.finish(&a, resp, err, cancel)
		}
		if resp != nil {
			t.drain(resp.Body)
		}
		if cancel != nil {
			cancel()
		}
		t.emit(&a)
		if err := t.d.Wait(ctx, a.Delay); err != nil {
			return nil, err
		}
		prev = a
	}
}

// prepare returns the request to send as attempt retry, and the cancel of its own context when
// Config.AttemptTimeout gives it one. The original is req itself unless it needs a context of
// its own; a retry is a shallow copy of req with a fresh body from GetBody.
func (t *Transport) prepare(ctx context.Context, req *http.Request, retry int) (*http.Request, context.CancelFunc, error) {
	var cancel context.CancelFunc
	if t.attemptTimeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, t.attemptTimeout, ErrAttemptTimeout)
	}
	if retry == 0 {
		if cancel == nil {
			return req, nil, nil
		}
		return req.WithContext(ctx), cancel, nil
	}
	out := req.WithContext(ctx) // a copy: the base transport may still hold the previous one
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			if cancel != nil {
				cancel()
			}
			return nil, nil, fmt.Errorf("cortexhttp: rewinding the request body for retry %d: %w", retry, err)
		}
		out.Body = body
	}
	return out, cancel, nil
}

// decide fills in what follows the failed attempt a: the strategy's verdict when a retry is
// possible at all, the delay (raised to the Retry-After floor), and a.End. The request's
// context, the body, the retry cap and the deadline can each end the request.
func (t *Transport) decide(ctx context.Context, now strategy.Time, sa strategy.Attempt, resp *http.Response, a *Attempt, replayable bool) {
	if cerr := ctx.Err(); cerr != nil { // a response came back, but the caller is gone
		a.End = EndCanceled
		if cerr == context.DeadlineExceeded {
			a.End = EndDeadline
		}
		return
	}
	if a.Outcome.Retryable() {
		switch {
		case !replayable:
			a.End = EndBodyNotReplayable
			return
		case a.Retry >= t.maxRetries:
			a.End = EndMaxRetries
			return
		}
	}
	a.Decided = true
	a.Verdict = t.d.Decide(now, sa, a.Outcome)
	if !a.Verdict.Retry {
		a.End = EndRefused
		return
	}
	delay := max(a.Verdict.Delay, 0)
	if resp != nil && t.maxRetryAfter > 0 {
		if ra, ok := retryAfter(resp.Header, t.d.Clock()); ok {
			a.RetryAfter = min(ra, t.maxRetryAfter)
			delay = max(delay, a.RetryAfter)
		}
	}
	if !driver.Fits(ctx, delay) {
		a.End = EndDeadline // the retry would start at or after the deadline: give up now
		return
	}
	a.Delay = delay
}

// finish reports attempt a and returns what the request ends with: resp, whose body releases
// the attempt's context when closed, or err, the attempt's context released at once.
func (t *Transport) finish(a *Attempt, resp *http.Response, err error, cancel context.CancelFunc) (*http.Response, error) {
	t.emit(a)
	if cancel != nil {
		if resp != nil {
			resp.Body = withCancel(resp.Body, cancel)
		} else {
			cancel()
		}
	}
	if resp != nil {
		return resp, nil
	}
	return nil, err
}

// record tells the strategy a's outcome and latency.
func (t *Transport) record(now strategy.Time, sa strategy.Attempt, a *Attempt) {
	a.Recorded = true
	t.d.Record(now, sa, a.Outcome, a.Latency)
}

// release tells the strategy that the attempt it admitted ended without an outcome
// (strategy.Canceled): a canceled context, a permanent error, a body that could not be sent
// again. The strategy only releases what Admit took; the Attempt is not Recorded.
func (t *Transport) release(now strategy.Time, sa strategy.Attempt) { t.d.Release(now, sa) }

// emit hands a to Config.OnAttempt, if set.
func (t *Transport) emit(a *Attempt) {
	if t.onAttempt != nil {
		t.onAttempt(*a)
	}
}

// drain reads up to DrainLimit bytes of an abandoned response body and closes it, so that the
// connection can carry the next request. Read errors do not matter: the body is dropped.
func (t *Transport) drain(body io.ReadCloser) {
	if t.drainLimit > 0 {
		_, _ = io.Copy(io.Discard, io.LimitReader(body, t.drainLimit))
	}
	_ = body.Close()
}

// withCancel wraps a response body so that closing it releases the attempt's context. A body
// that can also be written (a 101 Switching Protocols connection) stays writable.
func withCancel(body io.ReadCloser, cancel context.CancelFunc) io.ReadCloser {
	if rwc, ok := body.(io.ReadWriteCloser); ok {
		return &cancelReadWriteBody{cancelBody{rwc, cancel}, rwc}
	}
	return &cancelBody{body, cancel}
}

// cancelBody is a response body whose Close also cancels its attempt's context.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

// Close closes the body, then releases the attempt's context.
func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// cancelReadWriteBody is a cancelBody that can be written to.
type cancelReadWriteBody struct {
	cancelBody
	w io.Writer
}

// Write writes to the underlying connection.
func (b *cancelReadWriteBody) Write(p []byte) (int, error) { return b.w.Write(p) }
