package live

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortex-tui/cortex-tui/cortexhttp"
	"github.com/cortex-tui/cortex-tui/live/proxy"
	"github.com/cortex-tui/cortex-tui/source"
)

// failureCause is the cause of the failed attempt a: the one the proxy's FaultHeader on its
// answer names (fault: a failure of the target, or an answer the fault injector made up), or
// else the transport's (cortexhttp.Attempt.Cause).
func failureCause(a cortexhttp.Attempt, fault string) source.FailureCause {
	switch fault {
	case "":
		return fromCortex(a.Cause)
	case "errors", "throttle", "bad_requests":
		return source.FailInjected
	}
	if c, ok := proxy.UpstreamCause(fault); ok {
		return fromCortex(c)
	}
	return source.FailOther
}

// fromCortex is the FailureCause of a cortexhttp cause.
func fromCortex(c cortexhttp.Cause) source.FailureCause {
	switch c {
	case cortexhttp.CauseTimeout:
		return source.FailTimeout
	case cortexhttp.CauseOversize:
		return source.FailOversize
	case cortexhttp.CauseTLS:
		return source.FailTLS
	case cortexhttp.CauseMalformed:
		return source.FailMalformed
	case cortexhttp.CauseRefused:
		return source.FailRefused
	case cortexhttp.CauseReset:
		return source.FailReset
	case cortexhttp.CauseUnreachable:
		return source.FailUnreachable
	case cortexhttp.CauseRedirect:
		return source.FailRedirect
	case cortexhttp.CauseUnavailable:
		return source.FailUnavailable
	case cortexhttp.CauseThrottled:
		return source.FailThrottled
	case cortexhttp.CauseServerError:
		return source.FailServerError
	case cortexhttp.CauseClientError:
		return source.FailClientError
	}
	return source.FailOther
}

// targetWords says what a --target does when attempts fail of each cause, for the event that
// tells it once (EventTarget), then a hint ("" for none); FailInjected is the fault
// injector's, never told.
var targetWords = [source.NumFailureCauses][2]string{
	source.FailTimeout:     {"the target does not answer in time", ""},
	source.FailRefused:     {"the target refuses connections", ""},
	source.FailReset:       {"the target closes connections before a whole answer", ""},
	source.FailUnreachable: {"the target cannot be reached", ""},
	source.FailOversize:    {"the target sends over 64 KiB of headers", "(the proxy reads no more)"},
	source.FailTLS:         {"TLS with the target fails", ""},
	source.FailMalformed:   {"the target's answers are not valid HTTP", ""},
	source.FailBody:        {"the target's bodies break off after their head", ""},
	source.FailRedirect:    {"the target answers with redirects", "(not followed: point --target at the final URL)"},
	source.FailUnavailable: {"the target answers 503", ""},
	source.FailThrottled:   {"the target answers 429", ""},
	source.FailServerError: {"the target answers 5xx", ""},
	source.FailClientError: {"the target answers 4xx", "(a wrong path, or credentials it wants?)"},
	source.FailOther:       {"attempts fail for a reason live mode cannot name", ""},
}

// maxDetail bounds the error quoted in a diagnosis, in bytes.
const maxDetail = 160

// diagnose tells, once per cause of failure and run, what a --target does wrong when attempts
// of this tick (c) failed of a cause not told yet (an EventTarget: "the target sends over 64
// KiB of headers: attempts fail as 'oversize headers' (the proxy reads no more)"), what it
// matters first (the log cuts long lines), then the first error the proxy met of it or a
// hint. The embedded target's failures are the scenario's story and the fault injector's
// answers its own: neither is told. r.mu is held.
func (r *Run) diagnose(t time.Duration, c *source.Counts) {
	px, ok := r.stack.Faults.(*proxy.Proxy)
	if !ok || r.stack.Target != nil {
		return
	}
	r.markExplained(t)
	var up proxy.Counters
	read := false
	for i, n := range c.FailureCauses {
		cause := source.FailureCause(i)
		words := targetWords[i]
		if n == 0 || r.told[i] || words[0] == "" || t <= r.explainedTill[i] {
			continue
		}
		if !read {
			up, read = px.Counters(), true
		}
		text := fmt.Sprintf("%s: attempts fail as '%s'", words[0], cause)
		switch {
		case cause == source.FailTimeout:
			text += " (no answer within " + r.scn.Timeout.String() + ")"
		case words[1] != "":
			text += " " + words[1]
		default:
			for cc, err := range up.UpstreamErr {
				if fromCortex(cc) == cause {
					text += " (" + detail(err) + ")"
					break
				}
			}
		}
		r.told[i] = true
		r.emit(t, source.Event{Kind: source.EventTarget, Text: text})
	}
}

// markExplained records until when the faults in effect at t explain failures themselves, so
// that they say nothing about the target: refused connections during an outage (and the tick
// after it), timeouts during a blackhole or added latency and up to an attempt's timeout and a
// tick after it (an attempt sent just before the fault ended times out that much later).
// r.mu is held.
func (r *Run) markExplained(t time.Duration) {
	fx := r.tl.Effects()
	if fx.Down {
		r.explainedTill[source.FailRefused] = t + r.tick
	}
	if fx.Hang || fx.Latency > 0 {
		r.explainedTill[source.FailTimeout] = t + r.scn.Timeout + r.tick
	}
}

// detail shortens an error text for a diagnosis: net/http's prefix dropped, at most maxDetail
// bytes (cut at a rune).
func detail(s string) string {
	s = strings.TrimPrefix(s, "net/http: HTTP/1.x transport connection broken: ")
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
