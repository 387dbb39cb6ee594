package cortexgrpc

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Attempt is what Config.OnAttempt receives after each attempt: the attempt, its outcome, the
// strategy's verdict and what the interceptor does next. It is passed by value and shares
// nothing with the interceptor but Err.
type Attempt struct {
	// Method is the call's full method name, "/package.Service/Method".
	Method string
	// Stream is true for an attempt of a stream, false for a unary call.
	Stream bool
	// Retry is the attempt's index: 0 for the original, n for the n-th retry.
	Retry int
	// Priority is the call's priority, 0..10.
	Priority int
	// Sent is false when the attempt was never sent: the strategy's Admit refused it
	// (EndNotAdmitted) or holds it (EndHeld).
	Sent bool
	// Admission is the strategy's answer when it refused the attempt (EndNotAdmitted) or held
	// it (EndHeld); zero when it admitted it.
	Admission strategy.Admission
	// Outcome is the attempt's class (see the package doc), meaningful when Recorded.
	Outcome strategy.Outcome
	// Recorded reports that Outcome and Latency were given to the strategy's Record. An
	// attempt that was not sent or was canceled by the caller (EndCanceled) is not recorded:
	// count outcomes only when set.
	Recorded bool
	// Code is the attempt's status code (OK for a success; for a stream, the code it failed
	// with before its first message).
	Code codes.Code
	// Err is the attempt's error, nil for a success.
	Err error
	// Latency is the time from the attempt's admission to its answer (a unary call's reply, a
	// stream's first message or end) or its error, on the monotonic clock.
	Latency time.Duration
	// Decided reports that the strategy's Decide was asked; Verdict is its answer.
	Decided bool
	// Verdict is the strategy's answer for a failed attempt (zero unless Decided).
	Verdict strategy.Verdict
	// Pushback is the server's grpc-retry-pushback-ms, capped at Config.MaxPushback (0: none;
	// read after a retryable failure only).
	Pushback time.Duration
	// Delay is the wait before the next attempt: Verdict.Delay raised to Pushback, when End is
	// EndRetry; the hold (Admission.Wait) when End is EndHeld; 0 otherwise.
	Delay time.Duration
	// End says whether the call goes on (EndRetry) or why it ends with this attempt.
	End End
}

// End says why a call ends after an attempt, or that it goes on.
type End string

// Why a call ends after an attempt.
const (
	EndRetry       End = ""             // not the end: the call is retried after Attempt.Delay
	EndSuccess     End = "SUCCESS"      // the attempt succeeded (a stream: its first message, or its end with OK)
	EndRefused     End = "REFUSED"      // the strategy's verdict refused the retry (Verdict.Action and Reason say why; NOT_RETRYABLE for a final status)
	EndNotAdmitted End = "NOT_ADMITTED" // the strategy's Admit refused the attempt, or held it past the deadline: nothing was sent (the call fails with a *RefusedError)
	EndHeld        End = "HELD"         // not the end: the strategy's Admit holds the attempt; it is asked again after Attempt.Delay
	EndDeadline    End = "DEADLINE"     // the call's deadline passed during the attempt, or would pass before the retry
	EndCanceled    End = "CANCELED"     // the call's context was canceled during the attempt
	EndMaxRetries  End = "MAX_RETRIES"  // Config.MaxRetries retries were made
	EndPushback    End = "PUSHBACK"     // the server's pushback said not to retry (a negative or malformed grpc-retry-pushback-ms)
	EndStandAside  End = "GRPC_RETRIES" // the method's service config has a retryPolicy: gRPC retries it, CORTEX does not
	EndCommitted   End = "COMMITTED"    // a stream that cannot be retried: its caller read its headers, or it sent more than Config.StreamReplay messages
)

// ErrorDomain is the domain of the errdetails.ErrorInfo a refused call's status carries.
const ErrorDomain = "cortex-tui"

// ReasonNotAdmitted is the reason of a refusal by a strategy's Admit that gives none.
const ReasonNotAdmitted = "NOT_ADMITTED"

// ErrNotAdmitted is what errors.Is finds in the error of a call that the strategy refused to
// send (or to send again): a *RefusedError.
var ErrNotAdmitted = errors.New("cortexgrpc: attempt not admitted by the retry strategy")

// Refusal says why a strategy refused an attempt: the Admission's Action (engine.Reject for a
// shed priority or a limit, engine.CircuitOpen for an open circuit; Reject for an attempt held
// past the deadline) and its machine-readable Reason (SHED_LOW_PRIORITY, CIRCUIT_OPEN,
// LIMIT_EXCEEDED, a hold's RATE_LIMITED, ...), for the call of Method at Priority, attempt
// Retry.
type Refusal struct {
	Strategy string
	Method   string
	Action   engine.Action
	Reason   string
	// Wait is, for an attempt held past the deadline, the hold the strategy asked for; 0 for a
	// refusal.
	Wait     time.Duration
	Priority int
	Retry    int
}

// RefusedError is the error of a call whose attempt the strategy's Admit refused: nothing was
// sent. It is a gRPC status error (status.FromError, status.Code): UNAVAILABLE, its message
// saying who refused and why, with an errdetails.ErrorInfo (domain ErrorDomain, reason the
// Refusal's, metadata action, strategy, method, priority and retry), so a server that returns
// it from a handler answers its own client at once with the same status. errors.Is(err,
// ErrNotAdmitted) is true; Unwrap gives the previous attempt's error (nil for an original).
type RefusedError struct {
	Refusal
	// Last is the error of the attempt before the refused one (nil when the original was
	// refused).
	Last error
}

// Error says who refused the call and why.
func (e *RefusedError) Error() string {
	why := e.Reason
	if e.Wait > 0 {
		why = fmt.Sprintf("held %v (%s), past the deadline", e.Wait, e.Reason)
	}
	if e.Retry == 0 || e.Last == nil {
		return fmt.Sprintf("cortexgrpc: the %s strategy refused the call to %s (priority %d): %s",
			e.Strategy, e.Method, e.Priority, why)
	}
	return fmt.Sprintf("cortexgrpc: the %s strategy refused retry %d of the call to %s (priority %d): %s, after: %v",
		e.Strategy, e.Retry, e.Method, e.Priority, why, e.Last)
}

// GRPCStatus is the call's status: UNAVAILABLE with the refusal in an errdetails.ErrorInfo.
func (e *RefusedError) GRPCStatus() *status.Status {
	st := status.New(codes.Unavailable, e.Error())
	info := &errdetails.ErrorInfo{Reason: e.Reason, Domain: ErrorDomain, Metadata: map[string]string{
		"action":   e.Action.String(),
		"strategy": e.Strategy,
		"method":   e.Method,
		"priority": strconv.Itoa(e.Priority),
		"retry":    strconv.Itoa(e.Retry),
	}}
	if e.Wait > 0 {
		info.Metadata["wait"] = e.Wait.String()
	}
	if ds, err := st.WithDetails(info); err == nil {
		return ds
	}
	return st
}

// Is reports whether target is ErrNotAdmitted.
func (e *RefusedError) Is(target error) bool { return target == ErrNotAdmitted }

// Unwrap returns the previous attempt's error.
func (e *RefusedError) Unwrap() error { return e.Last }

// RefusalOf returns the refusal err carries: a *RefusedError in its chain, or a status whose
// details hold an ErrorInfo of ErrorDomain (a refusal that crossed the wire: an upstream
// service returned its own client's RefusedError). ok is false for any other error.
func RefusalOf(err error) (r Refusal, ok bool) {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Refusal, true
	}
	st, isStatus := status.FromError(err)
	if !isStatus || st.Code() != codes.Unavailable {
		return Refusal{}, false
	}
	for _, d := range st.Details() {
		info, isInfo := d.(*errdetails.ErrorInfo)
		if !isInfo || info.GetDomain() != ErrorDomain {
			continue
		}
		m := info.GetMetadata()
		r = Refusal{Strategy: m["strategy"], Method: m["method"], Reason: info.GetReason()}
		r.Action = actionNamed(m["action"])
		r.Priority, _ = strconv.Atoi(m["priority"])
		r.Retry, _ = strconv.Atoi(m["retry"])
		r.Wait, _ = time.ParseDuration(m["wait"])
		return r, true
	}
	return Refusal{}, false
}

// actionNamed is the engine action whose String is s (Reject for a name it does not know).
func actionNamed(s string) engine.Action {
	for _, a := range engine.Actions {
		if a.String() == s {
			return a
		}
	}
	return engine.Reject
}
