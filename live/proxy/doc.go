// Package proxy is live mode's fault injection: the simulator's fault kinds on real traffic.
// Injector is an http.Handler middleware (NewInjector, Wrap) that applies them to the requests
// of any handler; Proxy is an HTTP server on loopback that runs that injector around a
// net/http/httputil.ReverseProxy in front of one target, any http(s) URL. Live mode mounts the
// injector inside its embedded target's own server (live/upstream.WithMiddleware), so that a
// request makes one socket hop, and puts the Proxy in front of a user's service (--target).
// Both have the same controls (Set, Clear, ClearAll, Active, Counters) and the same faults in
// the same order; what differs is what the outage closes: the Proxy closes its own listener,
// an Injector calls InjectorConfig.Outage (the embedded target's Down and Up close and reopen
// the target's). Each kind means what it means in the simulator (package sim,
// sim/service.go), as far as a proxy can make it so:
//
//   - outage: connection refused. The proxy really closes its listener and every connection
//     (requests in progress get no answer, as a crashed process gives none), and on Clear
//     listens again on the same port; if the port was taken meanwhile, Counters.ListenErr says
//     so and the proxy retries every ListenRetryInterval. With Config.Outage (the embedded
//     target's Down and Up) the target goes down too, loses its queue and warms up afterwards,
//     as the simulator's service does.
//   - blackhole: connections accepted, requests never answered: each is held (its body read
//     and discarded; a body over 1 MiB closes the connection at once) until its client gives
//     up, an outage or Close, and its connection then closed without an answer. Nothing is forwarded. Requests held when the blackhole is
//     cleared stay held: they were lost.
//   - latency: the value in seconds is added. With Config.Latency (the embedded target's
//     SetLatency) it is added to the target's service time, so capacity drops too, as in the
//     simulator; without it, the proxy delays each request that much before forwarding it (a
//     timer the client's cancellation ends).
//   - errors: a fraction of the requests the target served (an answer below 400) are
//     answered 500 instead, after the work was done: the simulator's errors fault strikes
//     processed attempts. A response-writer wrapper sees the status before it is written and
//     writes the 500 (with none of the target's headers) in its place; the target's body is
//     read to its end (or to Config.MaxBody) and discarded (the 500 goes out when it ends, so
//     that the connection to the target is reused; a client that gives up first cancels the
//     read). cortexhttp classifies a 500 as ServerError, the simulator's outcome.
//   - throttle: a token bucket of the value in requests/s (burst one second's worth, at
//     least 1, full when the fault is set): a request finding no token is answered 429 with a
//     Retry-After of the whole seconds until the next token (at least 1) without forwarding.
//   - capacity: Config.Capacity (the embedded target's SetCapacity) is called with the factor,
//     and with 1 on Clear. Without it Set refuses the fault: a proxy cannot take workers away.
//   - bad_requests: a fraction of the requests answered 400 (not retryable) without forwarding.
//
// The faults act in the simulator's order: an outage before anything (no connection; a
// request that reaches an Injector during an outage has its connection closed without an
// answer), then blackhole, bad_requests, throttle, latency, and errors on the target's answer.
// Answers the injector makes up carry the FaultHeader header naming the fault. Values are in the unit of the
// table of fault kinds (scenarios.FaultSpecs) and checked against its bounds; how long a fault
// lasts is the caller's business (Set, then Clear).
//
// Two differences from the simulator remain: requests the proxy answers 400 or 429 cost the
// target nothing (the simulator charges its service refusal_cost of one request for each), and
// an outage without Config.Outage leaves the target's queue and warm-up alone.
//
// # The target
//
// The proxy contacts Config.Target and nothing else: every request goes to its scheme and
// host whatever URL or Host header the client sent, a guard in front of the transport refuses
// any other URL, and the default transport dials only the target's address and ignores
// HTTP_PROXY. When the target fails, the client gets the answer that it classifies as it would
// classify the failure talking to the target directly (cortexhttp's table), which is also the
// simulator's outcome: a refused connection (the target down or crashed) and a connection reset
// or closed without an answer (a crash while the target held the request) are answered 503,
// which cortexhttp counts as FastFail like a refused or reset connection. The proxy cannot
// refuse a connection it accepted before it knew, and closing it instead would make Go clients
// retry idempotent requests behind the strategy's back and churn connections at thousands of
// requests/s (Envoy answers such failures 503 too). A timeout to the target (dial, TLS
// handshake) is answered 504 and any other failure (garbage, TLS) 502, both ServerError: a
// misbehaving server. A client that gives up cancels its request at the target.
//
// What a target sends is bounded per request: its response headers to MaxHeaderBytes (64 KiB;
// more is answered 502 without reading on), and with Config.MaxBody its body to that many
// bytes (live mode: its clients' drain limit), after which the proxy stops reading, closes its
// connection to the target and ends the answer. Protocol
// upgrades (WebSocket) are answered 501 and counted nowhere: a hijacked connection would
// outlive an outage and Close.
//
// # Lifecycle
//
// New checks the Config; Start listens and serves in the background until Close or the
// cancellation of Start's context; Close stops every goroutine the proxy started, releases
// held requests, waits for every handler and net/http connection goroutine, and closes the
// idle connections to the target. The proxy starts no goroutine per request beyond the one
// net/http runs for each connection.
package proxy
