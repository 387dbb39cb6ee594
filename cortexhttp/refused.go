package cortexhttp

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// RefusedError is the error RoundTrip returns when the strategy refused an attempt locally
// (its Admit answered a refusal: an open circuit, a shed priority, a full concurrency limit), or
// held it (a rate limiter without a token) for longer than the request's deadline leaves:
// nothing was sent for that attempt. It wraps ErrNotAdmitted, so errors.Is(err, ErrNotAdmitted)
// holds, and errors.As finds it through the *url.Error an http.Client returns. A service
// answers its own caller at once instead of waiting on a downstream that is known to be down:
//
//	var refused *cortexhttp.RefusedError
//	if errors.As(err, &refused) {
//		w.Header().Set("Retry-After", "1")
//		http.Error(w, refused.Reason, http.StatusServiceUnavailable)
//		return
//	}
//
// A RefusedError is a value built for one request; read it only.
type RefusedError struct {
	// Action is the Admission's action: engine.Reject (a shed priority, a limit) or
	// engine.CircuitOpen; engine.Reject for an attempt held past the deadline.
	Action engine.Action
	// Reason is the Admission's machine-readable reason: CIRCUIT_OPEN, HALF_OPEN_PROBES_BUSY,
	// SHED_LOW_PRIORITY, LIMIT_EXCEEDED, ADAPTIVE_THROTTLE, or the hold's (RATE_LIMITED).
	Reason string
	// Wait is, for an attempt held past the deadline, the hold the strategy asked for; 0 for a
	// refusal.
	Wait time.Duration
	// Strategy is the strategy's name.
	Strategy string
	// Method and URL are the request's (the URL without its password).
	Method, URL string
	// Priority is the request's priority, 0..10.
	Priority int
	// Retry is the refused attempt's index: 0 for the original, n for the n-th retry.
	Retry int
	// After says how the attempt before it ended ("status 503", or its error), "" for an
	// original.
	After string
}

// Error says what was refused, by which strategy and why.
func (e *RefusedError) Error() string {
	what := "the request"
	if e.Retry > 0 {
		what = fmt.Sprintf("retry %d", e.Retry)
	}
	after := ""
	if e.After != "" {
		after = " after " + e.After
	}
	why := e.Reason
	if e.Wait > 0 {
		why = fmt.Sprintf("held %v (%s), past the deadline", e.Wait, e.Reason)
	}
	return fmt.Sprintf("%v: %s %s: the %s strategy refused %s (priority %d)%s: %s",
		ErrNotAdmitted, e.Method, e.URL, e.Strategy, what, e.Priority, after, why)
}

// Unwrap returns ErrNotAdmitted.
func (e *RefusedError) Unwrap() error { return ErrNotAdmitted }

// admitted asks the strategy's Admit for attempt a until it admits or refuses it, sleeping each
// hold within the request's context (each reported as an EndHeld attempt; a hold that would
// end at or after the context's deadline fails the request at once). It returns the attempt as
// the strategy knows it, the time the attempt starts (the start of its latency) and the
// strategy's now at that start; or the error RoundTrip returns: a *RefusedError, or the
// context's cause when it ended during a hold.
func (t *Transport) admitted(ctx context.Context, req *http.Request, a, prev *Attempt) (strategy.Attempt, time.Time, strategy.Time, error) {
	held := func(adm strategy.Admission) {
		a.Admission, a.End, a.Delay = adm, EndHeld, adm.Wait
		t.emit(a)
	}
	sa, start, now, adm, err := t.d.Admitted(ctx, a.Priority, a.Retry, held)
	a.End, a.Delay = EndRetry, 0
	if err != nil {
		return sa, start, now, err
	}
	if adm.Admitted() {
		a.Admission = strategy.Admission{}
		return sa, start, now, nil
	}
	a.Admission = adm
	if a.Retry == 0 && req.Body != nil {
		_ = req.Body.Close() // a RoundTripper closes the body, even when it sends nothing
	}
	a.End = EndNotAdmitted
	t.emit(a)
	return sa, start, now, t.refused(req, a, prev)
}

// refused is the error of a request whose attempt a the strategy's Admit refused (or held past
// the deadline); prev is the attempt before it (its Sent is false for an original).
func (t *Transport) refused(req *http.Request, a, prev *Attempt) error {
	e := &RefusedError{Action: a.Admission.Action, Reason: a.Admission.Reason, Strategy: t.d.Strategy().Name(),
		Method: req.Method, URL: req.URL.Redacted(), Priority: a.Priority, Retry: a.Retry}
	if a.Admission.Held() {
		e.Action, e.Wait = engine.Reject, a.Admission.Wait
	}
	if prev.Sent {
		e.After = fmt.Sprint(prev.Err)
		if prev.Err == nil {
			e.After = fmt.Sprintf("status %d", prev.StatusCode)
		}
	}
	return e
}
