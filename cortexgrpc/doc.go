// Package cortexgrpc is a pair of gRPC client interceptors, unary and stream, that let a retry
// strategy (strategy.Strategy; CORTEX by default) admit every attempt of a call, learn from its
// outcome and latency, and decide whether and when a failed attempt is retried. A Go service
// adopts it in three lines:
//
//	cfg := cortexgrpc.DefaultConfig()
//	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds),
//		grpc.WithChainUnaryInterceptor(cortexgrpc.Unary(cfg)))
//
// Unary and Stream each build their own strategy; New builds one Interceptor whose Unary and
// Stream share it, and whose DialOptions also turn gRPC's own retries off (below).
//
// # What an attempt goes through
//
// Before an attempt (the original, retry 0, or retry n) is sent, the strategy's Admit is asked
// (with the call's priority, the retry index and the context's deadline): a refusal fails the
// call locally with a *RefusedError, and nothing is sent; a hold (a rate limiter without a
// token) is slept within the call's context and Admit asked again, and a hold that would end
// past the deadline fails the call at once as refused. After the attempt, its outcome (below)
// and latency (from its admission to its answer, on the monotonic clock) go to the strategy's
// Record: exactly once for every attempt it admitted, a canceled one as strategy.Canceled. After a failure the strategy's Decide answers with a
// strategy.Verdict: retry after a delay, or stop. A server's grpc-retry-pushback-ms trailer is
// a floor on that delay (capped by Config.MaxPushback); a negative or malformed pushback, or
// several, end the call without asking the strategy, as gRFC A6 and grpc-go's own retries read
// it. The wait is a timer raced against the call's context: a cancel ends it at once (the call
// returns CANCELED), and a retry that would start at or after the call's deadline is not
// waited for: the call returns the last attempt's status instead. Config.AttemptTimeout
// optionally bounds each attempt of a unary call on its own; an attempt that runs out of it
// is a Timeout and may be retried.
//
// When the interceptor gives up, the caller gets what the last attempt produced, as from the
// bare connection: nil, or the status error gRPC returned, unwrapped (status.Code works).
//
// # Classification
//
// The strategy knows five failure kinds (strategy.Outcome). An attempt ending with status:
//
//	OK                                            Success
//	UNAVAILABLE                                   FastFail    (retryable: refused, reset, a server that sheds)
//	RESOURCE_EXHAUSTED                            Throttled   (retryable: the throttle, like HTTP 429)
//	DEADLINE_EXCEEDED                             Timeout     (retryable, unless the call's own deadline passed)
//	ABORTED                                       BadRequest, or ServerError (retryable) with Config.RetryAborted
//	every other code                              BadRequest  (not retryable)
//
// UNAVAILABLE is FastFail because that is what the strategies and the simulator mean by it (a
// refused connection, a 503 from a full queue), so a gRPC client and a simulated one count the
// same outcome. A final code (INVALID_ARGUMENT, NOT_FOUND, INTERNAL, UNIMPLEMENTED, ...) is a
// BadRequest: not retried, and to CORTEX an answered request (it lowers the failure rate). An
// attempt that the call's own context ends is not a service failure to retry: when the call's
// deadline passes during an attempt, the attempt is recorded as a Timeout (the client gave up
// waiting, as in the simulator) and the call returns DEADLINE_EXCEEDED; when the context is
// canceled, the attempt is not recorded at all.
//
// # Streams
//
// A stream is retried only before its first message is received: while the server has sent
// nothing, a new attempt is opened and the messages sent so far are sent on it again (at most
// Config.StreamReplay of them, kept by reference: gRPC forbids changing a message once sent);
// a send that meets the failed attempt is not an error, RecvMsg reports the failure or
// retries it.
// The first message, the stream's end, or a caller that read its headers (Header) commit the
// stream: what follows, a failure included, reaches the caller as it is. A stream attempt's
// outcome is its first answer (a message: Success; an end with OK: Success; a failure: its
// class) and its latency the time to it; what comes after is the application's.
//
// # Beside gRPC's own retries
//
// gRPC retries a method itself when the channel's service config gives it a retryPolicy, and
// its retries happen inside the invoker the interceptor calls: each of CORTEX's attempts would
// then be up to maxAttempts of gRPC's. So the interceptors stand aside for such a method: they
// still admit each call (priority shedding, an open circuit) and record its final status, but
// decide no retry (Attempt.End is EndStandAside), and the server sees gRPC's attempts only. To
// have CORTEX retry every method instead, turn gRPC's retries off: dial with the Interceptor's
// DialOptions (grpc.WithDisableRetry() and both interceptors), or with grpc.WithDisableRetry()
// and Config.RetriesDisabled. gRPC's transparent retries (an attempt that never left the
// client, or that the server never processed) stay: they do not reach the service twice.
//
// # Priority
//
// Each call has a priority from 0 (shed first) to 10 (shed last): the one set on its context
// with WithPriority (package priority's, which cortexhttp.WithPriority sets too, so one
// priority rides on a service's HTTP and gRPC calls alike), else the integer in the
// Config.PriorityKey outgoing metadata ("x-cortex-priority" by default; an unparsable value is
// ignored, one out of range clamped), else Config.DefaultPriority (5). The metadata is sent on
// unchanged: an upstream that also runs CORTEX can read it.
//
// # Refusals
//
// A call whose attempt the strategy's Admit refuses (an open circuit, a shed priority, a full
// concurrency limit; a hold past the deadline) fails with a *RefusedError carrying the
// Admission's action and reason: a gRPC status error, UNAVAILABLE, whose message says which
// strategy refused which call and why, with an errdetails.ErrorInfo (domain ErrorDomain, the
// reason, the action) in its details. errors.Is(err, ErrNotAdmitted) and errors.As find it; a
// service that returns it from its own handler answers its client at once with the same
// status, and RefusalOf reads the refusal back on that side of the wire.
//
// # Concurrency, fleets and observation
//
// An Interceptor is safe for concurrent use. Strategies are not, unless they say so: calls
// into a strategy are serialised by a mutex, except for a strategy that declares itself safe
// (strategy.Concurrent: cortex and cortex-article, whose engine has its own lock, naive and
// none), or when Config.ConcurrentStrategy says so. A CORTEX engine that a fleet.Member syncs with a
// fleet store (engine.Config.Fleet) is used as is: the interceptor decides on the fleet's view
// and its shared budget, as live mode's clients do. The number of calls waiting for a retry is
// fed to the strategy's SetPending (the CORTEX engine's queue signal Q) and read with
// Interceptor.Pending. Config.OnAttempt is called after every attempt with what happened and
// what was decided, for dashboards and logs.
package cortexgrpc
