package cortexhttp

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/cortex-tui/cortex-tui/strategy"
)

// Attempt is what Config.OnAttempt receives after each attempt: the attempt, its outcome, the
// strategy's verdict and what the transport does next. It is passed by value and shares
// nothing with the transport but Request and Err.
type Attempt struct {
	// Request is the request given to RoundTrip (not the per-attempt copy); read it only.
	Request *http.Request
	// Retry is the attempt's index: 0 for the original, n for the n-th retry.
	Retry int
	// Priority is the request's priority, 0..10.
	Priority int
	// Sent is false when the attempt was never sent: the strategy's Admit refused it
	// (EndNotAdmitted) or holds it (EndHeld), or the request's GetBody failed to give its body
	// again (EndBodyNotReplayable, Err says why).
	Sent bool
	// Admission is the strategy's answer when it refused the attempt (EndNotAdmitted) or held
	// it (EndHeld); zero when it admitted it.
	Admission strategy.Admission
	// Outcome is the attempt's class (see the package doc), meaningful when Recorded.
	Outcome strategy.Outcome
	// Recorded reports that Outcome and Latency were given to the strategy's Record. An
	// attempt that was not sent, was canceled by the caller (EndCanceled) or failed with an
	// error no retry can cure (EndPermanent) is not recorded: count outcomes only when set (the
	// strategy is told strategy.Canceled for such an attempt once admitted, which releases what
	// its Admit took and teaches it nothing).
	Recorded bool
	// StatusCode is the response's status, 0 when the attempt ended in an error.
	StatusCode int
	// Cause is what the attempt met, finer than Outcome (see Cause): the error's
	// (ErrorCause) or the status's (StatusCause); CauseNone for a 1xx or 2xx answer, an attempt
	// not sent, or one the caller canceled.
	Cause Cause
	// Err is the attempt's error, nil when a response came back.
	Err error
	// Latency is the time from the attempt's admission to its response headers or its error,
	// on the monotonic clock.
	Latency time.Duration
	// Decided reports that the strategy's Decide was asked; Verdict is its answer.
	Decided bool
	// Verdict is the strategy's answer for a failed attempt (zero unless Decided).
	Verdict strategy.Verdict
	// RetryAfter is the server's Retry-After, capped at Config.MaxRetryAfter (0: none, or not
	// read because the verdict refused the retry).
	RetryAfter time.Duration
	// Delay is the wait before the next attempt: Verdict.Delay raised to RetryAfter when End is
	// EndRetry; the hold (Admission.Wait) when End is EndHeld; 0 otherwise.
	Delay time.Duration
	// End says whether the request goes on (EndRetry) or why it ends with this attempt.
	End End
}

// End says why a request ends after an attempt, or that it goes on.
type End string

// Why a request ends after an attempt.
const (
	EndRetry             End = ""                    // not the end: the request is retried after Attempt.Delay
	EndSuccess           End = "SUCCESS"             // the attempt succeeded (1xx, 2xx, a 3xx that is not a redirect)
	EndRedirect          End = "REDIRECT"            // the attempt was answered with a redirect (Cause CauseRedirect): recorded as a Success (the service answered) but the request has not got its resource; the response is returned, for http.Client (or the caller) to follow
	EndRefused           End = "REFUSED"             // the strategy's verdict refused the retry (Verdict.Action and Reason say why; a 4xx is NOT_RETRYABLE)
	EndNotAdmitted       End = "NOT_ADMITTED"        // the strategy's Admit refused the attempt, or held it past the deadline: nothing was sent (RoundTrip returns a *RefusedError)
	EndHeld              End = "HELD"                // not the end: the strategy's Admit holds the attempt; it is asked again after Attempt.Delay
	EndDeadline          End = "DEADLINE"            // the context's deadline passed during the attempt, or would pass before the retry
	EndCanceled          End = "CANCELED"            // the context was canceled during the attempt
	EndBodyNotReplayable End = "BODY_NOT_REPLAYABLE" // the request's body cannot be sent again (no GetBody, or GetBody failed)
	EndMaxRetries        End = "MAX_RETRIES"         // Config.MaxRetries retries were made
	EndPermanent         End = "PERMANENT"           // an error no retry can cure (certificate, scheme, bad header): not recorded
)

// ErrNotAdmitted is wrapped by the error RoundTrip returns when the strategy's Admit refuses an
// attempt (an open circuit breaker, adaptive throttling): the request failed locally. That
// error is a *RefusedError, which carries the action and the reason.
var ErrNotAdmitted = errors.New("cortexhttp: attempt not admitted by the retry strategy")

// ErrAttemptTimeout is the error of an attempt that ran out of Config.AttemptTimeout. It is a
// net.Error whose Timeout() is true, and it matches context.DeadlineExceeded with errors.Is.
var ErrAttemptTimeout error = attemptTimeoutError{}

// attemptTimeoutError is ErrAttemptTimeout's type: a timeout in every sense callers test for.
type attemptTimeoutError struct{}

func (attemptTimeoutError) Error() string   { return "cortexhttp: attempt timeout exceeded" }
func (attemptTimeoutError) Timeout() bool   { return true }
func (attemptTimeoutError) Temporary() bool { return true }

// Is makes errors.Is(ErrAttemptTimeout, context.DeadlineExceeded) true.
func (attemptTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
