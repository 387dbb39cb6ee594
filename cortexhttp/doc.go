// Package cortexhttp is a retrying http.RoundTripper: it wraps any RoundTripper
// (http.DefaultTransport by default) and lets a retry strategy (strategy.Strategy; CORTEX by
// default) admit every attempt, learn from its outcome and latency, and decide whether and when
// a failed attempt is retried. A Go service adopts it in three lines:
//
//	rt, err := cortexhttp.New(cortexhttp.DefaultConfig())
//	if err != nil { /* only a bad Config */ }
//	client := &http.Client{Transport: rt}
//
// ConfigFromFile builds the configuration around an engine read from a cortex.toml file (package
// engineconf): the parameters `cortex-tui tune` found for a service on the simulator, which the
// transport then runs as the simulator's engine did.
//
// # What an attempt goes through
//
// Before an attempt (the original, retry 0, or retry n) is sent, the strategy's Admit is asked,
// with the request's priority, the attempt's index and the context's deadline
// (strategy.Attempt). A refusal (an open circuit, a shed priority, a full concurrency limit)
// fails the request locally with a *RefusedError, which wraps ErrNotAdmitted and carries the
// refusal's action and reason, so that a service can answer its own caller 503 at once (see
// its example); nothing is sent. A hold (a rate limiter without a token: the strategy asks for
// a wait) is slept within the request's context, and Admit asked again after it; a hold that
// would end at or after the context's deadline fails the request at once with a *RefusedError.
// After the attempt, its outcome (below) and latency (from its admission to the response
// headers or the error, on the monotonic clock) go to the strategy's Record. After a failure
// the strategy's Decide answers with a strategy.Verdict: retry after a delay, or stop.
// A Retry-After response header (delay-seconds or an HTTP date) is a floor on that delay,
// capped by Config.MaxRetryAfter. The wait is a timer raced against the request's context: a
// cancel ends it at once (RoundTrip returns the context's cause), and a retry that would start
// at or after the context's deadline is not waited for: RoundTrip returns the last response
// (its body unread) or the last error instead. Config.AttemptTimeout optionally bounds each
// attempt on its own; an attempt that runs out of it is a Timeout and may be retried.
//
// When the transport gives up, the caller gets what the last attempt produced, as from the
// bare transport: a response (a 503 is a response, not an error; its body is intact) or the
// base transport's error, unwrapped, so errors.Is and net.Error checks work as before.
//
// # Classification
//
// The strategy knows five failure kinds (strategy.Outcome). An attempt is classified as:
//
//	1xx, 2xx, 3xx                                    Success     (a redirect ends EndRedirect)
//	408 Request Timeout                              Timeout     (retryable)
//	429 Too Many Requests                            Throttled   (retryable)
//	503 Service Unavailable                          FastFail    (retryable)
//	501 Not Implemented                              BadRequest  (not retryable)
//	other 5xx, and status codes outside 100..599     ServerError (retryable)
//	other 4xx                                        BadRequest  (not retryable)
//	error: attempt timeout, deadline, net timeout    Timeout     (retryable)
//	error: refused, reset, EOF, DNS, anything else   FastFail    (retryable)
//	error: TLS certificate, bad scheme/URL/header    not recorded, not retried (EndPermanent)
//
// 503 is FastFail because that is what the strategies and the simulator mean by it ("503 from a
// full queue": the service refused the work quickly, like a refused connection), so a live run
// and a simulated run count the same outcome; a 503's Retry-After is honoured like a 429's.
// 501 is not retried, as in hashicorp/go-retryablehttp and failsafe-go: the server says it will
// never support the request. 408 is the server giving up on a slow request: a Timeout, retried.
// Errors that a retry cannot cure (an untrusted certificate, an unsupported scheme, an invalid
// header) are not reported to the strategy as outcomes: they say nothing about the service's
// health (the strategy is told strategy.Canceled, which only releases what its Admit took, such
// as a concurrency limiter's slot).
//
// # Redirects
//
// The transport never follows a redirect (301, 302, 303, 307, 308): like any
// http.RoundTripper it returns the response, and http.Client follows it above the transport (each hop is a request of its own
// through the transport, admitted and recorded on its own), within its CheckRedirect policy. For
// the strategy a 3xx is a Success: the service answered, well and quickly, and sending the same
// request again would get the same answer. But it is not the resource the request asked for:
// the attempt's End is EndRedirect (not EndSuccess) and its Cause CauseRedirect, so that a
// caller which does not follow redirects (a client whose CheckRedirect returns
// http.ErrUseLastResponse, or one calling RoundTrip itself, as live mode does) counts such a
// request as failed. Live mode counts the attempt as a bad request (not retryable: the URL must
// change) and the request as not completed.
//
// # Causes
//
// Attempt.Cause says what the attempt met, finer than the five outcomes: a timeout, headers
// over the base transport's limit, a TLS failure, a malformed answer (garbage, HTTP/0.9, a bad
// status line, header, Content-Length or transfer coding), a refused or reset connection, an
// unreachable host, a request net/http refuses to send, a redirect, or the status's class
// (503, 429, 5xx, 4xx). ErrorCause names the cause of any error from a RoundTripper or a
// body's Read (a body cut short is a reset, a bad chunk malformed), and StatusCause a status's.
// The transport classifies an attempt at its response headers: a body that breaks afterwards
// is the caller's to see.
//
// An attempt that the request's own context ends is not a service failure to retry: when the
// context's deadline passes during an attempt the attempt is recorded as a Timeout (the client
// gave up waiting, as in the simulator) and RoundTrip returns; when the context is canceled the
// attempt is not recorded (the strategy is told strategy.Canceled).
//
// # Methods and bodies
//
// Every method is retried, POST included, as in go-retryablehttp and failsafe-go: the strategy
// decides, not the method. A service whose requests are not safe to repeat sends them through
// a Transport with MaxRetries 0 (or the none strategy), or with a body that cannot be replayed.
//
// A request with a body is retried only if the body can be replayed: req.GetBody is set
// (http.NewRequest sets it for *bytes.Buffer, *bytes.Reader and *strings.Reader bodies) or the
// body is http.NoBody. Any other body is sent once, its outcome recorded, and the request is
// not retried (EndBodyNotReplayable), since a second attempt could not send the same bytes.
// The response of an attempt that will be retried is drained (up to Config.DrainLimit bytes,
// 64 KiB by default) and closed, so its connection goes back to the pool.
//
// # Priority
//
// Each request has a priority from 0 (shed first) to 10 (shed last): the one set on its context
// with WithPriority, else the integer in the Config.PriorityHeader header ("X-Cortex-Priority"
// by default; an unparsable value is ignored, one out of range clamped), else
// Config.DefaultPriority (5). The header is forwarded unchanged: removing it would mean cloning
// every request (a RoundTripper must not modify its request), and an upstream that also runs
// CORTEX can use it.
//
// # Concurrency and observation
//
// A Transport is safe for concurrent use. Strategies are not, unless they say so: calls into a
// strategy (Admit, Record, Decide, SetPending) are serialised by a mutex in the Transport,
// except for the strategies that declare themselves safe for concurrent use
// (strategy.Concurrent: cortex and cortex-article, whose engine has its own lock, naive and
// none), or when Config.ConcurrentStrategy says so.
// The number of requests waiting for a retry is fed to the strategy's SetPending (the CORTEX
// engine's queue signal Q) and read with Transport.Pending. Config.OnAttempt is called after
// every attempt with what happened and what was decided, for dashboards and logs.
package cortexhttp
