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
// hold within the request's context (a hold that would end at or after the context's deadline
// fails the request at once). It returns the attempt as the strategy knows it, the time the
// attempt starts (the start of its latency) and the strategy's now at that start; or the error
// RoundTrip returns: a *RefusedError, or the context's cause when it ended during a hold.
func (t *Transport) admitted(ctx context.Context, req *http.Request, a, prev *Attempt) (strategy.Attempt, time.Time, strategy.Time, error) {
	dl, hasDeadline := ctx.Deadline()
	for {
		// One clock read serves as Admit's now and the start of the latency (a clock read
		// costs 25-100 ns, a third of the transport's own cost; Admit and preparing the
		// attempt add well under a microsecond to the latency).
		start := time.Now()
		now := t.epoch.Time(start)
		if !t.wallTime {
			now = t.epoch.Time(t.clock.Now())
		}
		sa := strategy.Attempt{Priority: a.Priority, Retry: a.Retry}
		if hasDeadline {
			sa.Deadline = now.Add(dl.Sub(start)) // on the strategy's clock, measured on the real one
			if sa.Deadline == 0 {
				sa.Deadline = -1 // 0 would mean none
			}
		}
		adm := t.admit(now, sa)
		if adm.Admitted() {
			return sa, start, now, nil
		}
		a.Admission = adm
		if adm.Held() {
			if !hasDeadline || dl.Sub(start) > adm.Wait {
				a.End, a.Delay = EndHeld, adm.Wait
				t.emit(a)
				if err := t.sleep(ctx, adm.Wait); err != nil {
					return sa, start, now, err
				}
				continue
			}
		}
		if a.Retry == 0 && req.Body != nil {
			_ = req.Body.Close() // a RoundTripper closes the body, even when it sends nothing
		}
		a.End, a.Delay = EndNotAdmitted, 0
		t.emit(a)
		return sa, start, now, t.refused(req, a, prev)
	}
}

// refused is the error of a request whose attempt a the strategy's Admit refused (or held past
// the deadline); prev is the attempt before it (its Sent is false for an original).
func (t *Transport) refused(req *http.Request, a, prev *Attempt) error {
	e := &RefusedError{Action: a.Admission.Action, Reason: a.Admission.Reason, Strategy: t.strat.Name(),
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

// sleep waits d for a held attempt, or until ctx is done, whose cause it then returns. The
// timer is stopped on every path.
func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-timer.C:
		return nil
	}
}
